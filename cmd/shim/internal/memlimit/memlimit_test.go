package memlimit

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
	if got := Set(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" }); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want the environment's", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if got := Set(func(string) (string, bool) { return "", false }); got != least {
		t.Errorf("limit %d, want %d", got, least)
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
