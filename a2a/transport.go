package a2a

import "context"

// transport is one protocol binding: how the calls reach the agent and how
// their answers are read back into the event model. The client picks one
// per card and delegates every call to it; jsonrpcTransport (both dialects)
// and restTransport (HTTP+JSON) are the bindings. Nothing in it names a method or an envelope:
// those are the binding's own.
type transport interface {
	// SendStreaming sends a message and returns the stream of its events.
	SendStreaming(ctx context.Context, m OutMessage) (*Stream, error)
	// Send sends a message in one blocking call and returns its result
	// (a task or a message) as the events a stream would have carried.
	// immediate asks the server to answer once the task exists
	// (returnImmediately; 0.3 blocking: false).
	Send(ctx context.Context, m OutMessage, immediate bool) (*Stream, error)
	// Subscribe reattaches to a live task's stream.
	Subscribe(ctx context.Context, taskID string) (*Stream, error)
	// GetTask reads a task back with at most historyLength messages of
	// its history (HistoryAll: the whole history, historyParam).
	GetTask(ctx context.Context, id string, historyLength int) (*Task, error)
	// CancelTask asks the server to cancel a task.
	CancelTask(ctx context.Context, id string) error
	// ListTasks reads one page of a context's tasks, artifacts included;
	// ErrUnsupported when the server's protocol version has no listing.
	ListTasks(ctx context.Context, q taskQuery) (taskPage, error)
	// ExtendedCard reads the extended agent card (SPEC §12.2).
	ExtendedCard(ctx context.Context) ([]byte, error)
}

// taskQuery asks for one page of a context's tasks.
type taskQuery struct {
	ContextID string
	// HistoryLength bounds each task's history (HistoryAll: no bound).
	HistoryLength int
	// PageToken is the previous page's Next; empty for the first page.
	PageToken string
}

// HistoryAll asks GetTask and ListTasks for a task's whole history.
const HistoryAll = -1

// history03Max is the historyLength a 0.3 request for the whole history
// sends. A2A 1.0 reads an unset historyLength as no limit, but 0.3 says
// nothing, and servers differ: the @a2a-js/sdk 0.3 server (Google ADK for
// TypeScript's) answers with no history at all. 1,000 messages keep the
// 100 tasks one session/load may read (SPEC §13) within a long thread's
// reach while bounding what one answer asks the server for.
const history03Max = 1000

// historyParam is the historyLength a request of dialect d sends for n,
// and whether it sends one: n itself when n >= 0; for HistoryAll none in
// 1.0 (unset means no limit there), history03Max in 0.3.
func historyParam(d Dialect, n int) (int, bool) {
	switch {
	case n >= 0:
		return n, true
	case d == V10:
		return 0, false
	}
	return history03Max, true
}

// taskPage is one page of a listing.
type taskPage struct {
	Tasks []Task
	// Next is the token of the next page; empty on the last one.
	Next string
}
