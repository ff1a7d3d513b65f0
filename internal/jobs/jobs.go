// Package jobs is the one definition of every job helix runs: its River
// kind, its job_runs name, its queue, its lock scope and its unit. The CLI,
// the worker (internal/queue) and the scheduler (internal/schedule) read it.
package jobs

import (
	"slices"
	"strings"
)

// River kinds (river_job.kind).
const (
	KindSynthesize      = "synthesize"
	KindSynthesizeUsers = "synthesize_users"
	KindSynthesizeLLM   = "synthesize_llm"
	KindProfileUpdate   = "profile_update"
	KindEmbed           = "embed"
	KindDecay           = "decay"
	KindTranscribe      = "voice_transcribe"
	KindReconcile       = "sync_reconcile"
	KindCatalogFetch    = "catalog_fetch"
	KindManifestImport  = "manifest_import"
	KindScheduleTick    = "schedule_tick"
	KindScheduleFire    = "schedule_fire"
	KindNotifyDeliver   = "notify_deliver"
)

// Queues. One queue per job family lets an operator give each its own
// workers (`helix worker --queues synthesize`).
const (
	QueueSynthesize   = "synthesize"
	QueueLLM          = "llm"
	QueueEmbed        = "embed"
	QueueDecay        = "decay"
	QueueVoice        = "voice"
	QueueSync         = "sync"
	QueueCatalog      = "catalog"
	QueueManifest     = "manifest"
	QueueSchedule     = "schedule"
	QueueScheduleTick = "schedule_tick"
	QueueNotify       = "notify"
)

// Run names (job_runs.job): a kind run in-process and on a worker records
// the same name.
const (
	RunSynthesize     = "synthesize"
	RunSynthesizeLLM  = "synthesize-llm"
	RunProfileUpdate  = "profile update"
	RunEmbed          = "embed"
	RunDecay          = "decay"
	RunTranscribe     = "voice transcribe"
	RunReconcile      = "sync reconcile"
	RunCatalogFetch   = "catalog fetch"
	RunManifestImport = "manifest-import"
)

// Lock scopes: what a lock covers.
const (
	ScopeNone = "none" // coordinated otherwise (claims, idempotent writes)
	ScopeRun  = "run"  // one run of the job at a time (a lease)
	ScopeUser = "user" // one user's write at a time
)

// Lock is a job's lock rule: the in-process run over many units may hold
// a run lease (Run); each unit takes its own lock of Scope, named Name
// (with <user_id> filled in), whoever runs it.
type Lock struct {
	Run   string `json:"run,omitempty"` // lease an in-process run over many units holds ("": none)
	Scope string `json:"scope"`         // the unit's lock: none, run or user
	Name  string `json:"name,omitempty"`
	How   string `json:"how,omitempty"` // transaction lock or lease (package db)
}

// Job is one job kind.
type Job struct {
	Kind     string `json:"kind"`
	Run      string `json:"run"` // job_runs.job ("": records none itself)
	Queue    string `json:"queue"`
	Unit     string `json:"unit"`    // what one queued job does
	Command  string `json:"command"` // the command that runs it in-process and enqueues it (--enqueue)
	Attempts int    `json:"attempts"`
	Lock     Lock   `json:"lock"`
}

