package a2a

import "context"

// What the client does on its own in a call that the person may want to
// hear of (SPEC §14's notices): an OAuth token renewed, or its renewal
// refused. The caller that wants to hear of it puts a Reporter on the
// call's context; the layer that does it reports.

// Report is one thing the client did on its own.
type Report struct {
	Kind ReportKind
	// Detail says more: why a renewal was refused (no secret in it).
	Detail string
}

// ReportKind is what a Report is about.
type ReportKind uint8

// What is reported.
const (
	ReportTokenRenewed ReportKind = iota + 1
	ReportRenewalRefused
)

// A Reporter hears of what the client does on its own in a call. It runs
// on the goroutine making the call and must not wait on it.
type Reporter func(Report)

type reporterKey struct{}

// WithReporter returns ctx whose calls tell r what the client does on its
// own.
func WithReporter(ctx context.Context, r Reporter) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, reporterKey{}, r)
}

// Tell reports rep to the Reporter ctx carries, if any.
func Tell(ctx context.Context, rep Report) {
	if r, ok := ctx.Value(reporterKey{}).(Reporter); ok {
		r(rep)
	}
}
