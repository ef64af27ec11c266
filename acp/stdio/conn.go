package stdio

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/encode"
)

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

// Start reads requests and hands them to h (acp.Handler) until the input
// ends.
func (c *Conn) Start(ctx context.Context, h acp.Handler) {
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
func (c *Conn) Reply(req *acp.Request, result any, e *acp.Error) error {
	if req.Notif {
		return nil
	}
	if c.running.end(req) && e != nil {
		e = acp.Cancelled()
	}
	var b []byte
	var err error
	if e != nil {
		b, err = json.Marshal(&jsonrpc2.Response{ID: req.ID, Error: e})
	} else {
		b, err = encode.ResultLine(req.ID, result)
	}
	if err != nil {
		return err
	}
	return c.s.out.post(b, false)
}

// Send queues one session/update without waiting; a caller that holds a
// lock sends, lets go, then calls Pace.
func (c *Conn) Send(sessionID string, u acp.Update) error {
	return c.s.out.appendUpdate(sessionID, u)
}

// Pace waits while the queue is full (the editor reads slowly).
func (c *Conn) Pace() error { return c.s.out.waitRoom() }

// Notify sends one session/update and waits for room.
func (c *Conn) Notify(sessionID string, u acp.Update) error {
	if err := c.Send(sessionID, u); err != nil {
		return err
	}
	return c.Pace()
}

// cancelRequest serves $/cancel_request from the client (on the reading
// goroutine): the request it names, if it still runs, has its context
// ended. Params that do not name a request are ignored, as an unknown id
// is.
func (c *Conn) cancelRequest(req *acp.Request) {
	var p struct {
		RequestID *json.RawMessage `json:"requestId"`
	}
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, &p)
	}
	var id acp.ID
	if p.RequestID == nil || json.Unmarshal(*p.RequestID, &id) != nil || string(*p.RequestID) == "null" {
		c.log.Debug("$/cancel_request names no request; ignored")
	} else {
		c.log.Debug("the client cancelled a request", "id", id.String())
		c.running.cancel(id)
	}
	if !req.Notif {
		// A notification; sent by mistake as a request, it gets null.
		_ = c.Reply(req, nil, nil)
	}
}

// dispatch hands one request or notification to h (on the reading
// goroutine). The request's params are taken off it and decoded by its
// route: a big prompt's JSON is not kept while its turn runs.
func (c *Conn) dispatch(ctx context.Context, h acp.Handler, req *acp.Request) {
	if req.Method == acp.MethodCancelRequest {
		c.cancelRequest(req)
		return
	}
	r, ok := acp.RouteOf(req.Method)
	if !ok {
		if req.Notif {
			c.log.Debug("ignoring notification", "method", req.Method)
			return
		}
		c.Refuse(req, acp.MethodNotFound(req.Method))
		return
	}
	params := req.Params
	req.Params = nil
	if !req.Notif {
		// The request's own context: ended when the client cancels it
		// ($/cancel_request) or when it is answered.
		ctx = c.running.begin(ctx, req)
	}
	r.Deliver(ctx, h, c, req, params)
}

// Refuse answers a request turned down before its handler saw it (an
// unknown method, params the method cannot take).
func (c *Conn) Refuse(req *acp.Request, e *acp.Error) {
	c.log.Debug("request refused", "method", req.Method, "code", e.Code, "err", e.Message)
	if err := c.Reply(req, nil, e); err != nil {
		c.log.Debug("reply failed", "err", err)
	}
}
