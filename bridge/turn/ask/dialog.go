package ask

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
// the dialog is needed: until left is closed (the prompt that owns the
// turn was cancelled), or the turn's context ctx ends, or the park is
// answered elsewhere. withdrawn is why it was withdrawn (errPromptLeft,
// errElsewhere, or ctx's error), nil when the editor answered (err is
// then the call's error).
func (a *Asker) dialog(ctx context.Context, left <-chan struct{}, method string, params, result any) (withdrawn, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-left:
			cancel(errPromptLeft)
		case <-ctx.Done():
		}
	}()
	go a.watchElsewhere(ctx, cancel)
	err = a.Conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil {
		withdrawn = context.Cause(ctx)
		a.Log.Info("the editor's dialog was withdrawn", "session", a.Session, "method", method, "why", withdrawn)
		return withdrawn, err
	}
	return nil, err
}

// watchElsewhere reads the operator API's summary of the chat every poll
// while a dialog is open, and ends it (errElsewhere) once the chat's last
// task is no longer waiting for input, or a turn runs on the chat: the
// park was answered elsewhere. A server without the route, or a summary
// that cannot be read, leaves the dialog to the editor.
func (a *Asker) watchElsewhere(ctx context.Context, cancel context.CancelCauseFunc) {
	tick := time.NewTicker(a.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sum, err := a.Client.Operator().Session(ctx, a.Session)
		switch {
		case errors.Is(err, a2aclient.ErrNoOperator):
			return
		case err != nil:
			a.Log.Debug("the chat's summary is unreadable while a dialog is open", "session", a.Session, "err", err)
		case sum.Active || (sum.LastState != "" && a2a.ParseState(sum.LastState) != a2a.StateInputRequired):
			a.Log.Info("the park was answered elsewhere", "session", a.Session, "active", sum.Active, "last_state", sum.LastState)
			cancel(errElsewhere)
			return
		}
	}
}
