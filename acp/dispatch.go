package acp

import (
	"context"
	"encoding/json"
)

// Handler serves what the client sends, one interface per family of
// methods. The connection (acp/stdio) calls it on the reading goroutine, in arrival order, with
// each request's params decoded once into their type; no method may wait:
// each decides where its call runs (at once, on a goroutine of its own, or
// behind the earlier work of a session). The *Request is the handle to
// answer with (the connection's Reply); its Params are gone by then.
//
// What acp answers itself: an unknown method -32601 (an unknown
// notification, "$/…" and "_…" ones included, is ignored), and params that
// do not decode as the method needs -32602. A session's call is refused
// when it is served (SessionCall.Serve), so that its answer keeps its
// place among that session's. $/cancel_request is the connection's own:
// the ctx each request's method is given ends when the client cancels
// the request (RequestCancelled then reports it) or once it is answered.
type Handler interface {
	Lifecycle
	Sessions
	// Session gets every call about one session (prompt, cancel, load,
	// resume, close, delete, set_mode, set_model, set_config_option,
	// _session/steering) and runs it with c.Serve where it decides; ctx
	// is the call's (TraceOf reads its trace context).
	Session(ctx context.Context, c SessionCall)
}

// Lifecycle is the connection's own methods: initialize, authenticate
// and logout.
type Lifecycle interface {
	Initialize(ctx context.Context, req *Request, p *InitializeParams)
	Authenticate(ctx context.Context, req *Request, p *AuthenticateParams)
	Logout(ctx context.Context, req *Request)
}

// Sessions is the methods that make or list sessions: session/new and
// session/list.
type Sessions interface {
	NewSession(ctx context.Context, req *Request, p *NewSessionParams)
	ListSessions(ctx context.Context, req *Request, p *ListParams)
}

// SessionWork is the calls about one session, run by SessionCall.Serve.
type SessionWork interface {
	Prompt(req *Request, p *PromptParams)
	// Cancel is a notification; sent as a request, it is answered too.
	Cancel(req *Request, p *SessionParams)
	Load(req *Request, p *SessionParams)
	Resume(req *Request, p *SessionParams)
	Close(req *Request, p *SessionParams)
	Delete(req *Request, p *SessionParams)
	SetMode(req *Request, p *SetModeParams)
	// SetModel is session/set_model, which older clients still send (not
	// in the v1 schema).
	SetModel(req *Request, p *SetModelParams)
	SetConfigOption(req *Request, p *SetConfigOptionParams)
	Steer(req *Request, p *SteeringParams)
}

// SessionCall is one call about one session, its params decoded.
type SessionCall struct {
	// SessionID is the session its params name ("" when none).
	SessionID string
	serve     func(SessionWork)
}

// Serve runs the call: w's method for it, or the answer -32602 when its
// params were refused.
func (c SessionCall) Serve(w SessionWork) { c.serve(w) }

// byMethod is every method the client may send, by name. Adding one is a
// line here, its params type, and a method on its family's interface.
var byMethod = map[string]Route{
	MethodInitialize:   handlerCall(wellFormed, Handler.Initialize),
	MethodAuthenticate: handlerCall(anyParams, Handler.Authenticate),
	MethodLogout: handlerCall(anyParams, func(h Handler, ctx context.Context, req *Request, _ *RequestMeta) {
		h.Logout(ctx, req)
	}),

	MethodSessionNew:  handlerCall(needs("session/new needs {cwd, mcpServers}"), Handler.NewSession),
	MethodSessionList: handlerCall(anyParams, Handler.ListSessions),

	MethodSessionPrompt:          sessionCall(needs("session/prompt needs {sessionId, prompt}"), SessionWork.Prompt),
	MethodSessionCancel:          sessionCall(anyParams, SessionWork.Cancel),
	MethodSessionLoad:            sessionCall(anyParams, SessionWork.Load),
	MethodSessionResume:          sessionCall(anyParams, SessionWork.Resume),
	MethodSessionClose:           sessionCall(anyParams, SessionWork.Close),
	MethodSessionDelete:          sessionCall(anyParams, SessionWork.Delete),
	MethodSessionSetMode:         sessionCall(needs("session/set_mode needs {sessionId, modeId}"), SessionWork.SetMode),
	MethodSessionSetModel:        sessionCall(needs("session/set_model needs {sessionId, modelId}"), SessionWork.SetModel),
	MethodSessionSetConfigOption: sessionCall(needs("session/set_config_option needs {sessionId, configId, value}"), SessionWork.SetConfigOption),
	MethodSessionSteering:        sessionCall(needs("_session/steering needs {sessionId, prompt}"), SessionWork.Steer),
}

