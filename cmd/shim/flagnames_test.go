package main

import (
	"testing"

	"github.com/shimdev/shim/cmd/shim/internal/console"
)

// TestCommandFlagsOnlyWhenNamed: a command's flags are built when the
// command line names the command, and not for a plain start (they were a
// fifth of shim's own work before the initialize answer).
func TestCommandFlagsOnlyWhenNamed(t *testing.T) {
	flagsOf := func(args ...string) map[string]int {
		out := map[string]int{}
		for _, c := range newApp(console.Process, append([]string{"shim"}, args...)).Commands {
			out[c.Name] = len(c.Flags)
		}
		return out
	}
	for name, n := range flagsOf("--url", "https://agent") {
		if n != 0 {
			t.Errorf("a plain start built %d flags of %s", n, name)
		}
	}
	for _, name := range []string{"acp", "login", "logout", "threads", "doctor"} {
		got := flagsOf("--url", "https://agent", name, "--help")
		if got[name] == 0 {
			t.Errorf("%s: no flags built", name)
		}
		for other, n := range got {
			if other != name && n != 0 {
				t.Errorf("%s named: %d flags of %s built", name, n, other)
			}
		}
	}
}
