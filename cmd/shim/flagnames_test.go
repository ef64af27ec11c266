package main

import (
	"math"
	"runtime/debug"
	"slices"
	"testing"

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
// GOMEMLIMIT is set, which it leaves as the runtime read it.
func TestSoftMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(math.MaxInt64)
	if got := softMemoryLimit(func(string) (string, bool) { return "", false }); got != memoryLimit {
		t.Errorf("limit %d, want %d", got, memoryLimit)
	}
	debug.SetMemoryLimit(1 << 30) // as GOMEMLIMIT=1GiB would have it
	if got := softMemoryLimit(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" }); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want the environment's", got)
	}
}
