package a2a

import "bytes"

// parseSSEBlock parses the lines of one event block.
func parseSSEBlock(block []byte) (sseEvent, bool) {
	ev, err := newSSEReader(bytes.NewReader(block), maxEventSize).Next()
	return ev, err == nil
}
