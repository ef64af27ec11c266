package acp

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Request is a request or a notification from the client.
type Request = jsonrpc2.Request

// ID is a request id.
type ID = jsonrpc2.ID

// Conn is the ACP connection on stdio, and the only way to the editor:
// replies, calls to the client and notifications all go through its one
// queue, in the order they are posted.
type Conn struct {
	s      *stream
	rpc    atomic.Pointer[jsonrpc2.Conn]
	callID atomic.Uint64 // the last id of shim's own calls to the client
	done   <-chan struct{}
	log    *slog.Logger
	// running is the client's requests not answered yet (cancel.go).
	running inflight
}

// NewConn returns a connection on in and out; Start starts reading.
func NewConn(in io.Reader, out io.Writer, logger *slog.Logger) *Conn {
	return newConn(in, out, logger, lineMaxBytes)
}

// newConn is NewConn serving stdin lines of at most lineMax bytes.
func newConn(in io.Reader, out io.Writer, logger *slog.Logger, lineMax int) *Conn {
	return &Conn{s: newStream(in, out, logger, lineMax), log: logger}
}

// Start reads requests and hands them to h (dispatch.go) until the input
// ends.
func (c *Conn) Start(ctx context.Context, h Handler) {
	rpc := jsonrpc2.NewConn(ctx, c.s, c.s.handler(handlerFunc(func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
		c.rpc.CompareAndSwap(nil, conn)
		c.dispatch(ctx, h, req)
	})), jsonrpc2.SetLogger(log.New(slogWriter{c.log}, "", 0)))
	c.rpc.CompareAndSwap(nil, rpc)
	c.done = rpc.DisconnectNotify()
}

type handlerFunc func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request)

func (f handlerFunc) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	f(ctx, conn, req)
}

// slogWriter routes jsonrpc2's log lines to slog.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Debug(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Done is closed when the input ended (the editor is gone); Start must
// have been called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close stops the connection; what is still queued is dropped.
func (c *Conn) Close() error {
	if rpc := c.rpc.Load(); rpc != nil {
		return rpc.Close()
	}
	return c.s.Close()
}

// Reply answers a request (a notification gets nothing): the result, or
// the error when e is not nil. A reply never waits for room in the queue.
// A request the client cancelled ($/cancel_request) that fails answers
// -32800 "request cancelled", whatever the failure.
func (c *Conn) Reply(req *Request, result any, e *Error) error {
	if req.Notif {
		return nil
	}
	if c.running.end(req) && e != nil {
		e = Cancelled()
	}
	var b []byte
	var err error
	if e != nil {
		b, err = json.Marshal(&jsonrpc2.Response{ID: req.ID, Error: e})
	} else {
		b, err = resultLine(req.ID, result)
	}
	if err != nil {
		return err
	}
	return c.s.out.post(b, false)
}

// jsonAppender is a result that writes its own JSON.
type jsonAppender interface{ appendJSON(b []byte) []byte }

// resultLine is the answer of a request that succeeded, byte for byte as
// jsonrpc2.Response marshals it ({"id":…,"result":…,"jsonrpc":"2.0"}),
// without a second pass of the encoder over the result (its JSON is
// already compact and escaped) or the envelope's reflection at a start.
// A result that writes itself (initialize's) is written as acp writes its
// lines, without escaping <, > and &.
func resultLine(id jsonrpc2.ID, result any) ([]byte, error) {
	var res []byte
	if a, ok := result.(jsonAppender); ok {
		res = a.appendJSON(nil)
	} else {
		var err error
		if res, err = json.Marshal(result); err != nil {
			return nil, err
		}
	}
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	const head, mid, tail = `{"id":`, `,"result":`, `,"jsonrpc":"2.0"}`
	b := make([]byte, 0, len(head)+len(idJSON)+len(mid)+len(res)+len(tail))
	b = append(append(append(append(append(b, head...), idJSON...), mid...), res...), tail...)
	return b, nil
}

// Send queues one session/update without waiting; a caller that holds a
// lock sends, lets go, then calls Pace.
func (c *Conn) Send(sessionID string, u Update) error {
	if update, id, text, ok := textChunk(u); ok {
		return c.s.out.appendChunk(sessionID, update, id, text)
	}
	if tc, ok := plainToolCall(u); ok {
		if done, err := c.s.out.appendToolCall(sessionID, tc); done {
			return err
		}
	}
	var sp spiller
	u = sp.spill(u)
	return c.s.out.appendNotification(MethodSessionUpdate, SessionNotification{SessionID: sessionID, Update: u}, sp.fields)
}

// Pace waits while the queue is full (the editor reads slowly).
func (c *Conn) Pace() error { return c.s.out.waitRoom() }

// Notify sends one session/update and waits for room.
func (c *Conn) Notify(sessionID string, u Update) error {
	if err := c.Send(sessionID, u); err != nil {
		return err
	}
	return c.Pace()
}