// Table is every job kind helix has.
var Table = []Job{
	{Kind: KindSynthesize, Run: RunSynthesize, Queue: QueueSynthesize, Unit: "one user", Command: "synthesize", Attempts: 10,
		Lock: Lock{Run: "synthesize", Scope: ScopeUser, Name: "synthesize:<user_id>", How: "transaction lock, in the user's write"}},
	{Kind: KindSynthesizeUsers, Run: RunSynthesize, Queue: QueueSynthesize, Unit: "a batch of users", Command: "synthesize --all-users", Attempts: 10,
		Lock: Lock{Run: "synthesize", Scope: ScopeUser, Name: "synthesize:<user_id>", How: "transaction lock, in the user's write"}},
	{Kind: KindSynthesizeLLM, Run: RunSynthesizeLLM, Queue: QueueLLM, Unit: "one user", Command: "synthesize --llm", Attempts: 5,
		Lock: Lock{Run: "synthesize-llm", Scope: ScopeNone, How: "a user's patterns are replaced in one transaction"}},
	{Kind: KindProfileUpdate, Run: RunProfileUpdate, Queue: QueueLLM, Unit: "one user", Command: "profile update", Attempts: 5,
		Lock: Lock{Run: "profile-update", Scope: ScopeNone, How: "a user's profile is replaced in one transaction"}},
	{Kind: KindEmbed, Run: RunEmbed, Queue: QueueEmbed, Unit: "one user", Command: "embed", Attempts: 10,
		Lock: Lock{Run: "embed", Scope: ScopeNone, How: "only memories still without an embedding are written"}},
	{Kind: KindDecay, Run: RunDecay, Queue: QueueDecay, Unit: "one id range", Command: "decay run", Attempts: 10,
		Lock: Lock{Run: "decay", Scope: ScopeNone, How: "a range is recomputed in one transaction"}},
	{Kind: KindTranscribe, Run: RunTranscribe, Queue: QueueVoice, Unit: "one recording", Command: "voice transcribe", Attempts: 5,
		Lock: Lock{Scope: ScopeUser, Name: "voice-transcribe:<user_id>", How: "lease"}},
	{Kind: KindReconcile, Run: RunReconcile, Queue: QueueSync, Unit: "one partition", Command: "sync reconcile", Attempts: 10,
		Lock: Lock{Scope: ScopeNone, How: "changes claimed FOR UPDATE SKIP LOCKED"}},
	{Kind: KindCatalogFetch, Run: RunCatalogFetch, Queue: QueueCatalog, Unit: "one source", Command: "catalog fetch", Attempts: 5,
		Lock: Lock{Scope: ScopeRun, Name: "catalog-fetch", How: "lease"}},
	{Kind: KindManifestImport, Run: RunManifestImport, Queue: QueueManifest, Unit: "one URL", Command: "manifest import", Attempts: 5,
		Lock: Lock{Scope: ScopeNone, How: "manifests recorded by content hash"}},
	{Kind: KindScheduleTick, Queue: QueueScheduleTick, Unit: "one pass over the due schedules", Command: "worker", Attempts: 1,
		Lock: Lock{Scope: ScopeNone, How: "schedules FOR UPDATE SKIP LOCKED, fires ON CONFLICT DO NOTHING"}},
	{Kind: KindScheduleFire, Queue: QueueSchedule, Unit: "one fire: the job's command line, which records its own run", Command: "schedule add", Attempts: 10,
		Lock: Lock{Scope: ScopeNone, How: "the fire row is claimed once; its job takes its own locks"}},
	{Kind: KindNotifyDeliver, Queue: QueueNotify, Unit: "one event for one webhook (notify.webhook-url)", Command: "worker", Attempts: 12,
		Lock: Lock{Scope: ScopeNone, How: "one POST; a 2xx completes the job, so a receiver gets an event once"}},
}

// Lookup returns the job of a River kind.
func Lookup(kind string) (Job, bool) {
	i := slices.IndexFunc(Table, func(j Job) bool { return j.Kind == kind })
	if i < 0 {
		return Job{}, false
	}
	return Table[i], true
}

// MustLookup is Lookup for the kinds this module defines.
func MustLookup(kind string) Job {
	j, ok := Lookup(kind)
	if !ok {
		panic("jobs: no kind " + kind)
	}
	return j
}

// Queues is every queue of the table, in its order.
func Queues() []string {
	var qs []string
	for _, j := range Table {
		if !slices.Contains(qs, j.Queue) {
			qs = append(qs, j.Queue)
		}
	}
	return qs
}

// notJobs are the commands that run no job: services, queue and schedule
// administration, and the administration group. A scheduled job line must
// not start with one (schedule add refuses it; a fire refuses it again).
var notJobs = map[string]string{
	"worker":         "it is the service that runs schedules",
	"jobs":           "it steers the queue, it is not a job",
	"patterns":       "it reads patterns, it is not a job",
	"schedule":       "it manages schedules, it is not a job",
	"decay schedule": "it is a long-running service; schedule decay run instead",
	"migrate":        "it is an administration command, not a job",
	"config":         "it is an administration command, not a job",
	"import":         "it is an administration command, not a job",
	"doctor":         "it is an administration command, not a job",
	"version":        "it is an administration command, not a job",
	"completion":     "it is an administration command, not a job",
	"help":           "it is an administration command, not a job",
	"__complete":     "it is an administration command, not a job",
}

// NotSchedulable says why a command line (the command's words, no flags)
// cannot be scheduled, or "" when it can as far as the table knows: the CLI
// checks the rest against its command tree.
func NotSchedulable(words ...string) string {
	for n := len(words); n > 0; n-- {
		if why, ok := notJobs[strings.Join(words[:n], " ")]; ok {
			return why
		}
	}
	return ""
}
