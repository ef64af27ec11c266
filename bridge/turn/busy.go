package turn

// Before a turn sends: the wait for a chat busy elsewhere, and the park
// the turn answers (dropped when it was answered elsewhere, given back to
// the session when the turn sends nothing).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/failure"
	"github.com/shimdev/shim/bridge/render/notice"
)

const (
	// defaultBusyTimeout is --busy-timeout's default.
	defaultBusyTimeout = 120 * time.Second
)

// idleWait is the wait before a turn sends, on the turn's goroutine; msg
// is the message it is to send (a park answered elsewhere turns it into a
// new message).
type idleWait struct {
	ctx  context.Context
	env  *Env
	sess *Session
	ctl  *control
	r    *render.Renderer
	msg  *a2a.OutMessage
}

// wait runs before a turn sends anything. On a chat the operator API
// reports active (busy in another window or the console), it says so in
// the editor, polls at most every 2 s, and gives up after --busy-timeout
// with -32603 state "busy"; a cancel while waiting sends nothing. After a
// wait, the turns that finished meanwhile are shown before the message is
// sent. A 404 or 405 on the route means: do not wait. The first turn of
// a session this process minted asks nothing: its chat exists nowhere
// else yet, and its message is the first request it sends (SPEC §19). It
// reports false with the turn's outcome when the turn must not be sent.
func (w *idleWait) wait() (outcome, bool) {
	id := w.sess.id
	if w.ctl.unanswered() {
		w.restorePark()
		return outcome{stop: acp.StopCancelled}, false
	}
	if w.sess.takeFresh() {
		return outcome{}, true
	}
	sum, err := w.env.Client.Operator().Session(w.ctx, id)
	if err != nil || !sum.Active {
		if err != nil && !errors.Is(err, a2aclient.ErrNoOperator) {
			w.env.Log.Debug("busy signal unreadable; not waiting", "session", id, "err", err)
		}
		w.checkPark(sum)
		return outcome{}, true
	}
	timeout := w.env.BusyTimeout
	if timeout <= 0 {
		timeout = defaultBusyTimeout
	}
	w.env.Log.Info("the chat is busy elsewhere; waiting", "session", id, "timeout", timeout)
	w.ctl.Show(w.r.Notices.Say(notice.BusyNotice()))
	sum, out, ok := w.poll(time.Now().Add(timeout), timeout)
	if !ok {
		return out, false
	}
	// Show what finished meanwhile.
	w.env.Thread.Meanwhile(w.ctx, w.sess, w.ctl.Emit)
	w.checkPark(sum)
	return outcome{}, true
}

// pollIdle polls the busy signal until the chat is idle (or unreadable);
// false with the turn's outcome when the turn was given up or the
// deadline passed.
func (w *idleWait) poll(deadline time.Time, timeout time.Duration) (*a2aclient.SessionSummary, outcome, bool) {
	poll := w.env.busyPoll()
	next := time.Now().Add(poll)
	tick := time.NewTicker(min(poll, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-w.ctx.Done():
		case <-tick.C:
		}
		if w.ctl.unanswered() {
			w.restorePark()
			return nil, outcome{stop: acp.StopCancelled}, false
		}
		now := time.Now()
		if now.After(deadline) {
			w.restorePark()
			w.env.Log.Info("gave up waiting for a busy chat", "session", w.sess.id)
			return nil, outcome{err: failure.Error(fmt.Sprintf("%s: this chat is still busy elsewhere after %s; your message was not sent", w.env.Agent, timeout),
				"busy", "", "")}, false
		}
		if now.Before(next) {
			continue
		}
		next = now.Add(poll)
		sum, err := w.env.Client.Operator().Session(w.ctx, w.sess.id)
		switch {
		case err != nil && w.ctx.Err() != nil:
		case err != nil:
			w.env.Log.Debug("busy signal unreadable; not waiting longer", "session", w.sess.id, "err", err)
			return sum, outcome{}, true
		case !sum.Active:
			return sum, outcome{}, true
		}
	}
}

// answersPark reports whether the turn answers a parked task.
func (w *idleWait) answersPark() bool {
	return w.msg.Resume && w.msg.TaskID != ""
}

// checkPark drops the park a turn would answer when the server says the
// chat's last task is no longer waiting for input (answered elsewhere).
// Without last_state the park is trusted.
func (w *idleWait) checkPark(sum *a2aclient.SessionSummary) {
	if sum == nil || sum.LastState == "" || !w.answersPark() {
		return
	}
	if a2a.ParseState(sum.LastState) == a2a.StateInputRequired {
		return
	}
	w.env.Log.Info("the parked task was answered elsewhere; sending a new message", "task", w.msg.TaskID, "last_state", sum.LastState)
	w.msg.TaskID = ""
	w.msg.Resume = false
}

// restorePark gives a park the turn did not answer back to the session.
func (w *idleWait) restorePark() {
	if w.answersPark() {
		w.sess.restorePark(w.msg.TaskID)
	}
}
