package sse

import "bytes"

// parseSSEBlock parses the lines of one event block.
func parseSSEBlock(block []byte) (Event, bool) {
	ev, err := NewReader(bytes.NewReader(block), maxEvent).Next()
	return ev, err == nil
}

// maxEvent is the bound of an event in the tests: SPEC §13's 64 MiB.
const maxEvent = 64 << 20
