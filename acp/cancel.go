package acp

// Request cancellation ($/cancel_request, SPEC §14), both ways. Each
// request the client sends runs under a context of its own, ended with
// ErrRequestCancelled when the client cancels it and when it is answered
// otherwise; a request cancelled before its answer that answers with an
// error answers -32800 "request cancelled". Each of shim's own calls to
// the client can be withdrawn: the client is sent $/cancel_request for it,
// so that it closes the dialog the call opened.

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// MethodCancelRequest cancels a request of either side.
const MethodCancelRequest = "$/cancel_request"

// CancelRequestParams is $/cancel_request's params.
type CancelRequestParams struct {
	RequestID ID `json:"requestId"`
}

// ErrRequestCancelled is the cause of a request's context when the
// client cancelled the request.
var ErrRequestCancelled = errors.New("the client cancelled the request")

// errAnswered is the cause of a request's context once it was answered.
var errAnswered = errors.New("the request was answered")

// RequestCancelled reports whether ctx is the context of a request the
// client cancelled ($/cancel_request).
func RequestCancelled(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrRequestCancelled)
}

// idKey is a request id as a map key (a number and a string of the same
// digits are different ids).
type idKey struct {
	str   bool
	num   uint64
	text  string
	valid bool
}

func keyOf(id ID) idKey {
	if id.IsString {
		return idKey{str: true, text: id.Str, valid: true}
	}
	return idKey{num: id.Num, valid: true}
}

// running is a request of the client's that is not answered yet.
type running struct {
	req    *Request
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// inflight is the client's requests not answered yet, by id (a client
// that reuses an id while the first is running has both under it).
type inflight struct {
	mu   sync.Mutex
	reqs map[idKey][]running
}

// begin gives a request its own context, until it is answered.
func (f *inflight) begin(ctx context.Context, req *Request) context.Context {
	ctx, cancel := context.WithCancelCause(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reqs == nil {
		f.reqs = map[idKey][]running{}
	}
	k := keyOf(req.ID)
	f.reqs[k] = append(f.reqs[k], running{req: req, ctx: ctx, cancel: cancel})
	return ctx
}

// end forgets an answered request and ends its context; cancelled reports
// that the client had cancelled it.
func (f *inflight) end(req *Request) (cancelled bool) {
	f.mu.Lock()
	k := keyOf(req.ID)
	list := f.reqs[k]
	var r running
	for i := range list {
		if list[i].req == req {
			r = list[i]
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(f.reqs, k)
	} else {
		f.reqs[k] = list
	}
	f.mu.Unlock()
	if r.cancel == nil {
		return false
	}
	r.cancel(errAnswered) // a no-op when the client cancelled it first
	return RequestCancelled(r.ctx)
}

// cancel ends the context of the running requests with the id; an
// unknown or answered id changes nothing.
func (f *inflight) cancel(id ID) {
	f.mu.Lock()
	list := append([]running(nil), f.reqs[keyOf(id)]...)
	f.mu.Unlock()
	for _, r := range list {
		r.cancel(ErrRequestCancelled)
	}
}

// cancelRequest serves $/cancel_request from the client (on the reading
// goroutine): the request it names, if it still runs, has its context
// ended. Params that do not name a request are ignored, as an unknown id
// is.
func (c *Conn) cancelRequest(req *Request) {
	var p struct {
		RequestID *json.RawMessage `json:"requestId"`
	}
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, &p)
	}
	var id ID
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

// Outgoing is one of shim's requests to the client, until it is answered
// or withdrawn.
type Outgoing struct {
	c    *Conn
	id   ID
	w    jsonrpc2.Waiter
	once sync.Once
}

// Ask sends a request to the client without waiting for its answer.
// Ids are shim's own, counted from 1: jsonrpc2.Conn numbers from 0, and
// some clients take id 0 for a missing id.
func (c *Conn) Ask(method string, params any) (*Outgoing, error) {
	rpc := c.rpc.Load()
	if rpc == nil {
		return nil, jsonrpc2.ErrClosed
	}
	id := ID{Num: c.callID.Add(1)}
	w, err := rpc.DispatchCall(context.Background(), method, params, jsonrpc2.PickID(id))
	if err != nil {
		return nil, err
	}
	return &Outgoing{c: c, id: id, w: w}, nil
}

// Wait waits for the client's answer and decodes it into result. When
// ctx ends first, the request is withdrawn and ctx's error returned.
func (o *Outgoing) Wait(ctx context.Context, result any) error {
	err := o.w.Wait(ctx, result)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		o.Withdraw()
	}
	return err
}

// Withdraw tells the client shim no longer needs the request
// ($/cancel_request), so that it closes what the request opened; once,
// whatever the request's state (the client ignores an id it answered).
func (o *Outgoing) Withdraw() {
	o.once.Do(func() {
		o.c.log.Debug("withdrawing a request to the client", "id", o.id.String())
		if err := o.c.NotifyClient(MethodCancelRequest, CancelRequestParams{RequestID: o.id}); err != nil {
			o.c.log.Debug("$/cancel_request not sent", "err", err)
		}
	})
}

// Call sends a request to the client and waits for its answer; when ctx
// ends first, the request is withdrawn ($/cancel_request) and ctx's error
// returned.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	o, err := c.Ask(method, params)
	if err != nil {
		return err
	}
	return o.Wait(ctx, result)
}

// NotifyClient sends a notification other than session/update (such as
// elicitation/complete) without waiting for room.
func (c *Conn) NotifyClient(method string, params any) error {
	return c.s.out.appendNotification(method, params, nil)
}
