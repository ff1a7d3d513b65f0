// Package manifest implements `helix manifest import`: tool manifests and
// OpenAPI documents become proposed tools waiting for approval.
package manifest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdManifest is the `manifest` group.
func NewCmdManifest(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "manifest <command>",
		Short: "Import tool manifests and OpenAPI documents as tools awaiting approval",
	}
	cmd.AddCommand(NewCmdImport(f, nil))
	return cmd
}

// ImportOptions are the inputs of `manifest import`.
type ImportOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	Client func(allowPrivate bool, timeout time.Duration) *http.Client

	Targets             []string
	Include             []string
	Exclude             []string
	Server              string
	AllowPrivate        bool
	AutoApproveNarrower bool
	By                  string
	DryRun              bool
	FetchTimeout        time.Duration
	MaxSize             string
	ToolTimeout         string
	Namespace           string
	ExpansionBudget     int
	Deadline            time.Duration
	MemoryLimit         string
	Enqueue             bool
	Priority            int
	UserID              cmdutil.UserID
	MCPCommand          string
	MCPURL              string
	MCPEnv              []string
}

// NewCmdImport reads manifests and OpenAPI documents into tool_manifests.
func NewCmdImport(f *cmdutil.Factory, runF func(*ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{IO: f.IOStreams, F: f, Client: netguard.Client}
	cmd := &cobra.Command{
		Use:   "import FILE|URL|- ...",
		Short: "Record tool manifests or OpenAPI operations as proposed tools",
		Long: `Read tool manifests (YAML or JSON) and OpenAPI documents (3.0, 3.1, or Swagger
2.0), validate them, and record every tool with its version and requested
permissions as "proposed": a person approves it with helix tool approve.

An OpenAPI document yields one tool per operation: named NAMESPACE.operationId
(else NAMESPACE.method_path), the namespace taken from info.title ("Swagger
Petstore" → swagger_petstore) or given with --namespace (none: no prefix), so
that two APIs with the same operationIds are recorded side by side; with one parameters JSON Schema merging the path, query
and header parameters and the request body, the server URL as the only allowed
host, and its security schemes as required credentials. Validation findings
that leave a tool buildable are printed as warnings with their JSON pointer;
external $refs, references to nothing, $ref cycles with nothing in between and
broken syntax are errors with their location, and nothing is written.
$ref JSON pointers may be percent-encoded (RFC 6901 §6); schema patterns are
ECMA-262 regular expressions; a scheme-relative server URL (//host/path) is
resolved against the document's URL, else https, with a warning. The work per
document is bounded: its schemas may expand ($refs inlined) to at most
--expansion-budget values (default 100,000 + 10 per byte of the document), and
its conversion must end within --deadline; past either, it is refused (exit 2).

Re-importing an identical manifest changes nothing. A new version of a tool
lands "proposed"; with --auto-approve-narrower, a new version whose permissions
do not widen those of the approved version (no new host, no larger limit) is
approved at once. Every transition is written to tool_audit. All tools of one
run are recorded in one transaction.

URLs are fetched with a size cap and timeout and never from private or
loopback addresses unless --allow-private.

EXAMPLES
  helix manifest import tools/weather.yaml
  helix manifest import testdata/manifest/oai-v3.0-petstore.yaml --exclude pets
  helix manifest import https://example.com/openapi.json --include listPets --output json
  helix manifest import weather-1.1.yaml --auto-approve-narrower --by alice
  helix manifest import petstore-v2.json --namespace petstore_v2
  helix manifest import my-notes.yaml --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b
  helix manifest import https://example.com/openapi.json --enqueue   # then: helix worker --queues manifest

--enqueue queues one job per URL (files and stdin cannot be queued: the
worker would not see them) for helix worker and returns at once. The
worker fetches, converts and records each document on its own, with its
own manifest.max-* limits; a URL whose job is pending is not queued twice.
` + mcpHelp + `
` + cmdutil.ExitStatusDB,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Targets = args
			if err := checkMCPFlags(opts); err != nil {
				return err
			}
			if opts.By == "" {
				opts.By = manifest.DefaultActor()
			}
			if opts.FetchTimeout <= 0 {
				return cmdutil.FlagErrorf("--fetch-timeout must be positive")
			}
			if _, err := manifest.ParseBytes(opts.MaxSize); err != nil {
				return cmdutil.FlagErrorf("invalid --max-bytes: %v", err)
			}
			if err := manifest.ValidNamespace(opts.Namespace); err != nil {
				return cmdutil.FlagErrorf("invalid --namespace: %v", err)
			}
			if opts.ExpansionBudget < 0 || opts.Deadline <= 0 {
				return cmdutil.FlagErrorf("--expansion-budget must not be negative and --deadline must be positive")
			}
			if _, err := manifest.ParseBytes(opts.MemoryLimit); err != nil {
				return cmdutil.FlagErrorf("invalid --memory-limit: %v", err)
			}
			if opts.ToolTimeout != "" {
				if d, err := time.ParseDuration(opts.ToolTimeout); err != nil || d <= 0 {
					return cmdutil.FlagErrorf("invalid --tool-timeout %q: use a duration such as 30s", opts.ToolTimeout)
				}
			}
			if opts.Enqueue {
				if opts.UserID.Given {
					return cmdutil.FlagErrorf("--enqueue and --user-id cannot be used together: import a user's own tools in the foreground")
				}
				if opts.DryRun {
					return cmdutil.FlagErrorf("--enqueue and --dry-run cannot be used together")
				}
				for _, t := range opts.Targets {
					if !manifest.IsURL(t) {
						return cmdutil.FlagErrorf("--enqueue takes URLs only, not %q: a worker cannot read this host's files", t)
					}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Enqueue {
				return enqueue(cmd.Context(), opts)
			}
			return importRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Include, "include", nil, "import only OpenAPI operations with one of these tags or operationIds")
	fl.StringSliceVar(&opts.Exclude, "exclude", nil, "leave out OpenAPI operations with one of these tags or operationIds")
	fl.StringVar(&opts.Server, "server", "", "server URL for OpenAPI tools, instead of the document's")
	fl.BoolVar(&opts.AllowPrivate, "allow-private", false, "allow fetching URLs from private and loopback addresses")
	fl.BoolVar(&opts.AutoApproveNarrower, "auto-approve-narrower", false, "approve a new version at once when its permissions do not widen the approved version's")
	fl.StringVar(&opts.By, "by", "", "who imports, for the audit trail (default: the current user)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "validate and report, write nothing")
	fl.DurationVar(&opts.FetchTimeout, "fetch-timeout", 30*time.Second, "time limit for fetching a URL")
	fl.StringVar(&opts.MaxSize, "max-bytes", "32MiB", "largest document accepted")
	cmdutil.Alias(fl, "max-bytes", "max-size")
	fl.StringVar(&opts.Namespace, "namespace", "", "prefix of OpenAPI tool names (default: from info.title; none: no prefix)")
	fl.IntVar(&opts.ExpansionBudget, "expansion-budget", 0, "most schema values one OpenAPI document's tools may expand to (0: 100,000 + 10 per byte of the document)")
	fl.DurationVar(&opts.Deadline, "deadline", 2*time.Minute, "longest conversion of one OpenAPI document")
	fl.StringVar(&opts.MemoryLimit, "memory-limit", "384MiB", "soft limit of the heap while importing, so that the garbage collector keeps a large import's memory near its live size; raised to 32 bytes per byte of a larger document (0: none; GOMEMLIMIT wins)")
	fl.StringVar(&opts.ToolTimeout, "tool-timeout", "30s", "permissions.timeout given to tools built from OpenAPI operations")
	fl.BoolVar(&opts.Enqueue, "enqueue", false, "queue one job per URL for helix worker and return at once")
	cmdutil.UserIDVar(fl, &opts.UserID, "record the tools as this user's own (UUID): they propose and approve them, and they run only for them; without it, shared")
	mcpFlags(cmd, opts)
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

// Result is the JSON document of an import.
type Result struct {
	Sources   []*openapi.Loaded `json:"sources"`
	Changes   []manifest.Change `json:"changes"`
	Created   int               `json:"created"`
	Unchanged int               `json:"unchanged"`
	DryRun    bool              `json:"dry_run"`
}

func importRun(ctx context.Context, opts *ImportOptions) error {
	f := opts.F
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	max, err := shared.ManifestMaxima(cfg)
	if err != nil {
		return err
	}
	maxBytes, _ := manifest.ParseBytes(opts.MaxSize)
	memLimit, _ := manifest.ParseBytes(opts.MemoryLimit)
	if os.Getenv("GOMEMLIMIT") != "" {
		memLimit = 0
	}
	lo := openapi.LoadOptions{
		OpenAPI: openapi.Options{Include: opts.Include, Exclude: opts.Exclude, Server: opts.Server, Timeout: opts.ToolTimeout,
			Namespace: opts.Namespace, Budget: opts.ExpansionBudget},
		Maxima: max,
	}
	client := opts.Client(opts.AllowPrivate, opts.FetchTimeout)
	res := &Result{DryRun: opts.DryRun}
	cands, err := mcpCandidates(ctx, opts, max)
	if err != nil {
		return err
	}
	for _, t := range opts.Targets {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := manifest.Read(ctx, t, opts.IO.In, client, maxBytes)
		if err != nil {
			return err
		}
		name := t
		if t == "-" {
			name = "stdin"
		}
		if memLimit > 0 {
			// Without a limit the heap grows to twice the live data between
			// collections (1.3 GB for graph.json, 20 MB); with one below the
			// live data the collector runs without end (graph.json needs
			// about 320 MB: 56 % of its CPU went to it under 384 MiB).
			debug.SetMemoryLimit(manifest.HeapLimit(memLimit, len(data)))
		}
		pctx, cancel := context.WithTimeout(ctx, opts.Deadline)
		l, err := openapi.Parse(pctx, name, data, lo)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("%w (nothing was imported)", err)
		}
		res.Sources = append(res.Sources, l)
		cands = append(cands, l.Candidates...)
		asJSON := opts.F.Global.JSON() // stderr carries JSON objects only: log lines
		for _, w := range l.Warnings {
			if asJSON {
				opts.F.Logger().Warn(firstLine(w.Message), "source", name, "pointer", w.Pointer)
				continue
			}
			cmdutil.Fprintf(opts.IO.ErrOut, "warning: %s#%s: %s\n", safetext.Line(name), safetext.Line(w.Pointer), safetext.Line(firstLine(w.Message)))
		}
		if len(l.Candidates) == 0 && len(l.Warnings) == 0 {
			if asJSON {
				opts.F.Logger().Warn("no tools to import", "source", name)
			} else {
				cmdutil.Fprintf(opts.IO.ErrOut, "%s: no tools to import\n", safetext.Line(name))
			}
		}
	}

	if !opts.DryRun && len(cands) > 0 {
		pool, err := f.DB(ctx)
		if err != nil {
			return err
		}
		if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
			return err
		}
		err = jobrun.Do(ctx, pool, jobrun.Spec{Job: jobs.RunManifestImport, Params: opts.runParams(), Now: f.Now},
			func(ctx context.Context, run *jobrun.Run) (any, error) {
				var err error
				res.Changes, err = manifest.Record(shared.WithNotify(ctx, f), pool, cands, manifest.ImportOptions{Actor: opts.By, AutoApproveNarrower: opts.AutoApproveNarrower, Now: f.Now(), Owner: opts.UserID.Owner()})
				res.count()
				return map[string]int{"tools": len(cands), "created": res.Created, "unchanged": res.Unchanged}, err
			})
		if err != nil {
			if ce := (*manifest.ConflictError)(nil); !errors.As(err, &ce) {
				err = fmt.Errorf("record tools: %w", err)
			}
			return fmt.Errorf("%w (nothing was imported)", err)
		}
	} else {
		for _, c := range cands {
			res.Changes = append(res.Changes, manifest.Change{Name: c.Manifest.Name, Version: c.Manifest.Version, Action: "validated"})
		}
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	if len(res.Changes) == 0 {
		return nil
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	tp.Header("NAME", "VERSION", "ACTION", "STATE", "REASON")
	for _, c := range res.Changes {
		tp.Row(c.Name, c.Version, c.Action, c.State, c.Reason)
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if !opts.DryRun {
		cmdutil.Fprintf(opts.IO.ErrOut, "%d created, %d unchanged\n", res.Created, res.Unchanged)
	}
	return nil
}

// args are the manifest_import job of url.
func (opts *ImportOptions) args(url string) queue.ManifestImportArgs {
	maxBytes, _ := manifest.ParseBytes(opts.MaxSize)
	return queue.ManifestImportArgs{URL: url, Include: opts.Include, Exclude: opts.Exclude, Server: opts.Server,
		Namespace: opts.Namespace, ToolTimeout: opts.ToolTimeout, ExpansionBudget: opts.ExpansionBudget, Deadline: opts.Deadline,
		AutoApproveNarrower: opts.AutoApproveNarrower, By: opts.By,
		Net: queue.Net{AllowPrivate: opts.AllowPrivate, Timeout: opts.FetchTimeout, MaxBytes: maxBytes}}
}

// runParams is the in-process run's record: the job's typed args, as a
// worker records them (the URL empty: the run covers every target).
func (opts *ImportOptions) runParams() queue.RunParams {
	return queue.RunParams{Args: opts.args(""), Units: len(opts.Targets), Options: map[string]any{"targets": opts.Targets}}
}

// enqueue queues one manifest_import job per URL.
func enqueue(ctx context.Context, opts *ImportOptions) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	args := make([]queue.ManifestImportArgs, len(opts.Targets))
	for i, t := range opts.Targets {
		args[i] = opts.args(t)
	}
	res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(true, opts.Priority))
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
	return err
}

func (r *Result) count() {
	r.Created, r.Unchanged = 0, 0
	for _, c := range r.Changes {
		if c.Action == "unchanged" {
			r.Unchanged++
		} else {
			r.Created++
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
