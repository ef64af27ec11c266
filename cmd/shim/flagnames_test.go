package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestFlagsKnowTheirNames: every flag that takes a value knows its names
// without urfave/cli's regular expression, and they are the names the
// library gives (a bool flag is the library's own).
func TestFlagsKnowTheirNames(t *testing.T) {
	for _, f := range commonFlags() {
		var lib []string
		switch f := f.(type) {
		case stringFlag:
			lib = f.StringFlag.Names()
		case stringSliceFlag:
			lib = f.StringSliceFlag.Names()
		case int64Flag:
			lib = f.Int64Flag.Names()
		case *cli.BoolFlag:
			continue
		default:
			t.Fatalf("flag %v is a %T: its names go through a regexp at each lookup", f.Names(), f)
		}
		if !slices.Equal(f.Names(), lib) {
			t.Errorf("names %v, the library's %v", f.Names(), lib)
		}
	}
}

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
