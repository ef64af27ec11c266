package turn

// A park's dialog in the editor (a permission request, a form) while it is
// needed, and no longer (SPEC §14): the request is withdrawn with
// $/cancel_request (stdio.Conn.Call, its context ended) when the prompt was
// cancelled, the turn was given up or is over, or the park was answered
// elsewhere (another window or the agent's console: the operator API's
// summary of the chat, read while the dialog is open, says the chat's
// task left input-required or a turn runs on it), so that the editor
// closes the dialog instead of leaving it open over a dead turn.

import (
	"context"
	"errors"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
)

// Why a dialog was withdrawn (the cause of its context).
var (
	errPromptLeft = errors.New("the prompt was cancelled")
	errElsewhere  = errors.New("the park was answered elsewhere")
)

// dialog asks the editor method and waits for its answer in result, while
// the dialog is needed. withdrawn is why it was withdrawn (errPromptLeft,
// errElsewhere, or the turn's context's error), nil when the editor
// answered (err is then the call's error).
func (t *Turn) dialog(method string, params, result any) (withdrawn, err error) {
	ctx, cancel := context.WithCancelCause(t.ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-t.left():
			cancel(errPromptLeft)
		case <-ctx.Done():
		}
	}()
	go t.watchElsewhere(ctx, cancel)
	err = t.env.Conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil {
		withdrawn = context.Cause(ctx)
		t.env.Log.Info("the editor's dialog was withdrawn", "session", t.sess.id, "method", method, "why", withdrawn)
		return withdrawn, err
	}
	return nil, err
}

// watchElsewhere reads the operator API's summary of the chat every busy
// poll while a dialog is open, and ends it (errElsewhere) once the chat's
// last task is no longer waiting for input, or a turn runs on the chat:
// the park was answered elsewhere. A server without the route, or a
// summary that cannot be read, leaves the dialog to the editor.
func (t *Turn) watchElsewhere(ctx context.Context, cancel context.CancelCauseFunc) {
	poll := t.env.BusyPoll
	if poll <= 0 {
		poll = defaultBusyPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sum, err := t.env.Client.Operator().Session(ctx, t.sess.id)
		switch {
		case errors.Is(err, a2aclient.ErrNoOperator):
			return
		case err != nil:
			t.env.Log.Debug("the chat's summary is unreadable while a dialog is open", "session", t.sess.id, "err", err)
		case sum.Active || (sum.LastState != "" && a2a.ParseState(sum.LastState) != a2a.StateInputRequired):
			t.env.Log.Info("the park was answered elsewhere", "session", t.sess.id, "active", sum.Active, "last_state", sum.LastState)
			cancel(errElsewhere)
			return
		}
	}
}
