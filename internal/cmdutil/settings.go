package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
)

// AnnotationReportsSettings marks a command (doctor) that reports bad
// settings itself instead of the root refusing to run it.
const AnnotationReportsSettings = "helix:reports-settings"

// AnnotationService marks a long-running service (worker, mcp serve): it
// keeps Go's default SIGPIPE, dying when its stderr reader goes away.
const AnnotationService = "helix:service"

// AnnotationSchemaOptional marks a command (migrate, doctor) that opens the
// database without needing helix's schema there; on its group it covers
// every subcommand. Every other command's database is checked when opened.
const AnnotationSchemaOptional = "helix:schema-optional"

// SchemaOptional reports whether cmd or a parent carries AnnotationSchemaOptional.
func SchemaOptional(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[AnnotationSchemaOptional] != "" {
			return true
		}
	}
	return false
}

// A flag is either a setting or a per-invocation argument. Settings (URLs,
// limits, timeouts, providers, tuning) may also come from HELIX_* variables
// and the config file; arguments (what to work on, which instant, this run
// only, destructive confirmations) come only from the command line, so an
// environment variable or a config file can never retarget or widen a job
// (HELIX_MIGRATE_DOWN_ALL=true must not drop every table).
//
// The tables are by flag name; keys list the exceptions where a name is a
// setting in one command and an argument in another. Every flag of every
// command is in one of them: internal/cmd/root's test walks the tree.

// argumentFlags are per-invocation arguments wherever they appear.
var argumentFlags = set(
	"all-migrations", "all-users", "all-versions", "include-resolved", "at", "auto-approve-narrower", "by", "capability", "check", "dry-run",
	"entity-type", "env", "exclude", "executions", "force", "full", "include", "input", "limit", "llm", "log",
	"min-context", "mode", "model-unlisted", "name", "namespace", "out", "params", "reason", "reembed", "run-now",
	"server", "since", "state", "take", "to", "types", "user-id", "version", "yes",
	"once-at",                          // issue 42: schedule add --once-at, the instant of a one-shot schedule
	"enqueue", "once", "kind", "queue", // issue 15: synthesize --enqueue, worker --once, jobs list filters
	"priority", "type", // issue 44: --enqueue --priority, patterns list --type
	"catch-up", "max-failures", // issue 16: schedule add's schedule definition
	"notify",                            // issue 46: schedule add --notify, the schedule's webhook policy
	"no-descriptions",                   // cobra's completion SHELL: the script to print
	"all",                               // issue 30: jobs list --all shows helix's internal jobs too
	"files",                             // issue 31: tool exec --files, where this run's @PATH uploads are read from
	"mcp-command", "mcp-url", "mcp-env", // issue 35: manifest import of an MCP server
	"anchor", "table", "signature", "scrub-output", // issue 46: audit verify's anchor file and table, skill add's signature file, this exec's printed output
	// issue 43: this transcription's memory and instant; --vad/--denoise
	// switch this run (the settings are voice.vad and voice.denoise)
	"no-memory", "recorded-at", "vad", "denoise",
	"older-than", // issue 48: jobs prune --older-than, this one-off's cutoff (the settings are retention.*)
)

// settingFlags are settings wherever they appear.
var settingFlags = set(
	"algorithm", "allow-private", "batch-size", "batch-tokens", "concurrency", "cron",
	"cpu-limit", "lock-timeout", // issue 47: skill exec's CPU-time cap; issue 49: secure-platform's lock wait
	"deadline", "detect-language", "diarize", "eps", "expansion-budget", "fetch-timeout", "forget-below", "highpass",
	"jitter", "language", "log-format", "log-level", "max-bytes", "max-cost", "max-input-tokens",
	"memory", "only-provider", "memory-limit", "min-cluster-size", "min-confidence", "model",
	"normalize", "output", "output-limit", "provider", "retries", "retry-wait", "seed",
	"shutdown-timeout", "smart-format", "source", "store-audio", "timeout", "timezone",
	"tool-timeout", "trim-silence", "utterances",
	// issue 15: helix worker tuning and the per-user lock wait
	"queues", "job-timeout", "rescue-after", "poll-interval", "fetch-cooldown", "lock-wait",
	"schedule-grace", "schedule-timeout", // issue 16: how late a tick may fire, how long a fire may run
	"users-per-job", // issue 15: synthesize --enqueue's batch of users per job
	"listen",        // issue 36: worker --listen (health, readiness, metrics); issue 35: mcp serve --listen
	"exact-up-to",   // issue 36: jobs stats counts exactly up to this many jobs a state
	"metrics-kinds", // issue 48: worker's helix_queue_jobs shows this many kinds, the rest as "other"
)

// argumentKeys are flags (by configuration key) that are arguments although
// their name is a setting elsewhere: catalog show's filters.
// memory reindex's --language rebuilds the index: a change made on purpose.
// schedule add's --cron, --timezone and --jitter define the schedule stored,
// unlike decay schedule's, which configure a service.
var argumentKeys = set("catalog.show.model", "catalog.show.only-provider", "memory.reindex.language",
	"schedule.add.cron", "schedule.add.timezone", "schedule.add.jitter")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// IsArgument reports whether the flag with this configuration key (FlagKey)
// is a per-invocation argument, never read from the environment or the file.
func IsArgument(key string) bool {
	if argumentKeys[key] {
		return true
	}
	return argumentFlags[key[strings.LastIndex(key, ".")+1:]]
}

// IsClassified reports whether the flag is in one of the tables above.
func IsClassified(key string) bool {
	name := key[strings.LastIndex(key, ".")+1:]
	return argumentKeys[key] || argumentFlags[name] || settingFlags[name]
}
