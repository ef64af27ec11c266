// Package steer holds what is Send Now's own (SPEC §7): a steer's id,
// the marker placed in the answer where the agent read a steer, and the
// bounded buffer a turn detached by a cancel keeps its output in until a
// steering prompt adopts it. Who owns a turn's output, and when, is the
// turn's state machine (package bridge/turn).
//
// Files:
//   - steer.go: a steer's id and its marker.
//   - buffer.go: the bounded buffer of a detached turn's output.
//
// Nothing here starts a goroutine or takes a lock: a Buffer belongs to
// the turn that holds it, under that turn's lock.
package steer
