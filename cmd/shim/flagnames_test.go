package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestSoftMemoryLimit: shim runs with a soft memory limit unless
// GOMEMLIMIT is set, which it leaves as the runtime read it; the limit
// follows a large live heap up (half again above it, at least), so that
// the collector does not run in a loop.
func TestSoftMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(1 << 30) // as GOMEMLIMIT=1GiB would have it
	if got := softMemoryLimit(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" }); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want the environment's", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if got := softMemoryLimit(func(string) (string, bool) { return "", false }); got != memoryLimit {
		t.Errorf("limit %d, want %d", got, memoryLimit)
	}
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20) // 64 MiB live
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 64<<20+32<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("with 64 MiB live the limit stays %d MiB", debug.SetMemoryLimit(-1)>>20)
		}
		runtime.GC()
	}
	runtime.KeepAlive(live)
}

// TestCommandFlagsOnlyWhenNamed: a command's flags are built when the
// command line names the command, and not for a plain start (they were a
// fifth of shim's own work before the initialize answer).
func TestCommandFlagsOnlyWhenNamed(t *testing.T) {
	flagsOf := func(args ...string) map[string]int {
		out := map[string]int{}
		for _, c := range newApp(processConsole, append([]string{"shim"}, args...)).Commands {
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
