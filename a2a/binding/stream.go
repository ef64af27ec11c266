package binding

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/sse"
)

// Frames reads a binding's SSE frames into events.
type Frames interface {
	// Event decodes one frame's data; an *a2a.DecodeError is logged and
	// skipped.
	Event(data []byte) (a2a.Event, error)
	// Failure reads an `event: error` frame.
	Failure(data []byte) error
}

// SharedFrames is a Frames that can read a streamed chunk into values of
// its own (wire.Decoder.Share), for a reader done with each event before
// it reads the next (Stream.Share).
type SharedFrames interface {
	Frames
	Share()
}

// InPlaceFrames is a SharedFrames whose Event keeps nothing of the frame
// it is given once it returns (what its decoder reads a frame into is
// written over by the next): a stream that shares may hand it a frame in
// place, in the SSE reader's buffer (sse.Reader.Share).
type InPlaceFrames interface {
	SharedFrames
	KeepsNothing()
}

// FinalFrames is a Frames that knows which frame is a stream's last: the
// rest of the body is read after it, so that closing the stream keeps its
// connection open for the next request (an agent that ends a run when the
// request's connection closes needs that).
type FinalFrames interface {
	Frames
	Final(ev a2a.Event) bool
}

// Request is a call whose answer is a stream.
type Request struct {
	Method, Target string
	Body           []byte
	Dialect        a2a.Dialect
	// Name is the call's name in the trace and the log.
	Name string
}

// Open sends req and returns the stream of its answer: an SSE stream read
// by frames, or a plain body (a blocking send's result, or an error) read
// by answer as the events a stream would have carried.
func (c *Conn) Open(ctx context.Context, req Request, frames Frames, answer func(resp *http.Response, data []byte) ([]a2a.Event, error)) (*Stream, error) {
	if req.Body != nil {
		c.trace.frame("send", req.Name, req.Body)
	}
	s := c.newStream(ctx, req.Name, frames)
	resp, err := c.dial(s, req.Method, req.Target, req.Body, req.Dialect)
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 == 2 && ct == "text/event-stream" {
		s.attach(resp.Body)
		return s, nil
	}
	data, err := c.ReadBody(resp)
	s.Close()
	if err != nil {
		return nil, c.Error(req.Target, err)
	}
	c.trace.frame("recv", req.Name, data)
	events, err := answer(resp, data)
	if err != nil {
		return nil, err
	}
	s.answered(events)
	return s, nil
}

// newStream returns a stream not yet connected; its stall timer cancels
// it after a silence of the stall timeout.
func (c *Conn) newStream(ctx context.Context, method string, frames Frames) *Stream {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{eventMax: c.opts.MaxEvent, departures: c.opts.Departures, log: c.log, trace: c.trace, frames: frames, method: method, cancel: cancel, ctx: ctx, parent: parent}
	s.stall = newStallReader(nil, c.opts.Stall, cancel)
	return s
}

// attach makes the stream read the events of an SSE body.
func (s *Stream) attach(body io.ReadCloser) {
	s.body = body
	s.stall.r = body
	s.stall.touch()
	s.sse = sse.NewReader(s.stall, s.eventMax)
}

// answered makes the stream return events, then io.EOF: what a blocking
// call answered, as a stream would have carried it.
func (s *Stream) answered(events []a2a.Event) {
	s.queue = events
	s.sse = nil
}

// Stream is the event stream of one streaming call.
type Stream struct {
	log *slog.Logger
	// departures records what the server departs from (SPEC §16).
	departures *a2a.Departures
	trace      *tracer
	frames     Frames
	ctx        context.Context
	// parent is the context the stream was opened with.
	parent context.Context
	method string
	cancel context.CancelFunc
	body   io.ReadCloser
	sse    *sse.Reader
	stall  *stallReader
	// eventMax bounds one SSE event (Conn.MaxEvent).
	eventMax int
	queue    []a2a.Event
	// pull, when set, gives the events after queue (a polled task).
	pull   func() (a2a.Event, error)
	closed atomic.Bool
	// finished: the last event read ends the stream by A2A's rules
	// (lastEvent); Close then reads the body to its end first.
	finished atomic.Bool
	// decoded reports that a frame was read as JSON-RPC; until then
	// skipped counts the frames that were not, the first kept in notJSON.
	decoded bool
	skipped int
	notJSON *a2a.DecodeError
	// inPlace: frames are read in the SSE reader's buffer (Share); ids
	// are the stream's copies of the last chunk's ids.
	inPlace bool
	ids     struct{ task, context, artifact, name keptString }
	// rep is the last plain chunk read in place, whose repeats are not
	// decoded again (repeat.go).
	rep repeat
	// watch, when set, sees each event before Next returns it (Watch).
	watch   func(ev *a2a.Event)
	watched a2a.Event
}

