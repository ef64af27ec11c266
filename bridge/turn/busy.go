package turn

// Before a turn sends: the wait for a chat busy elsewhere, and the park
// the turn answers (dropped when it was answered elsewhere, given back to
// the session when the turn sends nothing).

import (
	"errors"
	"fmt"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

const (
	// defaultBusyTimeout is --busy-timeout's default.
	defaultBusyTimeout = 120 * time.Second
	// defaultBusyPoll is how often a busy chat is polled: every 2 s, the
	// most often SPEC allows.
	defaultBusyPoll = 2 * time.Second
)

// waitIdle runs before a turn sends anything. On a chat the operator API
// reports active (busy in another window or the console), it says so in
// the editor, polls at most every 2 s, and gives up after --busy-timeout
// with -32603 state "busy"; a cancel while waiting sends nothing. After a
// wait, the turns that finished meanwhile are shown before the message is
// sent. A 404 or 405 on the route means: do not wait. It reports false
// with the turn's outcome when the turn must not be sent.
func (t *Turn) waitIdle() (outcome, bool) {
	id := t.sess.id
	if t.givenUp() {
		t.restorePark()
		return outcome{stop: acp.StopCancelled}, false
	}
	sum, err := t.env.Client.Operator().Session(t.ctx, id)
	if err != nil || !sum.Active {
		if err != nil && !errors.Is(err, a2aclient.ErrNoOperator) {
			t.env.Log.Debug("busy signal unreadable; not waiting", "session", id, "err", err)
		}
		t.checkPark(sum)
		return outcome{}, true
	}
	timeout := t.env.BusyTimeout
	if timeout <= 0 {
		timeout = defaultBusyTimeout
	}
	t.env.Log.Info("the chat is busy elsewhere; waiting", "session", id, "timeout", timeout)
	t.show(t.r.Notices.Say(render.BusyNotice()))
	sum, out, ok := t.pollIdle(time.Now().Add(timeout), timeout)
	if !ok {
		return out, false
	}
	// Show what finished meanwhile.
	t.env.Host.Meanwhile(t.ctx, t.sess, t.emit)
	t.checkPark(sum)
	return outcome{}, true
}

// pollIdle polls the busy signal until the chat is idle (or unreadable);
// false with the turn's outcome when the turn was given up or the
// deadline passed.
func (t *Turn) pollIdle(deadline time.Time, timeout time.Duration) (*a2aclient.SessionSummary, outcome, bool) {
	poll := t.env.BusyPoll
	if poll <= 0 {
		poll = defaultBusyPoll
	}
	next := time.Now().Add(poll)
	tick := time.NewTicker(min(poll, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
		case <-tick.C:
		}
		if t.givenUp() {
			t.restorePark()
			return nil, outcome{stop: acp.StopCancelled}, false
		}
		now := time.Now()
		if now.After(deadline) {
			t.restorePark()
			t.env.Log.Info("gave up waiting for a busy chat", "session", t.sess.id)
			return nil, outcome{err: render.Error(fmt.Sprintf("%s: this chat is still busy elsewhere after %s; your message was not sent", t.env.Agent, timeout),
				"busy", "", "")}, false
		}
		if now.Before(next) {
			continue
		}
		next = now.Add(poll)
		sum, err := t.env.Client.Operator().Session(t.ctx, t.sess.id)
		switch {
		case err != nil && t.ctx.Err() != nil:
		case err != nil:
			t.env.Log.Debug("busy signal unreadable; not waiting longer", "session", t.sess.id, "err", err)
			return sum, outcome{}, true
		case !sum.Active:
			return sum, outcome{}, true
		}
	}
}

// givenUp reports whether the turn was cancelled, or its prompt answered
// (a cancel detaches it): an unsent turn then sends nothing.
func (t *Turn) givenUp() bool {
	if t.ctx.Err() != nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.cancelled() || t.m.prompt == nil
}

// answersPark reports whether the turn answers a parked task.
func (t *Turn) answersPark() bool {
	return t.msg.Resume && t.msg.TaskID != ""
}

// checkPark drops the park a turn would answer when the server says the
// chat's last task is no longer waiting for input (answered elsewhere).
// Without last_state the park is trusted.
func (t *Turn) checkPark(sum *a2aclient.SessionSummary) {
	if sum == nil || sum.LastState == "" || !t.answersPark() {
		return
	}
	if a2a.ParseState(sum.LastState) == a2a.StateInputRequired {
		return
	}
	t.env.Log.Info("the parked task was answered elsewhere; sending a new message", "task", t.msg.TaskID, "last_state", sum.LastState)
	t.msg.TaskID = ""
	t.msg.Resume = false
}

// restorePark gives a park the turn did not answer back to the session.
func (t *Turn) restorePark() {
	if t.answersPark() {
		t.sess.restorePark(t.msg.TaskID)
	}
}
