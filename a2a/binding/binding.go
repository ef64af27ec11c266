package binding

import (
	"context"

	"github.com/shimdev/shim/a2a"
)

// Binding is one protocol binding: how the calls reach the agent and how
// their answers are read back into the event model. The client picks one
// per card and delegates every call to it; package jsonrpc (both
// dialects), package rest (HTTP+JSON) and package gemini (Gemini CLI's
// profile of JSON-RPC) are the bindings. Nothing in it names a method or
// an envelope: those are the binding's own.
type Binding interface {
	// SendStreaming sends a message and returns the stream of its events.
	SendStreaming(ctx context.Context, m a2a.OutMessage) (*Stream, error)
	// Send sends a message in one blocking call and returns its result
	// (a task or a message) as the events a stream would have carried.
	// immediate asks the server to answer once the task exists
	// (returnImmediately; 0.3 blocking: false).
	Send(ctx context.Context, m a2a.OutMessage, immediate bool) (*Stream, error)
	// Subscribe reattaches to a live task's stream.
	Subscribe(ctx context.Context, taskID string) (*Stream, error)
	// GetTask reads a task back with at most historyLength messages of
	// its history (a2a.HistoryAll: the whole history, as the dialect
	// spells it: request.HistoryLength).
	GetTask(ctx context.Context, id string, historyLength int) (*a2a.Task, error)
	// CancelTask asks the server to cancel a task.
	CancelTask(ctx context.Context, id string) error
	// ListTasks reads one page of a context's tasks, artifacts included;
	// ErrUnsupported when the server's protocol version has no listing.
	ListTasks(ctx context.Context, q TaskQuery) (TaskPage, error)
	// ExtendedCard reads the extended agent card (SPEC §12.2).
	ExtendedCard(ctx context.Context) ([]byte, error)
}

// TaskQuery asks for one page of a context's tasks.
type TaskQuery struct {
	ContextID string
	// HistoryLength bounds each task's history (a2a.HistoryAll: no bound).
	HistoryLength int
	// PageToken is the previous page's Next; empty for the first page.
	PageToken string
}

// TaskPage is one page of a listing.
type TaskPage struct {
	Tasks []a2a.Task
	// Next is the token of the next page; empty on the last one.
	Next string
}
