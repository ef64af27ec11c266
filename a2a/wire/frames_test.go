package wire

import "github.com/shimdev/shim/a2a"

// DecodeFrame decodes one stream frame with a Decoder of its own (its
// event is all its own), as the tests read frames.
func DecodeFrame(b []byte) (a2a.Event, error) { return new(Decoder).Frame(b) }

// decodeFrameWith decodes a frame with another decoder of JSON (the fuzz
// target holds segmentio/encoding to encoding/json with it).
func decodeFrameWith(unmarshal func([]byte, any) error, b []byte) (a2a.Event, error) {
	return decodeFrameInto(unmarshal, b, new(rpcResponse))
}
