package bridge

// Before a turn sends: the wait for a chat busy elsewhere, and the park
// the turn answers (dropped when it was answered elsewhere, given back to
// the session when the turn sends nothing).

import (
	"errors"
	"fmt"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/operator"
	"github.com/shimdev/shim/acp"
)

// defaultBusyPoll is how often a busy chat is polled: every 2 s, the most
// often SPEC allows.
const defaultBusyPoll = 2 * time.Second

// waitIdle runs before a turn sends anything. On a chat the operator API
// reports active (busy in another window or the console), it says so in
// the editor, polls at most every 2 s, and gives up after --busy-timeout
// with -32603 state "busy"; a cancel while waiting sends nothing. After a
// wait, the turns that finished meanwhile are shown before the message is
// sent. A 404 or 405 on the route means: do not wait. It reports false
// with the turn's outcome when the turn must not be sent.
func (t *turn) waitIdle() (outcome, bool) {
	s := t.srv
	id := t.sess.id
	if t.givenUp() {
		t.restorePark()
		return outcome{stop: acp.StopCancelled}, false
	}
	op := t.client.Operator()
	sum, err := op.Session(t.ctx, id)
	if err != nil || !sum.Active {
		if err != nil && !errors.Is(err, operator.ErrAbsent) {
			s.log.Debug("busy signal unreadable; not waiting", "session", id, "err", err)
		}
		t.checkPark(sum)
		return outcome{}, true
	}
	timeout := s.opts.BusyTimeout
	if timeout <= 0 {
		timeout = defaultBusyTimeout
	}
	s.log.Info("the chat is busy elsewhere; waiting", "session", id, "timeout", timeout)
	t.thought("This chat is busy elsewhere (another window or the console is running a turn). Waiting for it to finish before sending your message…")
	poll := t.srv.opts.BusyPoll
	if poll <= 0 {
		poll = defaultBusyPoll
	}
	deadline := time.Now().Add(timeout)
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
			return outcome{stop: acp.StopCancelled}, false
		}
		now := time.Now()
		if now.After(deadline) {
			t.restorePark()
			s.log.Info("gave up waiting for a busy chat", "session", id)
			return outcome{err: acp.NewError(acp.CodeInternal,
				fmt.Sprintf("%s: this chat is still busy elsewhere after %s; your message was not sent", t.agent, timeout),
				stateData("busy", "", ""))}, false
		}
		if now.Before(next) {
			continue
		}
		next = now.Add(poll)
		sum, err = op.Session(t.ctx, id)
		if err != nil {
			if t.ctx.Err() != nil {
				continue
			}
			s.log.Debug("busy signal unreadable; not waiting longer", "session", id, "err", err)
			break
		}
		if !sum.Active {
			break
		}
	}
	// Show what finished meanwhile.
	if turns, cut, err := s.threadTurns(t.ctx, t.client, id); err == nil {
		s.replayLoaded(t.sess, turns, cut, false, t.emit)
	} else {
		s.log.Debug("turns finished meanwhile not read", "session", id, "err", err)
	}
	t.checkPark(sum)
	return outcome{}, true
}

// givenUp reports whether the turn was cancelled, or its prompt answered
// (a cancel detaches it): an unsent turn then sends nothing.
func (t *turn) givenUp() bool {
	if t.ctx.Err() != nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cancelled || t.prompt == nil
}

// answersPark reports whether the turn answers a parked task.
func (t *turn) answersPark() bool {
	return t.msg.Resume && t.msg.TaskID != ""
}

// checkPark drops the park a turn would answer when the server says the
// chat's last task is no longer waiting for input (answered elsewhere).
// Without last_state the park is trusted.
func (t *turn) checkPark(sum *operator.SessionSummary) {
	if sum == nil || sum.LastState == "" || !t.answersPark() {
		return
	}
	if a2a.ParseState(sum.LastState) == a2a.StateInputRequired {
		return
	}
	t.srv.log.Info("the parked task was answered elsewhere; sending a new message", "task", t.msg.TaskID, "last_state", sum.LastState)
	t.msg.TaskID = ""
	t.msg.Resume = false
}

// restorePark gives a park the turn did not answer back to the session.
func (t *turn) restorePark() {
	if !t.answersPark() {
		return
	}
	t.sess.mu.Lock()
	if t.sess.parkedTask == "" {
		t.sess.parkedTask = t.msg.TaskID
	}
	t.sess.mu.Unlock()
}
