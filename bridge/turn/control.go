package turn

// The machine under its lock: events applied, their effects done; the
// task id; the waits on the phase; an update queued for the editor. Every
// goroutine of a turn goes through its control to change or read the
// turn's state (output.go routes the turn's updates through it).

import (
	"context"
	"sync"
	"time"

	"github.com/shimdev/shim/acp"
)

// control is a turn's machine under its lock, and what it does when the
// machine says so. Its methods are safe for concurrent use.
type control struct {
	env  *Env
	sess *Session
	// ctx is the turn's (its waits end with it); giveUp ends it, and
	// cancels taskID when set, once the turn is given up.
	ctx    context.Context
	giveUp func(taskID string)

	mu sync.Mutex
	// Under mu: the machine, the grace timer, and the channel closed when
	// the machine's phase next changes.
	m       machine
	timer   *time.Timer
	changed chan struct{}
}

// bufferMax bounds a detached turn's buffered output.
const bufferMax = 1 << 20

func newControl(ctx context.Context, env *Env, sess *Session, req *acp.Request, giveUp func(string)) *control {
	return &control{env: env, sess: sess, ctx: ctx, giveUp: giveUp,
		m: newMachine(req, env.Grace > 0, bufferMax), changed: make(chan struct{})}
}

// apply hands one event to the machine and does its effects: those that
// never wait (queueing updates and replies, the grace timer) under c.mu,
// so that nothing passes a buffer handed over or a cancel's answer; the
// others (pacing, giving the task up) after.
func (c *control) apply(ev event) effects {
	c.mu.Lock()
	fx := c.m.apply(ev)
	taskID := c.m.taskID
	c.queue(fx)
	c.mu.Unlock()
	if len(fx.flush) > 0 {
		c.pace()
	}
	if fx.giveUp {
		c.giveUp(taskID)
	}
	return fx
}

// abandon gives the turn up (shutdown) and returns the task to cancel,
// "" when there is none or it was given up before.
func (c *control) abandon() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	fx := c.m.apply(event{kind: evGiveUp})
	c.queue(fx)
	if !fx.giveUp {
		return ""
	}
	return c.m.taskID
}

// queue does the effects that never wait; c.mu is held.
func (c *control) queue(fx effects) {
	if fx.changed {
		close(c.changed)
		c.changed = make(chan struct{})
	}
	if fx.stopTimer && c.timer != nil {
		c.timer.Stop()
	}
	if fx.startTimer {
		gen := c.m.gen
		c.timer = time.AfterFunc(c.env.Grace, func() { c.apply(event{kind: evExpire, gen: gen}) })
	}
	for _, it := range fx.flush {
		c.send(it.Update)
	}
	if len(fx.flush) > 0 {
		c.env.Log.Debug("the steering prompt adopts the turn", "session", c.sess.id, "updates", len(fx.flush))
	}
	if fx.answer != nil {
		c.answer(fx.answer, fx.with)
	}
}

// answer replies to a prompt with the turn's outcome ("cancelled" when
// out is nil); c.mu is held (a reply is queued, never waited for).
func (c *control) answer(req *acp.Request, out *outcome) {
	switch {
	case out == nil:
		c.env.Replies.Reply(req, acp.PromptResult{StopReason: acp.StopCancelled}, nil)
	case out.err != nil:
		c.env.Replies.Reply(req, nil, out.err)
	default:
		res := acp.PromptResult{StopReason: out.stop}
		if u := out.usage; u != nil {
			res.Usage = &acp.UsageTotal{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				TotalTokens: u.InputTokens + u.OutputTokens, CachedReadTokens: u.CacheReadTokens}
		}
		c.env.Replies.Reply(req, res, nil)
	}
}

// GivenUp reports that the turn was given up.
func (c *control) GivenUp() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.cancelled()
}

// unanswered reports whether the turn was cancelled, or its prompt
// answered (a cancel detaches it): an unsent turn then sends nothing.
func (c *control) unanswered() bool {
	if c.ctx.Err() != nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.cancelled() || c.m.prompt == nil
}

// claim records the task id the server gave the turn; first reports it
// was new, cancel that the turn was given up before.
func (c *control) claim(id string) (first, cancel bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.task(id)
}

// resetTask forgets the task: a steer run as the next message starts a
// task of its own.
func (c *control) resetTask() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.taskID = ""
}

// task is the task id the server gave the turn, "" before.
func (c *control) task() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.taskID
}

// Wait waits while no prompt owns the turn (ask.Prompt) and returns a
// channel closed once the prompt that owns it then leaves it; false when
// nobody will own it (waitPhase).
func (c *control) Wait() (left <-chan struct{}, ok bool) {
	if !c.waitPhase() {
		return nil, false
	}
	return c.left(), true
}

// waitPhase waits while the turn is detached or adopting (an approval
// that parks inside the grace window is asked of the adopting prompt)
// and reports whether a prompt owns it then; false when nobody will, or
// the turn ends.
func (c *control) waitPhase() bool {
	for logged := false; ; logged = true {
		c.mu.Lock()
		p, ch := c.m.phase, c.changed
		c.mu.Unlock()
		switch p {
		case attached:
			return !c.GivenUp()
		case orphaned, ended:
			return false
		}
		if !logged {
			c.env.Log.Debug("the approval waits for a prompt to adopt the turn", "session", c.sess.id, "phase", p)
		}
		select {
		case <-ch:
		case <-c.ctx.Done():
			return false
		}
	}
}

// left returns a channel closed once the turn leaves attached (its prompt
// was cancelled); closed already when it is not attached now.
func (c *control) left() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m.phase != attached {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return c.changed
}

// Buffered returns the bytes a detached turn holds for an adopting
// prompt, and those a full buffer dropped.
func (c *control) Buffered() (kept, dropped int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.buf.Size(), c.m.buf.DroppedBytes
}

// running reports that the turn runs for its prompt.
func (c *control) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.running()
}

// steers calls fn on the machine's steers under c.mu.
func (c *control) steers(fn func(m *machine)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(&c.m)
}

// send queues one update for the editor; false when it cannot be
// delivered.
func (c *control) send(u acp.Update) bool {
	if err := c.env.Conn.Send(c.sess.id, u); err != nil {
		c.env.Log.Debug("update not delivered", "err", err)
		return false
	}
	return true
}

// pace waits while the editor is behind on its output.
func (c *control) pace() { _ = c.env.Conn.Pace() }
