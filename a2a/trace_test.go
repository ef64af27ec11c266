package a2a

import (
	"context"
	"net/http"
	"testing"
)

// TestTraceHeaders: a valid traceparent (and its tracestate) on a call's
// context become its headers, as W3C Trace Context writes them; an
// invalid or absent traceparent gives none (a tracestate alone is no
// trace); a context without a trace adds nothing.
func TestTraceHeaders(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, tc := range []struct {
		name, parent, state string
		wantParent, wantSt  string
	}{
		{"both", tp, "congo=t61rcWkgMzE", tp, "congo=t61rcWkgMzE"},
		{"parent only", tp, "", tp, ""},
		{"not sampled", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", ""},
		{"state alone", "", "congo=t61rcWkgMzE", "", ""},
		{"invalid parent", "00-nothex-00f067aa0ba902b7-01", "congo=t61rcWkgMzE", "", ""},
		{"all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", "", ""},
		{"a header injected", tp + "\r\nX-Evil: 1", "", "", ""},
		{"none", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			SetTraceHeaders(WithTrace(context.Background(), tc.parent, tc.state), h)
			if got := h.Get("traceparent"); got != tc.wantParent {
				t.Errorf("traceparent %q, want %q", got, tc.wantParent)
			}
			if got := h.Get("tracestate"); got != tc.wantSt {
				t.Errorf("tracestate %q, want %q", got, tc.wantSt)
			}
			if len(h) > 2 || h.Get("X-Evil") != "" {
				t.Errorf("headers %v", h)
			}
		})
	}
}

// TestReporter: Tell reaches the Reporter of the context, and nothing
// without one.
func TestReporter(t *testing.T) {
	var got []Report
	ctx := WithReporter(context.Background(), func(r Report) { got = append(got, r) })
	Tell(ctx, Report{Kind: ReportTokenRenewed})
	Tell(context.Background(), Report{Kind: ReportRenewalRefused})
	if len(got) != 1 || got[0].Kind != ReportTokenRenewed {
		t.Errorf("reported %v", got)
	}
	if WithReporter(ctx, nil) != ctx {
		t.Error("a nil Reporter changed the context")
	}
}
