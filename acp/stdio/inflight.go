package stdio

// Request cancellation ($/cancel_request, SPEC §14), both ways. Each
// request the client sends runs under a context of its own, ended with
// errRequestCancelled when the client cancels it, with errAnswered once it
// is answered; a request cancelled before its answer that answers with an
// error answers -32800 "request cancelled". Each of shim's own calls to
// the client can be withdrawn (calls.go): the client is sent
// $/cancel_request for it, so that it closes the dialog the call opened.

import (
	"context"
	"errors"
	"sync"

	"github.com/shimdev/shim/acp"
)

// errRequestCancelled is the cause of a request's context when the
// client cancelled the request.
var errRequestCancelled = errors.New("the client cancelled the request")

// errAnswered is the cause of a request's context once it was answered.
var errAnswered = errors.New("the request was answered")

// RequestCancelled reports whether ctx is the context of a request the
// client cancelled ($/cancel_request).
func RequestCancelled(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errRequestCancelled)
}

// idKey is a request id as a map key (a number and a string of the same
// digits are different ids).
type idKey struct {
	str   bool
	num   uint64
	text  string
	valid bool
}

func keyOf(id acp.ID) idKey {
	if id.IsString {
		return idKey{str: true, text: id.Str, valid: true}
	}
	return idKey{num: id.Num, valid: true}
}

// running is a request of the client's that is not answered yet.
type running struct {
	req    *acp.Request
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
func (f *inflight) begin(ctx context.Context, req *acp.Request) context.Context {
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
func (f *inflight) end(req *acp.Request) (cancelled bool) {
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
func (f *inflight) cancel(id acp.ID) {
	f.mu.Lock()
	list := append([]running(nil), f.reqs[keyOf(id)]...)
	f.mu.Unlock()
	for _, r := range list {
		r.cancel(errRequestCancelled)
	}
}
