package steer

import "github.com/shimdev/shim/internal/randid"

// NewID returns a steer id: "<client>-<12 hex>".
func NewID(client string) string {
	return client + "-" + randid.Hex(6)
}

// Marker is the text placed in the answer where the agent read a steer.
func Marker(text string) string { return "\n\n↪ steering: " + text + "\n\n" }
