package a2a

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// W3C Trace Context (SPEC §14): the traceparent and tracestate of the
// editor's request ride the context of every A2A request it causes, and
// go out as the headers of the same names. OpenTelemetry's propagator
// parses and writes them: a traceparent that is not valid is none, and
// so is its tracestate.

var traceContext = propagation.TraceContext{}

// WithTrace returns ctx carrying the trace context traceparent and
// tracestate (as an editor's request gave them); ctx as it is when they
// are empty or the traceparent is not valid.
func WithTrace(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return traceContext.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent, "tracestate": tracestate})
}

// SetTraceHeaders puts the trace context ctx carries (WithTrace) on h as
// the traceparent and tracestate headers; nothing when it carries none.
func SetTraceHeaders(ctx context.Context, h http.Header) {
	traceContext.Inject(ctx, propagation.HeaderCarrier(h))
}