// Route takes one request to its handler (RouteOf).
type Route struct{ deliver func(d delivery) }

// RouteOf is the route of a method the client may send; false for any
// other (the connection answers it -32601, or ignores a notification).
func RouteOf(method string) (Route, bool) {
	r, ok := byMethod[method]
	return r, ok
}

// Refuser answers a request acp turns down itself (params the method
// cannot take): the connection the request came on.
type Refuser interface {
	Refuse(req *Request, e *Error)
}

// Deliver hands req to h, its params (taken off req by the caller, so that
// a big prompt's JSON is not kept while its turn runs) decoded into the
// method's type; a refusal goes to r. ctx is the request's own.
func (rt Route) Deliver(ctx context.Context, h Handler, r Refuser, req *Request, params *json.RawMessage) {
	rt.deliver(delivery{ctx: ctx, h: h, r: r, req: req, params: params})
}

// delivery is one request on its way.
type delivery struct {
	ctx    context.Context
	h      Handler
	r      Refuser
	req    *Request
	params *json.RawMessage
}

// handlerCall is the route of a method the Handler serves itself; it gets
// the context of its request (with the request's trace context).
func handlerCall[P any](rule paramsRule, serve func(Handler, context.Context, *Request, *P)) Route {
	return Route{func(d delivery) {
		p, refused := decodeParams[P](d.params, rule)
		if refused != nil {
			d.r.Refuse(d.req, refused)
			return
		}
		serve(d.h, withTrace(d.ctx, p), d.req, p)
	}}
}

// sessionParams is the params of a call about one session.
type sessionParams[P any] interface {
	*P
	session() string
}

// sessionCall is the route of a call about one session: the Handler gets
// it with the session's id, and serves it (or its refusal) where it
// decides.
func sessionCall[P any, PP sessionParams[P]](rule paramsRule, serve func(SessionWork, *Request, *P)) Route {
	return Route{func(d delivery) {
		p, refused := decodeParams[P](d.params, rule)
		req := d.req
		ctx := withTrace(d.ctx, p)
		d.h.Session(ctx, SessionCall{
			// A refused decode still names the session it went as far as
			// (encoding/json goes on past a field of the wrong type).
			SessionID: PP(p).session(),
			serve: func(w SessionWork) {
				if refused != nil {
					d.r.Refuse(req, refused)
					return
				}
				serve(w, req, p)
			},
		})
	}}
}

// paramsRule is what a method needs of its params.
type paramsRule struct {
	// needs, when set, says what the params must hold: params that are
	// absent or do not decode are refused with it.
	needs string
	// wellFormed: absent params are fine; params that do not decode are
	// refused with the decoder's error.
	wellFormed bool
}

var (
	// anyParams: the params are read as far as they decode; absent ones
	// are a zero value.
	anyParams = paramsRule{}
	// wellFormed: absent params are a zero value, others must decode.
	wellFormed = paramsRule{wellFormed: true}
)

// needs is the rule of params that must be there and decode.
func needs(what string) paramsRule { return paramsRule{needs: what} }

// decodeParams decodes raw into a new P by rule; refused is the answer
// when the rule turns the params down (p then holds what did decode).
func decodeParams[P any](raw *json.RawMessage, rule paramsRule) (p *P, refused *Error) {
	p = new(P)
	if raw == nil {
		if rule.needs != "" {
			return p, InvalidParams(rule.needs)
		}
		return p, nil
	}
	err := json.Unmarshal(*raw, p)
	switch {
	case err == nil || rule == anyParams:
		return p, nil
	case rule.needs != "":
		return p, InvalidParams(rule.needs)
	}
	return p, InvalidParams(err.Error())
}
