// Package past holds a past turn of a thread as read back (SPEC §4.5):
// the value package history reads and package render shows, with the
// pure functions over it (the park it leaves, the thread's title, the
// editor-context preamble stripped). It imports nothing of shim but the
// A2A vocabulary (and an internal text cutter), so that the renderer
// stays free of history's sources.
//
// It is pure: no goroutine, no lock.
//
// # Files
//
//	turn.go  Turn, the park a thread's turns leave, the thread's title,
//	         the preamble stripped
package past