// Watch makes fn see each event the stream gives, before Next returns it;
// fn may change the event (the client reads a server's departure there).
// Set it before the first Next.
func (s *Stream) Watch(fn func(ev *a2a.Event)) { s.watch = fn }

// keptString is a stream's own copy of the last string it was given.
type keptString struct{ s string }

// of returns v, as the copy kept while v repeats.
func (k *keptString) of(v string) string {
	if v != k.s {
		k.s = strings.Clone(v)
	}
	return k.s
}

// Context is the context the stream was opened with.
func (s *Stream) Context() context.Context { return s.parent }

// Share tells the stream that its reader is done with each event before
// it reads the next: an artifact event's Artifact may then be the
// binding's decoder's, valid until the next call of Next, so that a
// streamed chunk's decode allocates nothing (SharedFrames). With frames
// that keep nothing of a frame (InPlaceFrames), a frame is also read in
// the SSE reader's buffer, no copy of it made: a plain chunk of answer
// text (plainChunk) is given as read, its text valid until the next call
// of Next and its ids the stream's own copies (and a chunk that repeats
// the last one's frame but for its text is not decoded again: repeat.go);
// any other frame is read again from a copy of its own, as a stream that
// does not share reads it.
func (s *Stream) Share() {
	f, ok := s.frames.(SharedFrames)
	if !ok {
		return
	}
	f.Share()
	if _, ok := f.(InPlaceFrames); ok && s.sse != nil {
		s.sse.Share()
		s.inPlace = true
	}
}

// plainChunk reports whether ev is a chunk of answer text and nothing
// else: an artifact event of one text part, with no metadata and nothing
// an extension read (TestPlainChunkFields lists the fields it looks at).
// Its ids are then made the stream's (kept while they repeat): whatever
// keeps one keeps no frame, nor a buffer that the next read writes over.
func (s *Stream) plainChunk(ev *a2a.Event) bool {
	if !oneArtifactPart(ev) || !textOnly(&ev.Artifact.Parts[0]) {
		return false
	}
	a := ev.Artifact
	ev.TaskID, ev.ContextID = s.ids.task.of(ev.TaskID), s.ids.context.of(ev.ContextID)
	a.ID, a.Name = s.ids.artifact.of(a.ID), s.ids.name.of(a.Name)
	return true
}

// oneArtifactPart reports whether ev is an artifact event of one part,
// with nothing else set (plainChunk).
func oneArtifactPart(ev *a2a.Event) bool {
	a := ev.Artifact
	return ev.Kind == a2a.EventArtifact && a != nil && ev.Task == nil && ev.Message == nil && ev.Metadata == nil &&
		ev.Status == (a2a.Status{}) && len(a.Parts) == 1 && a.Metadata == nil && a.Cost == nil && a.Window == nil
}

// textOnly reports whether p is a text part with nothing else set
// (plainChunk).
func textOnly(p *a2a.Part) bool {
	return p.Kind == a2a.PartText && p.URL == "" && p.Raw == nil && p.MediaType == "" &&
		p.Filename == "" && p.Data == nil && p.MimeType == "" && !p.ToolEvent && p.ToolEventType == "" && !p.Thinking && p.Metadata == nil
}

// Next returns the next event. It returns io.EOF at the end of the stream,
// a2a.ErrStalled after a silence of the stall timeout, *a2a.RPCError for
// an error frame, and another error when the connection broke. Frames that
// do not decode are logged and skipped. After Share, an artifact event's
// Artifact is valid until the next call.
func (s *Stream) Next() (a2a.Event, error) {
	ev, err := s.next()
	if err != nil || s.watch == nil {
		return ev, err
	}
	// (Through a field of the stream: a pointer to ev would move it to
	// the heap on every call.)
	s.watched = ev
	s.watch(&s.watched)
	ev, s.watched = s.watched, a2a.Event{}
	return ev, nil
}

