// Package memlimit is the soft limit of the Go runtime's memory shim runs
// with (memlimit.go): set once at start unless GOMEMLIMIT is, then moved
// after each collection to follow the live heap up.
//
// Its one goroutine is the runtime's finalizer goroutine, which runs the
// follow after each collection; no lock.
package memlimit
