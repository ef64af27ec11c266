package a2a

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"
)

// frameDecoder reads a binding's SSE frames into events.
type frameDecoder interface {
	// event decodes one frame's data; a *DecodeError is logged and skipped.
	event(data []byte) (Event, error)
	// failure reads an `event: error` frame.
	failure(data []byte) error
}

// newStream returns a stream not yet connected; its stall timer cancels
// it after a silence of the stall timeout.
func (c *conn) newStream(ctx context.Context, method string, frames frameDecoder) *Stream {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{eventMax: c.eventMax, log: c.log, trace: c.trace, frames: frames, shape: shapeDecoder{full: frames.event}, method: method, cancel: cancel, ctx: ctx, parent: parent}
	s.stall = newStallReader(nil, c.cfg.Stall, cancel)
	return s
}

// attach makes the stream read the events of an SSE body.
func (s *Stream) attach(body io.ReadCloser) {
	s.body = body
	s.stall.r = body
	s.stall.touch()
	s.sse = newSSEReader(s.stall, s.eventMax)
}

// replay makes the stream return events, then io.EOF: what a blocking
// call answered, as a stream would have carried it.
func (s *Stream) replay(events []Event) {
	s.queue = events
	s.sse = nil
}

// Stream is the event stream of one streaming call.
type Stream struct {
	log    *slog.Logger
	trace  *tracer
	frames frameDecoder
	shape  shapeDecoder // the stream's learned text-chunk shape
	ctx    context.Context
	// parent is the context the stream was opened with.
	parent context.Context
	method string
	cancel context.CancelFunc
	body   io.ReadCloser
	sse    *sseReader
	stall  *stallReader
	// eventMax bounds one SSE event (conn.eventMax).
	eventMax int
	queue    []Event
	// pull, when set, gives the events after queue (a polled task).
	pull   func() (Event, error)
	closed atomic.Bool
	// decoded reports that a frame was read as JSON-RPC; until then
	// skipped counts the frames that were not, the first kept in notJSON.
	decoded bool
	skipped int
	notJSON *DecodeError
}

// Next returns the next event. It returns io.EOF at the end of the stream,
// ErrStalled after a silence of the stall timeout, *RPCError for an error
// frame, and another error when the connection broke. Frames that do not
// decode are logged and skipped.
func (s *Stream) Next() (Event, error) {
	if s.sse == nil {
		if len(s.queue) == 0 && s.pull != nil {
			if s.closed.Load() {
				return Event{}, context.Canceled
			}
			return s.pull()
		}
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
			case errors.Is(err, io.EOF) && !s.decoded && s.notJSON != nil:
				// Nothing this stream sent was readable: say so, rather
				// than a stream that ended before the agent started.
				return Event{}, &NotJSONError{Events: s.skipped, First: s.notJSON}
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
		s.trace.frame("recv", s.method, raw.Data)
		if raw.Event == "error" {
			s.decoded = true
			return Event{}, s.frames.failure(raw.Data)
		}
		ev, err := s.shape.decode(raw.Data)
		var de *DecodeError
		if !errors.As(err, &de) {
			s.decoded = true
		}
		if err == nil {
			if f, ok := s.frames.(finalFrames); ok && f.final(ev) {
				s.drain()
			}
			return ev, nil
		}
		if de != nil {
			s.log.Warn("skipping an undecodable stream frame", "method", s.method, "err", err)
			s.skipped++
			if s.notJSON == nil {
				s.notJSON = de
			}
			continue
		}
		return ev, err
	}
}

// finalFrames is a frameDecoder that knows which frame is a stream's last:
// the rest of the body is read after it, so that closing the stream keeps
// its connection open for the next request (an agent that ends a run when
// the request's connection closes needs that).
type finalFrames interface {
	final(ev Event) bool
}

// drainMax bounds the wait for the end of a body after its final frame.
const drainMax = 2 * time.Second

// drain reads the body to its end, at most drainMax.
func (s *Stream) drain() {
	t := time.AfterFunc(drainMax, s.cancel)
	defer t.Stop()
	for {
		if _, err := s.sse.Next(); err != nil {
			s.sse = nil // what follows the final frame is not read again
			return
		}
	}
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
