package turn

// The turn as its owner holds it: started, run on its own goroutine,
// cancelled, withdrawn, abandoned. What it does is its parts': the
// machine under its lock (control.go, output.go), the driver of its
// streams (stream.go, frames.go), the wait before it sends (busy.go),
// its steers (steer.go) and asking the person (package ask).

import (
	"context"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// A Turn is one exchange with the remote agent: it sends one message and
// maps the events of the answer (and of any reattach) onto session
// updates. A turn can outlive its prompt: Send Now detaches it from the
// cancelled prompt and hands it to the next one. Who receives its output
// at each moment (a prompt, the buffer, nobody) is its machine's phase.
type Turn struct {
	env  *Env
	sess *Session
	prev *Turn

	// ctx is the turn's own (its prompt's context, with its trace
	// context), cancelled when it is given up or over.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	ctl    *control
	steers *steers
	// drv is the turn's goroutine's alone.
	drv *driver
}

// outcome is how a stream of the turn ended: a stop reason, an error, or
// a message that resumes the task (an answered approval) in the same turn.
type outcome struct {
	stop   acp.StopReason
	err    *acp.Error
	resume *a2a.OutMessage
	// elsewhere: the park the turn asked about was answered elsewhere;
	// the turn follows the task from there (reattaching).
	elsewhere bool
	// usage is the turn's, for the prompt's answer.
	usage *a2a.Usage
}

// Start runs a turn of sess for the prompt req: it sends msg once the
// session's previous turn is over; title, when set, names the thread.
// The turn ends with ctx; its A2A calls carry ctx's values (the prompt's
// trace context) and report what the client did on its own (a renewed
// sign-in) as notices.
func Start(ctx context.Context, env Env, sess *Session, req *acp.Request, msg a2a.OutMessage, title string) *Turn {
	ctx = a2a.WithSession(ctx, sess.id) // the turn's calls are made for the session (a platform keeps its state)
	t := &Turn{env: &env, sess: sess, done: make(chan struct{})}
	var reported func(a2a.Report)
	if env.Draws.Notices {
		ctx = a2a.WithReporter(ctx, func(rep a2a.Report) { reported(rep) })
	}
	t.ctx, t.cancel = context.WithCancel(ctx)
	t.ctl = newControl(t.ctx, t.env, sess, req, t.givenUp)
	reported = t.ctl.reported
	r := render.New(env.Agent, render.RootsOf(env.Roots, sess.cwd, sess.Dirs()), env.Draws)
	t.steers = &steers{env: t.env, sess: sess, ctl: t.ctl, r: r}
	t.drv = newDriver(t.ctx, t.env, sess, t.ctl, t.steers, r, msg, title)
	sess.mu.Lock()
	t.prev = sess.current
	sess.current = t
	sess.mu.Unlock()
	go t.run()
	return t
}

// Done is closed once the turn's goroutine is over.
func (t *Turn) Done() <-chan struct{} { return t.done }

func (t *Turn) run() {
	defer close(t.done)
	defer t.cancel()
	if t.prev != nil {
		<-t.prev.done
		t.prev = nil // a session's turns must not chain up in memory
	}
	t.ctl.apply(event{kind: evEnd, out: t.drv.run()})
}

// givenUp ends the turn's context once it is given up, and cancels its
// task on the server when it has one.
func (t *Turn) givenUp(taskID string) {
	if taskID != "" {
		go t.env.cancelTask(t.ctx, taskID)
	}
	t.cancel()
}

// Cancel handles session/cancel (and close): the prompt answers
// "cancelled" at once; the turn detaches into its grace window (a prompt
// arriving within it steers the turn), or, with no grace, is given up.
func (t *Turn) Cancel() { t.ctl.apply(event{kind: evCancel}) }

// Withdraw handles the client's cancel of the prompt req
// ($/cancel_request): when req is the prompt the turn answers now, it
// answers -32800 at once and the turn is given up: a turn that has not
// sent its message yet (waiting for a busy chat, or for the session's
// previous turn) sends nothing, one that has is cancelled on the server.
func (t *Turn) Withdraw(req *acp.Request) { t.ctl.apply(event{kind: evWithdraw, req: req}) }

// Abandon is the shutdown path: the turn's output is dropped, its context
// cancelled and its task cancelled (with the A2A client's own timeout and
// retries); it returns once the turn's goroutine is done.
func (t *Turn) Abandon() {
	taskID := t.ctl.abandon()
	t.cancel()
	if taskID != "" {
		t.env.cancelTask(t.ctx, taskID)
	}
	// Let the turn end and record itself in the index.
	<-t.done
}

// Buffered returns the bytes a detached turn holds for an adopting
// prompt, and those a full buffer dropped.
func (t *Turn) Buffered() (kept, dropped int) { return t.ctl.Buffered() }

// Running reports that the turn runs for its prompt: not ended, not
// given up, not detached by a cancel (the editor thinks no turn runs
// then).
func (t *Turn) Running() bool { return t.ctl.running() }

// callStatus is the status the calls still open at the turn's end get.
func callStatus(out outcome) acp.ToolStatus {
	if out.err == nil && out.stop == acp.StopEndTurn {
		return acp.ToolCompleted
	}
	return acp.ToolFailed
}
