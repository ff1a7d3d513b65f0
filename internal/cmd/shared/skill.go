package shared

import (
	"fmt"
	"strconv"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/size"
	"github.com/helixhq/helix/internal/skill"
)

// SkillExecutorOptions reads the operator's caps (skill.timeout, skill.memory,
// skill.output-limit, skill.cpu-limit, skill.max-code-size, skill.net.*) and
// the compiled-module cache (skill.cache-dir), for
// `skill exec`, `skill run` and `tool exec` alike.
func SkillExecutorOptions(cfg *config.Config) (skill.ExecutorOptions, error) {
	o := skill.ExecutorOptions{CacheDir: cfg.String("skill.cache-dir")}
	if s := cfg.String("skill.timeout"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return o, cmdutil.InputError(fmt.Errorf("invalid skill.timeout %q (%s): use a duration such as 10s", s, cfg.Source("skill.timeout")))
		}
		o.Limits.Timeout = d
	}
	for _, k := range []struct {
		key string
		dst *time.Duration
	}{{"skill.cpu-limit", &o.Limits.CPU}, {"skill.net.timeout", &o.Net.RequestTimeout}} {
		if s := cfg.String(k.key); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return o, cmdutil.InputError(fmt.Errorf("invalid %s %q (%s): use a positive duration such as 10s", k.key, s, cfg.Source(k.key)))
			}
			*k.dst = d
		}
	}
	if s := cfg.String("skill.net.max-requests"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return o, cmdutil.InputError(fmt.Errorf("invalid skill.net.max-requests %q (%s): use a whole number of at least 1", s, cfg.Source("skill.net.max-requests")))
		}
		o.Net.MaxRequests = n
	}
	for _, k := range []struct {
		key string
		dst *int64
	}{{"skill.memory", &o.Limits.MemoryBytes}, {"skill.output-limit", &o.Limits.OutputBytes}, {"skill.max-code-size", &o.MaxCodeBytes},
		{"skill.net.max-request", &o.Net.MaxRequestBytes}, {"skill.net.max-response", &o.Net.MaxResponseBytes}} {
		if s := cfg.String(k.key); s != "" {
			n, err := size.Parse(s)
			if err != nil {
				return o, cmdutil.InputError(fmt.Errorf("%s (%s): %w", k.key, cfg.Source(k.key), err))
			}
			*k.dst = n
		}
	}
	sig, err := SkillSignatures(cfg)
	if err != nil {
		return o, err
	}
	o.Signatures = sig
	return o, nil
}

// SkillSignatures reads skill.trusted-signers (an allowed-signers file, as
// ssh-keygen -Y verify takes), skill.require-signature (shared skills) and
// skill.require-signature-user (users' own).
func SkillSignatures(cfg *config.Config) (*skill.SignaturePolicy, error) {
	p := &skill.SignaturePolicy{Require: cfg.String("skill.require-signature") == "true", RequireUser: cfg.String("skill.require-signature-user") == "true"}
	file := cfg.String("skill.trusted-signers")
	if file == "" {
		return p, nil
	}
	b, err := ReadCapped(file, 1<<20)
	if err != nil {
		return nil, cmdutil.InputError(fmt.Errorf("skill.trusted-signers (%s): %w", cfg.Source("skill.trusted-signers"), err))
	}
	if p.Signers, err = skill.ParseAllowedSigners(b); err != nil {
		return nil, cmdutil.InputError(fmt.Errorf("skill.trusted-signers %s (%s): %w", file, cfg.Source("skill.trusted-signers"), err))
	}
	return p, nil
}