// next is Next before the watcher sees the event.
func (s *Stream) next() (a2a.Event, error) {
	if s.sse == nil {
		return s.nextQueued()
	}
	for {
		raw, err := s.sse.Next()
		if err != nil {
			return a2a.Event{}, s.broken(err)
		}
		if raw.RecordSeparated {
			s.departures.Saw(a2a.DepartureRecordSeparator)
		}
		if len(raw.Data) == 0 && raw.Event != "error" {
			continue
		}
		s.trace.frame("recv", s.method, raw.Data)
		lent := s.inPlace && s.sse.Lent()
		if raw.Event == "error" {
			s.decoded = true
			if lent {
				raw.Data = bytes.Clone(raw.Data)
			}
			return a2a.Event{}, s.frames.Failure(raw.Data)
		}
		var ev a2a.Event
		if !lent || !s.rep.repeated(raw.Data, &ev) {
			ev, err = s.decode(raw.Data, lent)
		}
		if err == nil {
			s.decoded = true
			s.finished.Store(lastEvent(&ev))
			if f, ok := s.frames.(FinalFrames); ok && f.Final(ev) {
				s.drain()
			}
			return ev, nil
		}
		// (Only here: the target of errors.As is allocated.)
		var de *a2a.DecodeError
		if !errors.As(err, &de) {
			s.decoded = true
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

// decode decodes the frame data. A frame the SSE reader lent (lent) is
// read in place when it is a plain chunk, and shown to the repeat
// shortcut; anything else in it (a task, a status, metadata, an error
// with its frame) is kept, so it is read from a copy of its own.
func (s *Stream) decode(data []byte, lent bool) (a2a.Event, error) {
	ev, err := s.frames.Event(data)
	switch {
	case lent && err == nil && s.plainChunk(&ev):
		s.rep.saw(data, &ev)
	case lent:
		ev, err = s.frames.Event(bytes.Clone(data))
	}
	return ev, err
}

// nextQueued gives the queued events, then those pull gives.
func (s *Stream) nextQueued() (a2a.Event, error) {
	if len(s.queue) == 0 && s.pull != nil {
		if s.closed.Load() {
			return a2a.Event{}, context.Canceled
		}
		return s.pull()
	}
	if len(s.queue) == 0 {
		return a2a.Event{}, io.EOF
	}
	ev := s.queue[0]
	s.queue = s.queue[1:]
	return ev, nil
}

// broken is the error of a stream whose reader failed with err.
func (s *Stream) broken(err error) error {
	switch {
	case s.stall.Stalled():
		return a2a.ErrStalled
	case s.closed.Load() || s.ctx.Err() != nil:
		return context.Canceled
	case errors.Is(err, io.EOF) && !s.decoded && s.notJSON != nil:
		// Nothing this stream sent was readable: say so, rather than a
		// stream that ended before the agent started.
		return &a2a.NotJSONError{Events: s.skipped, First: s.notJSON}
	case errors.Is(err, io.EOF):
		return io.EOF
	case errors.Is(err, a2a.ErrTooLarge):
		return err
	}
	return fmt.Errorf("a2a: the stream broke: %w", err)
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

// Close ends the stream and releases its connection. A stream whose last
// event ended it is read to its end first (at most drainMax, in the
// background past drainWait), so that its connection goes back to the
// pool for the next request (SPEC §19); any other is cut at once.
func (s *Stream) Close() error {
	s.closed.Store(true)
	s.stall.Stop()
	if s.body == nil {
		s.cancel()
		return nil
	}
	if !s.finished.Load() || s.parent.Err() != nil {
		s.cancel()
		return s.body.Close()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.AfterFunc(drainMax, s.cancel)
		defer t.Stop()
		_, _ = io.CopyN(io.Discard, s.body, drainBytes)
		s.cancel()
		s.body.Close()
	}()
	wait := time.NewTimer(drainWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
	}
	return nil
}

const (
	// drainWait is how long Close waits for the end of a finished
	// stream's body; drainBytes bounds what it reads of it.
	drainWait  = 500 * time.Millisecond
	drainBytes = 1 << 20
)

// lastEvent reports whether ev ends a stream by A2A's rules: a message
// answer, a status update marked final or of a terminal or interrupted
// state, a task in such a state.
func lastEvent(ev *a2a.Event) bool {
	switch ev.Kind {
	case a2a.EventMessage:
		return true
	case a2a.EventStatus:
		return ev.Final || ev.Status.State.Terminal() || ev.Status.State.Interrupted()
	case a2a.EventTask:
		return ev.Task != nil && (ev.Task.Status.State.Terminal() || ev.Task.Status.State.Interrupted())
	}
	return false
}
