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
	"github.com/shimdev/shim/bridge/render/toolpath"
)

// A Turn is one exchange with the remote agent: it sends one message and
// maps the events of the answer (and of any reattach) onto session
// updates. A turn can outlive its prompt: Send Now detaches it from the
// cancelled prompt and hands it to the next one. Who receives its output
// at each moment (a prompt, the buffer, nobody) is its machine's phase.
type Turn struct {
	env  *Env
	sess *Session
	// prev is the session's previous turn, waited for before this one
	// sends.
	prev running

	// ctx is the turn's own (its prompt's context, with its trace
	// context), cancelled when it is given up or over.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// stopStreams ends the turn's streams even where a turn given up
	// reads on to learn its task (driver.streamContext): at its end and
	// when it is abandoned.
	stopStreams context.CancelFunc

	ctl    *control
	steers *steers
	// drv is the turn's goroutine's alone.
	drv *driver
}

// Start runs a turn of sess for the prompt req: it sends msg once the
// session's previous turn is over; title, when set, names the thread.
// The turn ends with ctx; its A2A calls carry ctx's values (the prompt's
// trace context) and report what the client did on its own (a renewed
// sign-in) as notices.
func Start(ctx context.Context, env Env, sess *Session, req *acp.Request, msg a2a.OutMessage, title string) *Turn {
	ctx = a2a.WithSession(ctx, sess.id) // the turn's calls are made for the session (a platform keeps its state)
	t := &Turn{env: &env, sess: sess, done: make(chan struct{})}
	if env.Draws.Notices {
		// The turn's calls start once its control is made, below.
		ctx = a2a.WithReporter(ctx, func(rep a2a.Report) { t.ctl.reported(rep) })
	}
	t.ctx, t.cancel = context.WithCancel(ctx)
	t.ctl = newControl(t.ctx, t.env, sess, req, t.givenUp)
	r := render.New(env.Agent, toolpath.RootsOf(env.Roots, sess.cwd, sess.Dirs()), env.Draws)
	t.steers = &steers{env: t.env, sess: sess, ctl: t.ctl, r: r}
	t.drv = newDriver(t.ctx, t.env, sess, t.ctl, t.steers, r, msg, title)
	t.drv.streams, t.stopStreams = context.WithCancel(context.WithoutCancel(t.ctx))
	sess.mu.Lock()
	t.prev = sess.current
	sess.current = t
	sess.mu.Unlock()
	go t.run()
	return t
}

// Current is the session's turn that last ran or still runs.
func (s *Session) Current() *Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, _ := s.current.(*Turn)
	return t
}

// Done is closed once the turn's goroutine is over.
func (t *Turn) Done() <-chan struct{} { return t.done }

func (t *Turn) run() {
	defer close(t.done)
	defer t.stopStreams()
	defer t.cancel()
	if t.prev != nil {
		<-t.prev.Done()
		t.prev = nil // a session's turns must not chain up in memory
	}
	t.ctl.apply(event{kind: evEnd, out: t.drv.run()})
}

// givenUp ends the turn's context once it is given up, and cancels its
// task on the server when it has one.
func (t *Turn) givenUp(taskID string) {
	if taskID != "" {
		go t.env.cancelGivenUp(t.ctx, t.sess, t.sess.cancelling(taskID))
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
	t.stopStreams()
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

// Steer folds a prompt's text (a steer of id; ctx is its request's) into
// the turn detached by a cancel, within its grace window: the steer is
// posted to the server's steering queue and the prompt req adopts the
// turn, its buffered output first. False when the prompt must run as a turn of its own: the window
// is not open, or nothing runs on the server yet, or the server did not
// take the steer (then the turn is given up).
func (t *Turn) Steer(ctx context.Context, req *acp.Request, id, text string) bool {
	fx := t.ctl.apply(event{kind: evSteer, steer: &pendingSteer{id: id, text: text}})
	if !fx.taken {
		return false
	}
	if t.ctl.task() == "" {
		// Nothing runs on the server yet (the turn still waits for a busy
		// chat, or for its first frame): there is nothing to steer.
		t.ctl.apply(event{kind: evRefuse})
		return false
	}
	if !t.steers.post(ctx, id, text) {
		t.ctl.apply(event{kind: evRefuse})
		return false
	}
	kept, dropped := t.Buffered()
	t.env.Log.Debug("the steer was taken; its prompt adopts the turn", "session", t.sess.id, "buffered", kept, "dropped", dropped)
	t.ctl.apply(event{kind: evAdopt, req: req})
	// The steered turn's own index write (at its end) dates the thread.
	return true
}

// NativeSteer handles a _session/steering steer of id for the turn (ctx
// is its request's): the
// text rides it exactly as a Send Now steer does. The outcome is
// promptRequired when the turn does not run for its prompt (the editor is
// to send a prompt: shim never starts a turn outside one), failed when it
// takes none now or the server did not take it (nothing changes then).
func (t *Turn) NativeSteer(ctx context.Context, id, text string) string {
	if !t.Running() {
		return acp.SteerPromptRequired
	}
	ps := &pendingSteer{id: id, text: text}
	var taken bool
	t.ctl.steers(func(m *machine) { taken = m.nativeSteer(ps) })
	switch {
	case !taken:
		t.env.Log.Info("the turn takes no steer now (no task on the server yet, or it is ending)", "session", t.sess.id)
	case t.steers.post(ctx, id, text):
		return acp.SteerInjected
	default:
		t.ctl.steers(func(m *machine) { m.nativeRefused(ps) })
	}
	return acp.SteerFailed
}
