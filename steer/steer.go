// Package steer holds what is Send Now's own (SPEC §7): a steer's id,
// the marker placed in the answer where the agent read a steer, and the
// bounded buffer a turn detached by a cancel keeps its output in until a
// steering prompt adopts it. Who owns a turn's output, and when, is the
// turn's state machine (package bridge/turn).
package steer

import "github.com/shimdev/shim/internal/randid"

// NewID returns a steer id: "<client>-<12 hex>".
func NewID(client string) string {
	return client + "-" + randid.Hex(6)
}

// Marker is the text placed in the answer where the agent read a steer.
func Marker(text string) string { return "\n\n↪ steering: " + text + "\n\n" }
