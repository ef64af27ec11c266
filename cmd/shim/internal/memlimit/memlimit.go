package memlimit

import (
	"runtime"
	"runtime/debug"
)

// least is the least soft limit of the Go runtime's memory (heap,
// stacks, its own) that shim runs with unless GOMEMLIMIT says otherwise.
// Each editor window runs a shim, so a burst of garbage (twenty sessions
// each reading a 1 MiB frame at once) should not become the process's
// peak: near the limit the collector runs sooner instead of letting the
// heap double. The limit follows the live heap up (followLiveHeap,
// limitFor), so a large live heap (a long thread's history being loaded)
// is never collected in a loop. A stream of small chunks never comes near
// it (BENCHMARKS.md).
const least = 16 << 20

// Set sets least, following the live heap, unless the
// environment (lookup) sets GOMEMLIMIT; it returns the limit in force.
func Set(lookup func(string) (string, bool)) int64 {
	if _, set := lookup("GOMEMLIMIT"); set {
		return debug.SetMemoryLimit(-1)
	}
	debug.SetMemoryLimit(least)
	followLiveHeap()
	return least
}

// gcMark is an object whose finalizer runs once per collection cycle
// (a pointer field keeps it out of the tiny allocator, whose blocks are
// freed together).
type gcMark struct{ _ *int }

// followLiveHeap sets the soft limit after each collection (limitFor).
// The live heap is what is allocated right after the collection
// (runtime/metrics would say it exactly, but its package init costs every
// start ~0.08 ms).
func followLiveHeap() {
	runtime.SetFinalizer(&gcMark{}, func(*gcMark) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		debug.SetMemoryLimit(limitFor(int64(m.HeapAlloc)))
		followLiveHeap()
	})
}

// limitFor is the soft limit after a collection that left live bytes
// live: least, or half again the live heap plus room for the stacks
// and the runtime. The collector then runs when the heap has grown by
// half what is live (GOGC=100 waits for it to double): a burst of garbage
// over a light heap waits for the collector, and a large live heap is
// collected half again as often as without a limit, never in a loop.
func limitFor(live int64) int64 {
	return max(least, live+live/2+4<<20)
}
