package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/wire"
	"github.com/shimdev/shim/a2a/wire/request"
)

// methods are a dialect's method names; "" is a call the dialect lacks.
type methods struct {
	send, stream, get, cancel, subscribe, list, extendedCard string
	// tenant is set when the card's tenant goes into every request's
	// params.
	tenant bool
}

var dialects = map[a2a.Dialect]methods{
	a2a.V10: {send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask",
		subscribe: "SubscribeToTask", list: "ListTasks", extendedCard: "GetExtendedAgentCard", tenant: true},
	a2a.V03: {send: "message/send", stream: "message/stream", get: "tasks/get", cancel: "tasks/cancel",
		subscribe: "tasks/resubscribe", extendedCard: "agent/getAuthenticatedExtendedCard"},
}

// Binding is the JSON-RPC binding of one card's endpoint.
type Binding struct {
	conn     *binding.Conn
	endpoint string
	dialect  a2a.Dialect
	methods  methods
	tenant   string
	seq      atomic.Int64
}

var _ binding.Binding = (*Binding)(nil)

// New returns the binding of card's endpoint over conn.
func New(conn *binding.Conn, card *a2a.Card) *Binding {
	t := &Binding{conn: conn, endpoint: card.Endpoint, dialect: card.Dialect, methods: dialects[card.Dialect]}
	if t.methods.tenant {
		t.tenant = card.Tenant
	}
	return t
}

// Conn is the connection the binding's calls go over.
func (c *Binding) Conn() *binding.Conn { return c.conn }

func (c *Binding) encode(method string, params any) []byte {
	return request.RPC(c.seq.Add(1), method, params)
}

// call makes a unary JSON-RPC call with retries.
func (c *Binding) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	resp, data, err := c.conn.Call(ctx, http.MethodPost, c.endpoint, c.encode(method, params), c.dialect, method)
	if err != nil {
		return nil, err
	}
	return result(resp, c.endpoint, data)
}

// result reads a JSON-RPC answer whatever its HTTP status (errors often
// come with 200 or 500), and anything else as an HTTP error.
func result(resp *http.Response, target string, data []byte) (json.RawMessage, error) {
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, &a2a.HTTPError{StatusCode: resp.StatusCode, URL: target}
	}
	res, err := wire.DecodeResponse(data)
	var de *a2a.DecodeError
	if errors.As(err, &de) || (err == nil && resp.StatusCode/100 != 2) {
		return nil, binding.HTTPError(resp.StatusCode, target, resp.Header.Get("Content-Type"), data)
	}
	return res, err
}

// params adds the card's tenant to a request's params.
func (c *Binding) params(p map[string]any) map[string]any {
	if c.tenant != "" {
		p["tenant"] = c.tenant
	}
	return p
}

// GetTask implements binding.Binding.
func (c *Binding) GetTask(ctx context.Context, id string, historyLength int) (*a2a.Task, error) {
	p := map[string]any{"id": id}
	if n, ok := request.HistoryLength(c.dialect, historyLength); ok {
		p["historyLength"] = n
	}
	raw, err := c.call(ctx, c.methods.get, c.params(p))
	if err != nil {
		return nil, err
	}
	return wire.DecodeTask(raw)
}

// CancelTask implements binding.Binding.
func (c *Binding) CancelTask(ctx context.Context, id string) error {
	_, err := c.call(ctx, c.methods.cancel, c.params(map[string]any{"id": id}))
	return err
}

// ListTasks implements binding.Binding (1.0 only: 0.3 has no
// listing).
func (c *Binding) ListTasks(ctx context.Context, q binding.TaskQuery) (binding.TaskPage, error) {
	if c.methods.list == "" {
		return binding.TaskPage{}, a2a.ErrUnsupported
	}
	p := map[string]any{"contextId": q.ContextID, "pageSize": 100, "includeArtifacts": true}
	if n, ok := request.HistoryLength(c.dialect, q.HistoryLength); ok {
		p["historyLength"] = n
	}
	if q.PageToken != "" {
		p["pageToken"] = q.PageToken
	}
	raw, err := c.call(ctx, c.methods.list, c.params(p))
	if err != nil {
		return binding.TaskPage{}, err
	}
	tasks, next, err := wire.DecodeTaskPage(raw)
	return binding.TaskPage{Tasks: tasks, Next: next}, err
}

// SendStreaming implements binding.Binding.
func (c *Binding) SendStreaming(ctx context.Context, m a2a.OutMessage) (*binding.Stream, error) {
	return c.OpenStream(ctx, c.methods.stream, c.params(map[string]any{"message": request.Message(c.dialect, m)}), &Frames{})
}

// Send implements binding.Binding.
func (c *Binding) Send(ctx context.Context, m a2a.OutMessage, immediate bool) (*binding.Stream, error) {
	p := map[string]any{"message": request.Message(c.dialect, m)}
	if immediate {
		p["configuration"] = request.SendConfiguration(c.dialect)
	}
	return c.OpenStream(ctx, c.methods.send, c.params(p), &Frames{})
}

// ExtendedCard implements binding.Binding.
func (c *Binding) ExtendedCard(ctx context.Context) ([]byte, error) {
	return c.call(ctx, c.methods.extendedCard, c.params(map[string]any{}))
}

// Subscribe implements binding.Binding.
func (c *Binding) Subscribe(ctx context.Context, taskID string) (*binding.Stream, error) {
	return c.OpenStream(ctx, c.methods.subscribe, c.params(map[string]any{"id": taskID}), &Frames{})
}

// OpenStream posts a request whose answer is an SSE stream of JSON-RPC
// responses read by frames, or one JSON-RPC response in a plain body (a
// blocking send's result, or an error).
func (c *Binding) OpenStream(ctx context.Context, method string, params any, frames binding.Frames) (*binding.Stream, error) {
	req := binding.Request{Method: http.MethodPost, Target: c.endpoint, Body: c.encode(method, params), Dialect: c.dialect, Name: method}
	return c.conn.Open(ctx, req, frames, func(resp *http.Response, data []byte) ([]a2a.Event, error) {
		res, err := result(resp, c.endpoint, data)
		if err != nil {
			return nil, err
		}
		return wire.DecodeSendResult(res)
	})
}

// Frames reads one stream's JSON-RPC frames: each is a JSON-RPC response.
type Frames struct {
	dec wire.Decoder
}

// Event implements binding.Frames.
func (f *Frames) Event(data []byte) (a2a.Event, error) { return f.dec.Frame(data) }

var _ binding.SharedFrames = (*Frames)(nil)

// Share implements binding.SharedFrames.
func (f *Frames) Share() { f.dec.Share() }

var _ binding.InPlaceFrames = (*Frames)(nil)

// KeepsNothing implements binding.InPlaceFrames: a frame is decoded by
// the stream's Decoder, which keeps nothing of it.
func (*Frames) KeepsNothing() {}

// Failure implements binding.Frames.
func (*Frames) Failure(data []byte) error { return wire.ErrorFrame(data) }
