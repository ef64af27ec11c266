package history

// Where a thread's past turns are read from (SPEC §4.5): one Source
// interface, tried in order (the operator API's /turns, GetTask of the
// task ids the index recorded, ListTasks by contextId), under one load
// budget (SPEC §13), the turns ordered oldest first.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/bridge/past"
)

// A Source reads a thread's past turns, in the order the server gives
// them, oldest first.
type Source interface {
	// Turns returns the thread's turns; cut reports that a size limit or
	// the load budget left older ones out. An error that wraps ErrNotHere
	// means this source has none of them: the next one is asked.
	Turns(ctx context.Context, thread string) (turns []past.Turn, cut bool, err error)
}

// ErrNotHere says a Source has none of a thread's turns.
var ErrNotHere = errors.New("history: not from this source")

// What one session/load reads at most (SPEC §13).
const (
	LoadBytesMax = 64 << 20
	loadPagesMax = 100
)

// Read reads a thread's turns from the first source that has them, oldest
// first, within a budget of bytes (0: LoadBytesMax) and 100 requests,
// newest turns first; cut reports that older turns were left out. The
// first source (the operator API's probe or one answer) draws on a budget
// of its own; the others share one (SPEC §4.5 amended).
func Read(ctx context.Context, thread string, bytes int64, sources ...Source) (out []past.Turn, cut bool, err error) {
	ctx = a2a.WithSession(ctx, thread) // its calls are made for the session
	if bytes == 0 {
		bytes = LoadBytesMax
	}
	budget := func() context.Context {
		return a2a.WithReadBudget(ctx, a2a.NewReadBudget(bytes, loadPagesMax))
	}
	bctx := budget()
	for i, src := range sources {
		ts, c, err := src.Turns(bctx, thread)
		if i == 0 {
			bctx = budget()
		}
		cut = cut || c
		if errors.Is(err, ErrNotHere) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		oldestFirst(ts)
		return ts, cut, nil
	}
	return nil, cut, nil
}

// cutShort reports an error that means the load budget or a size limit
// cut the history.
func cutShort(err error) bool {
	return errors.Is(err, a2a.ErrBudget) || errors.Is(err, a2a.ErrTooLarge)
}

// fatal reports an error no other source gets past: a refused token, or
// the caller gone.
func fatal(ctx context.Context, err error) bool {
	return a2a.IsUnauthorized(err) || ctx.Err() != nil
}

// Operator reads the operator API's /turns of a thread.
type Operator struct {
	Client *a2aclient.Client
	Log    *slog.Logger
}

func (o Operator) Turns(ctx context.Context, thread string) ([]past.Turn, bool, error) {
	ts, err := o.Client.Operator().Turns(ctx, thread)
	switch {
	case err == nil:
		return fromOperator(ts), false, nil
	case fatal(ctx, err):
		return nil, false, err
	case cutShort(err):
		// /turns is one answer: too big, it is read from the tasks instead.
		o.Log.Warn("the server's turns are too large; reading its tasks", "session", thread, "err", err)
		return nil, true, fmt.Errorf("%w: %w", ErrNotHere, err)
	case !errors.Is(err, a2aclient.ErrNoOperator):
		o.Log.Warn("the server's turns could not be read; reading its tasks", "session", thread, "err", err)
	}
	return nil, false, fmt.Errorf("%w: %w", ErrNotHere, err)
}

// Tasks reads the tasks the thread index recorded for a thread (IDs, in
// the order they ran), newest first so that a cut drops the oldest; a
// task that is gone or of another context is left out.
type Tasks struct {
	Client *a2aclient.Client
	IDs    func() []string
	Log    *slog.Logger
}

func (t Tasks) Turns(ctx context.Context, thread string) (out []past.Turn, cut bool, err error) {
	ids := t.IDs()
	for i := len(ids) - 1; i >= 0; i-- {
		task, err := t.Client.GetTask(ctx, ids[i], a2a.HistoryAll)
		var rpc *a2a.RPCError
		switch {
		case err == nil:
		case cutShort(err):
			cut = true
		case errors.As(err, &rpc):
			t.Log.Debug("a recorded task is gone", "task", ids[i], "err", err)
			continue
		default:
			return nil, false, err
		}
		if cut {
			break
		}
		if task.ContextID != "" && task.ContextID != thread {
			continue
		}
		out = append(out, fromTask(task))
	}
	if len(out) == 0 {
		return nil, cut, ErrNotHere
	}
	slices.Reverse(out)
	return out, cut, nil
}

// Listed reads a thread's tasks with ListTasks by contextId (A2A 1.0); a
// server without it has none.
type Listed struct {
	Client *a2aclient.Client
	Log    *slog.Logger
}

func (l Listed) Turns(ctx context.Context, thread string) (out []past.Turn, cut bool, err error) {
	tasks, err := l.Client.ListTasks(ctx, thread, a2a.HistoryAll)
	if cutShort(err) {
		cut, err = true, nil
	}
	switch {
	case err == nil:
		// ListTasks gives the newest first.
		for i := len(tasks) - 1; i >= 0; i-- {
			if t := &tasks[i]; t.ContextID == "" || t.ContextID == thread {
				out = append(out, fromTask(t))
			}
		}
	case errors.Is(err, a2a.ErrUnsupported):
	case fatal(ctx, err):
		return nil, false, err
	default:
		l.Log.Debug("ListTasks failed", "context", thread, "err", err)
	}
	return out, cut, nil
}
