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

// DecodeRESTFrame decodes an HTTP+JSON stream frame with a Decoder of its
// own.
func DecodeRESTFrame(data []byte) (a2a.Event, error) { return new(Decoder).RESTFrame(data) }

// DecodeRESTFrameProto03 decodes a 0.3 HTTP+JSON stream frame with a
// Decoder of its own.
func DecodeRESTFrameProto03(data []byte) (a2a.Event, error) {
	return new(Decoder).RESTFrameProto03(data)
}
