package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
)

// Stream is the event stream of one streaming call.
type Stream struct {
	c      *Client
	ctx    context.Context
	method string
	cancel context.CancelFunc
	body   io.ReadCloser
	sse    *sseReader
	stall  *stallReader
	queue  []Event
	closed atomic.Bool
}

// Next returns the next event. It returns io.EOF at the end of the stream,
// ErrStalled after a silence of the stall timeout, *RPCError for an error
// frame, and another error when the connection broke. Frames that do not
// decode are logged and skipped.
func (s *Stream) Next() (Event, error) {
	if s.sse == nil {
		if len(s.queue) == 0 {
			return Event{}, io.EOF
		}
		ev := s.queue[0]
		s.queue = s.queue[1:]
		return ev, nil
	}
	for {
		raw, err := s.sse.Next()
		if err != nil {
			switch {
			case s.stall.Stalled():
				return Event{}, ErrStalled
			case s.closed.Load() || s.ctx.Err() != nil:
				return Event{}, context.Canceled
			case errors.Is(err, io.EOF):
				return Event{}, io.EOF
			case errors.Is(err, ErrTooLarge):
				return Event{}, err
			}
			return Event{}, fmt.Errorf("a2a: the stream broke: %w", err)
		}
		if len(raw.Data) == 0 && raw.Event != "error" {
			continue
		}
		s.c.trace.frame("recv", s.method, raw.Data)
		if raw.Event == "error" {
			return Event{}, errorFrame(raw.Data)
		}
		ev, err := DecodeFrame(raw.Data)
		var de *DecodeError
		if errors.As(err, &de) {
			s.c.log.Warn("skipping an undecodable stream frame", "method", s.method, "err", err)
			continue
		}
		return ev, err
	}
}

// errorFrame reads an `event: error` frame: a JSON-RPC response, a bare
// error object, or text.
func errorFrame(data []byte) error {
	if _, err := decodeResponse(data); err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			return rpc
		}
	}
	var we wireError
	if json.Unmarshal(data, &we) == nil && we.Message != "" {
		return we.rpcError()
	}
	return &RPCError{Code: -32603, Message: strings.TrimSpace(strings.ToValidUTF8(string(data), "?"))}
}

// Close ends the stream and releases its connection.
func (s *Stream) Close() error {
	s.closed.Store(true)
	s.stall.Stop()
	s.cancel()
	if s.body != nil {
		return s.body.Close()
	}
	return nil
}
