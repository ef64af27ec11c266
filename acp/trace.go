package acp

import (
	"context"
	"encoding/json"
)

// W3C Trace Context on requests (SPEC §14): ACP reserves
// _meta.traceparent and _meta.tracestate for it. acp reads them off every
// request's params as they decode and hands them on in the context the
// request is served with (TraceOf); what they become further on is the
// caller's.

// Trace is the trace context a request carried; the zero Trace is none.
type Trace struct {
	Parent string // _meta.traceparent
	State  string // _meta.tracestate
}

// RequestMeta is the _meta of a request's params, as far as shim reads
// it: the trace context. A _meta of any other shape reads as none, and
// nothing else of it is kept.
type RequestMeta struct {
	Meta traceMeta `json:"_meta"`
}

func (m *RequestMeta) trace() Trace { return m.Meta.Trace }

// traceMeta decodes the trace context out of a _meta, never failing.
type traceMeta struct{ Trace }

func (t *traceMeta) UnmarshalJSON(b []byte) error {
	var m struct {
		Parent json.RawMessage `json:"traceparent"`
		State  json.RawMessage `json:"tracestate"`
	}
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	t.Parent, t.State = jsonString(m.Parent), jsonString(m.State)
	return nil
}

// jsonString is a JSON string's value, "" for anything else.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// traced is params that carry a _meta.
type traced interface{ trace() Trace }

type traceKey struct{}

// withTrace returns ctx carrying the request's trace context.
func withTrace(ctx context.Context, p any) context.Context {
	tp, ok := p.(traced)
	if !ok {
		return ctx
	}
	t := tp.trace()
	if t == (Trace{}) {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, t)
}

// TraceOf is the trace context of the request ctx serves (the zero Trace
// when it carried none).
func TraceOf(ctx context.Context) Trace {
	t, _ := ctx.Value(traceKey{}).(Trace)
	return t
}
