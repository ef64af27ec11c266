package wire

// HTTP+JSON stream frames: a bare StreamResponse, or an {"error": …}
// object read as the JSON-RPC error it stands for (package rpcerror).

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire/rpcerror"
)

// restFrame is an HTTP+JSON stream frame, a StreamResponse or an error,
// in one pass.
type restFrame struct {
	result
	Error *rpcerror.Body `json:"error"`
}

// RESTFrame decodes an HTTP+JSON stream frame (a bare StreamResponse, or
// an {"error": …} object) as Frame does a JSON-RPC one.
func (d *Decoder) RESTFrame(data []byte) (a2a.Event, error) {
	f := d.restFrame()
	f.Error = nil
	if err := unmarshal(data, f); err != nil {
		f.result.clear()
		return a2a.Event{}, a2a.NewDecodeError(err, data)
	}
	return f.event(data)
}

// restFrame is the decoder's HTTP+JSON frame, made on first use.
func (d *Decoder) restFrame() *restFrame {
	if d.rest == nil {
		d.rest = new(restFrame)
		if d.shared {
			d.rest.art = &d.art
		}
	}
	return d.rest
}

// event reads the frame of data: its error, else its StreamResponse.
func (f *restFrame) event(data []byte) (a2a.Event, error) {
	if f.Error != nil {
		f.result.reset()
		return a2a.Event{}, f.Error.RPCError(0, data)
	}
	ev, err := f.result.event(shareOf(data))
	f.result.reset()
	if err != nil {
		return a2a.Event{}, a2a.NewDecodeError(err, data)
	}
	return ev, nil
}

// RESTErrorFrame reads an HTTP+JSON `event: error` frame.
func RESTErrorFrame(data []byte) error {
	if err := rpcerror.Decode(0, data); err != nil {
		return err
	}
	return ErrorFrame(data)
}
