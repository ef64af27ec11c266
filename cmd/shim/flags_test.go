package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shimdev/shim/cmd/shim/internal/flags"
)

// helpFlags lists the --flags an OPTIONS section names.
func helpFlags(help string) []string {
	_, opts, _ := strings.Cut(help, "OPTIONS:")
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s+--([a-z0-9-]+)`).FindAllStringSubmatch(opts, -1) {
		if m[1] != "help" && m[1] != "version" {
			out = append(out, m[1])
		}
	}
	return out
}

// TestCommandHelpListsItsFlags: each command's --help lists the flags it
// reads and no other; serving (no command, or acp) lists them all.
func TestCommandHelpListsItsFlags(t *testing.T) {
	e := newShimEnv(t)
	all := helpFlags(e.run(t, "", "--help").stdout)
	if len(all) != 30 {
		t.Errorf("shim --help lists %d flags, want 30: %v", len(all), all)
	}
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"acp", all},
		{"login", append(slices.Clone(flags.Login), "trust-new-key")},
		{"logout", flags.Logout},
		{"threads", flags.Threads},
		{"doctor", append(slices.Clone(flags.Doctor), "probe")}, // --probe is doctor's own
	} {
		got := helpFlags(e.run(t, "", c.cmd, "--help").stdout)
		want := slices.Clone(c.want)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("shim %s --help lists %v, want %v", c.cmd, got, want)
		}
	}
	if got := helpFlags(e.run(t, "", "logout", "--help").stdout); slices.Contains(got, "steer-grace") || slices.Contains(got, "token") {
		t.Errorf("logout lists flags it ignores: %v", got)
	}
}

// TestUnknownFlagOneLine: an unknown flag is one line on stderr naming it
// and where to look, not the whole help; exit 2.
func TestUnknownFlagOneLine(t *testing.T) {
	e := newShimEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "shim: unknown flag --no-such-flag (see `shim --help`)"},
		{[]string{"doctor", "--steer-grace", "1"}, "shim: unknown flag --steer-grace (see `shim doctor --help`)"},
	} {
		r := e.run(t, "", c.args...)
		if r.code != 2 || strings.TrimSpace(r.stderr) != c.want || strings.Contains(r.stdout, "USAGE") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, r.code, r.stderr, r.stdout, c.want)
		}
	}
}

// TestFlagsBeforeTheCommand: a flag the command does not list may still
// come before its name (as the README says).
func TestFlagsBeforeTheCommand(t *testing.T) {
	f := newFakeA2A(t, "", "")
	e := newShimEnv(t)
	r := e.run(t, "", "--url", f.url(), "--steer-grace", "2s", "doctor", "--log-level", "warn")
	if r.code != 0 || doctorRows(t, r.stdout)["agent URL"] != "ok "+f.url() {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestAgentProfileValues: --agent-profile (or SHIM_AGENT_PROFILE) takes
// auto, generic or gemini-cli; anything else stops with a line saying so.
func TestAgentProfileValues(t *testing.T) {
	f := newFakeA2A(t, "", "")
	e := newShimEnv(t)
	for _, p := range []string{"auto", "generic", "gemini-cli"} {
		if r := e.run(t, "", "--url", f.url(), "--agent-profile", p, "doctor"); r.code != 0 {
			t.Errorf("--agent-profile %s: exit %d\n%s", p, r.code, r.stderr)
		}
	}
	r := e.run(t, "", "--url", f.url(), "--agent-profile", "gemini", "doctor")
	if r.code == 0 || !strings.Contains(r.stderr, `--agent-profile "gemini": use auto, generic or gemini-cli`) {
		t.Errorf("a bad profile: exit %d, stderr %q", r.code, r.stderr)
	}
	e.vars = append(e.vars, "SHIM_AGENT_PROFILE=nope")
	if r := e.run(t, "", "--url", f.url(), "doctor"); r.code == 0 || !strings.Contains(r.stderr, `"nope"`) {
		t.Errorf("SHIM_AGENT_PROFILE is not read: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestHelpHasSpecFlags: every flag of SPEC §1.2 is in `shim --help`, each
// with the environment variable the contract gives it.
func TestHelpHasSpecFlags(t *testing.T) {
	help := newShimEnv(t).run(t, "", "--help").stdout
	flags := map[string]string{
		"url": "SHIM_URL", "endpoint": "SHIM_ENDPOINT", "token": "SHIM_TOKEN", "token-file": "SHIM_TOKEN_FILE",
		"slug": "SHIM_SLUG", "root": "", "context-prefix": "", "steer-grace": "SHIM_STEER_GRACE", "threads-only": "",
		"a2a-version": "SHIM_A2A_VERSION", "state-dir": "SHIM_STATE_DIR", "config-dir": "SHIM_CONFIG_DIR",
		"keyring": "SHIM_KEYRING", "busy-timeout": "", "allow-insecure-http": "", "no-preamble": "",
		"context-window": "", "stall": "", "trace-frames": "", "log-level": "SHIM_LOG_LEVEL",
		"binding": "SHIM_BINDING", "models": "SHIM_MODELS", "oauth-client-id": "SHIM_OAUTH_CLIENT_ID",
		"oauth-client-secret-file": "SHIM_OAUTH_CLIENT_SECRET_FILE", "oauth-scopes": "SHIM_OAUTH_SCOPES",
		"agent-profile": "SHIM_AGENT_PROFILE", "card-url": "SHIM_CARD_URL", "platform": "SHIM_PLATFORM",
		"platform-host": "SHIM_PLATFORM_HOST", "card-keys": "SHIM_CARD_KEYS",
	}
	lines := map[string]string{}
	for _, l := range strings.Split(help, "\n") {
		if m := regexp.MustCompile(`^\s+--([a-z0-9-]+)\b`).FindStringSubmatch(l); m != nil {
			lines[m[1]] = l
		}
	}
	for flag, env := range flags {
		l, ok := lines[flag]
		if !ok {
			t.Errorf("--%s is not in shim --help", flag)
			continue
		}
		if env != "" && !strings.Contains(l, "$"+env+"]") && !strings.Contains(l, "(env "+env+")") {
			t.Errorf("--%s does not name %s: %s", flag, env, l)
		}
	}
}
