package stdio

import (
	"context"
	"errors"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/encode"
)

// shim's own calls to the client (elicitation/create, request_permission)
// and its notifications other than session/update.

// Outgoing is one of shim's requests to the client, until it is answered
// or withdrawn.
type Outgoing struct {
	c    *Conn
	id   acp.ID
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
	id := acp.ID{Num: c.callID.Add(1)}
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
		if err := o.c.NotifyClient(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: o.id}); err != nil {
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
	return c.s.out.appendLine(func(b []byte) ([]byte, error) { return encode.AppendNotification(b, method, params) })
}
