package skill

import (
	"cmp"
	"context"
	"fmt"
	"github.com/helixhq/helix/internal/cmd/shared"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/skill"
)

// AddOptions are the inputs of `skill add`.
type AddOptions struct {
	IO           *iostreams.IOStreams
	F            *cmdutil.Factory
	File         string
	Name         string
	Version      string
	Params       string
	Capabilities []string
	Limits       limitFlags
	Signature    string
	UserID       cmdutil.UserID
}

// NewCmdAdd stores a skill in the registry.
func NewCmdAdd(f *cmdutil.Factory, runF func(*AddOptions) error) *cobra.Command {
	opts := &AddOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "add FILE",
		Short: "Store a skill (.wasm WASI command module or .js script) in the registry",
		Long: `Store a skill in the registry under NAME@VERSION. FILE is a WebAssembly WASI
preview 1 command module (recognised by its \0asm header) or a JavaScript file
(.js). The module is compiled (which fills the compilation cache, so the first
exec is warm) and must export _start; a script must parse.

Without --version the next integer version is used (1, 2, …), unless the code
is the same as the latest version's: then nothing is added. An existing
NAME@VERSION with other code is refused (exit 2).

--params names a JSON Schema that every input is validated against before the
skill runs. --capability grants, one per flag:
  fs:read=DIR   DIR mounted read-only at /data (wasm only; no escape by ../ or symlinks)
  clock         the real clock (otherwise time stands at 1970-01-01)
  random        real randomness (otherwise a fixed seed)
  env:NAME      the variable NAME may be passed with exec --env NAME=VALUE
  net:https=HOST[:PORT]  HTTPS requests to HOST through helix (js: fetch; wasm: the
                host module "helix"), checked at dial time, capped (skill.net.*)
  net:http=HOST[:PORT]   plain HTTP to HOST, only with exec --allow-private
--timeout, --memory and --output-limit store the skill's own caps.

--signature FILE.sig is an SSH signature of FILE (ssh-keygen -Y sign -n
helix-skill -f KEY FILE), verified against skill.trusted-signers (an
allowed-signers file); the signer is recorded, shown by skill show, and the
signature verified again whenever the code is loaded to run. With
skill.require-signature: true (shared skills) or skill.require-signature-user:
true (users' own), unsigned or badly signed code is refused (exit 2), here
and at exec.

--user-id stores the skill as that user's own: only they (and helix acting
for them) see it, its versions count apart from anyone else's, and it wins
over a shared skill of the same name when they run it. Without it the skill
is shared: every user may run it.

EXAMPLES
  helix skill add openapi-ops.wasm --name openapi-ops --params openapi-ops.schema.json
  helix skill add rank.js --name rank --version 1.2.0 --capability clock --timeout 5s
  ssh-keygen -Y sign -n helix-skill -f ~/.ssh/id_ed25519 rank.js && helix skill add rank.js --signature rank.js.sig
  helix skill add mine.js --name summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b
  helix skill add weather.js --capability net:https=api.open-meteo.example --capability env:API_KEY

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Limits.TimeoutSet = cmd.Flags().Changed("timeout")
			if runF != nil {
				return runF(opts)
			}
			return addRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", "", "skill name (default: the file's base name)")
	fl.StringVar(&opts.Version, "version", "", "version (default: the next integer)")
	fl.StringVar(&opts.Params, "params", "", "JSON Schema file for the input")
	fl.StringArrayVar(&opts.Capabilities, "capability", nil, "grant a capability: fs:read=DIR, clock, random, env:NAME, net:https=HOST[:PORT], net:http=HOST[:PORT] (repeatable)")
	fl.DurationVar(&opts.Limits.Timeout, "timeout", 0, "the skill's own wall-clock cap")
	fl.StringVar(&opts.Limits.Memory, "memory", "", "the skill's own memory cap (e.g. 64MiB)")
	fl.StringVar(&opts.Limits.OutputLimit, "output-limit", "", "the skill's own output cap (e.g. 256KiB)")
	fl.StringVar(&opts.Signature, "signature", "", "SSH signature of FILE (ssh-keygen -Y sign -n helix-skill), checked against skill.trusted-signers")
	cmdutil.UserIDVar(fl, &opts.UserID, "store the skill as this user's own (UUID); without it, shared")
	return cmd
}

func addRun(ctx context.Context, opts *AddOptions) error {
	s, err := skill.LoadFile(opts.File)
	if err != nil {
		return cmdutil.InputError(err)
	}
	if opts.Name != "" {
		s.Name = opts.Name
	}
	if err := skill.ValidateName(s.Name); err != nil {
		return cmdutil.InputError(fmt.Errorf("%w (set one with --name)", err))
	}
	s.Version = opts.Version
	if s.Limits, err = opts.Limits.limits(); err != nil {
		return err
	}
	if _, s.Capabilities, err = skill.ParseCapabilities(opts.Capabilities); err != nil {
		return cmdutil.InputError(err)
	}
	if opts.Params != "" {
		if s.Params, err = os.ReadFile(opts.Params); err != nil {
			return cmdutil.InputError(err)
		}
		if err := skill.CompileSchema(s.Params); err != nil {
			return cmdutil.InputError(fmt.Errorf("%s: invalid JSON Schema: %w", opts.Params, err))
		}
	}
	if err := checkCode(ctx, opts.F, s); err != nil {
		return cmdutil.InputError(fmt.Errorf("%s: %w", opts.File, err))
	}
	armored, signer, err := opts.verifySignature(s.Code)
	if err != nil {
		return err
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	s.Owner = opts.UserID.Ptr()
	var res *skill.AddResult
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if res, err = skill.Add(ctx, tx, s); err != nil || signer == nil {
			return err
		}
		return skill.SaveSignature(ctx, tx, res.Skill.ID, armored, *signer)
	})
	if err != nil {
		return usageToInput(err)
	}
	st := res.Skill
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{
			"name": st.Name, "version": st.Version, "engine": st.Engine, "sha256": st.SHA256,
			"capabilities": st.Capabilities, "created": res.Created, "created_at": st.CreatedAt, "owner": st.Owner, "signed_by": signer,
		})
	}
	verb := "added"
	if !res.Created {
		verb = "already stored:"
	}
	signed := ""
	if signer != nil {
		signed = fmt.Sprintf(", signed by %s %s", signer.Principal, signer.Fingerprint)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%s %s@%s (%s, %d bytes, sha256 %s%s)\n", verb, st.Name, st.Version, st.Engine, len(st.Code), st.SHA256[:12], signed)
	return err
}

// verifySignature checks --signature against skill.trusted-signers, and
// refuses unsigned code when skill.require-signature is on.
func (opts *AddOptions) verifySignature(code []byte) ([]byte, *skill.Signer, error) {
	cfg, err := opts.F.Config()
	if err != nil {
		return nil, nil, err
	}
	policy, err := shared.SkillSignatures(cfg)
	if err != nil {
		return nil, nil, err
	}
	if opts.Signature == "" {
		if setting := policy.Required(opts.UserID.Ptr() != nil); setting != "" {
			return nil, nil, cmdutil.InputError(fmt.Errorf("%s is unsigned and "+setting+" is on: sign it (ssh-keygen -Y sign -n %s -f KEY %s) and pass --signature %s.sig",
				opts.File, skill.SignatureNamespace, opts.File, opts.File))
		}
		return nil, nil, nil
	}
	if policy.Signers == nil {
		return nil, nil, cmdutil.InputError(fmt.Errorf("--signature needs skill.trusted-signers: an allowed-signers file of the keys you trust"))
	}
	armored, err := shared.ReadCapped(opts.Signature, skill.MaxSignatureBytes)
	if err != nil {
		return nil, nil, cmdutil.InputError(fmt.Errorf("read signature: %w", err))
	}
	signer, err := policy.Signers.Verify(code, armored, opts.F.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", opts.Signature, err)
	}
	return armored, &signer, nil
}

// checkCode checks the size cap, then compiles a module (filling the cache)
// or parses a script.
func checkCode(ctx context.Context, f *cmdutil.Factory, s *skill.Skill) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	eo, err := shared.SkillExecutorOptions(cfg)
	if err != nil {
		return err
	}
	if err := skill.CheckCodeSize(s.Code, cmp.Or(eo.MaxCodeBytes, skill.DefaultMaxCodeBytes)); err != nil {
		return err
	}
	if s.Engine == skill.EngineJS {
		return skill.CheckJS(s.Code)
	}
	e, err := skill.NewExecutor(eo)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.CheckWasm(ctx, s.Code)
}
