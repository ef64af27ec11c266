package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
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
	if len(all) != 26 {
		t.Errorf("shim --help lists %d flags, want 26: %v", len(all), all)
	}
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"acp", all},
		{"login", loginFlags},
		{"logout", logoutFlags},
		{"threads", threadsFlags},
		{"doctor", doctorFlags},
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
