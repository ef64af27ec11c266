package bridge

// A turn's output and its owner: where updates go (the prompt, the
// grace buffer, nobody), how the prompt is answered, cancelled and given
// up, and the task id the server gave the turn.

import (
	"context"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// emit sends an update to whoever owns the turn's output now. The update
// takes its place in the output queue under t.mu (so that it cannot pass
// a buffer being handed over, nor a cancel's answer); the wait for room,
// when the editor is behind, comes after t.mu is let go.
func (t *turn) emit(update acp.Update) {
	t.mu.Lock()
	sent := t.win.Route(bufferItem(update)) && t.srv.send(t.sess.id, update)
	t.mu.Unlock()
	if sent {
		t.srv.pace()
	}
}

// emitSettled is emit for the update that settles an open card: a turn
// given up after its grace window still ends its cards in the editor
// (unless the session was closed).
func (t *turn) emitSettled(update acp.Update) {
	registered := t.srv.session(t.sess.id) == t.sess
	t.mu.Lock()
	sent := (t.win.Route(bufferItem(update)) || (registered && t.phase() == phaseOrphaned)) && t.srv.send(t.sess.id, update)
	t.mu.Unlock()
	if sent {
		t.srv.pace()
	}
}

// cardStatus is the status the cards still open at the turn's end get.
func cardStatus(out outcome) acp.ToolStatus {
	if out.err == nil && out.stop == acp.StopEndTurn {
		return acp.ToolCompleted
	}
	return acp.ToolFailed
}

// finish answers the prompt, unless a cancel already did; the outcome is
// kept for a prompt that adopts the turn as it ends.
func (t *turn) finish(out outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if req := t.onEnd(out); req != nil {
		t.answer(req, out)
	}
}

// answer replies to a prompt with the turn's outcome; t.mu is held (a
// reply is queued, never waited for).
func (t *turn) answer(req *acp.Request, out outcome) {
	if out.err != nil {
		t.srv.reply(req, nil, out.err)
		return
	}
	res := acp.PromptResult{StopReason: out.stop}
	if u := t.usage; u != nil {
		res.Usage = &acp.UsageTotal{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			TotalTokens: u.InputTokens + u.OutputTokens, CachedReadTokens: u.CacheReadTokens}
	}
	t.srv.reply(req, res, nil)
}

// cancelByUser handles session/cancel: the prompt answers "cancelled" at
// once; the turn detaches into its grace window (a prompt arriving within
// it steers the turn), or, with no grace, is given up at once.
func (t *turn) cancelByUser() {
	select {
	case <-t.done:
		return
	default:
	}
	t.mu.Lock()
	req, giveUp := t.onCancel()
	if req != nil {
		t.srv.reply(req, acp.PromptResult{StopReason: acp.StopCancelled}, nil)
	}
	t.mu.Unlock()
	if giveUp {
		t.orphan()
	}
}

// orphan gives the turn up: its output is dropped, its task cancelled.
func (t *turn) orphan() {
	t.mu.Lock()
	first := t.onGiveUp()
	taskID := t.taskID
	t.mu.Unlock()
	if !first {
		return
	}
	select {
	case <-t.done:
		return
	default:
	}
	if taskID != "" {
		go t.cancelTask(taskID)
	}
	t.cancel()
}

// abandon is the shutdown path: the turn's output is dropped, its context
// cancelled and its task cancelled (with the A2A client's own timeout and
// retries); it returns once the turn's goroutine is done.
func (t *turn) abandon() {
	t.mu.Lock()
	first := t.onGiveUp()
	taskID := t.taskID
	t.mu.Unlock()
	t.cancel()
	if taskID != "" && first {
		t.cancelTask(taskID)
	}
	// Let the turn end and record itself in the index.
	<-t.done
}

// cancelTask asks the server to cancel the task. It is not tied to the
// turn's context (cancelled by then); the client bounds each attempt.
func (t *turn) cancelTask(taskID string) {
	if err := t.client.CancelTask(a2a.WithSession(context.Background(), t.sess.id), taskID); err != nil {
		t.srv.log.Debug("CancelTask", "task", taskID, "err", err)
	}
}

func (t *turn) isCancelled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cancelled
}

// setTask records the task id the server gave the turn.
func (t *turn) setTask(id string) {
	if id == "" {
		return
	}
	t.mu.Lock()
	known := t.taskID
	if known == "" {
		t.taskID = id
	}
	cancelled := t.cancelled
	t.mu.Unlock()
	if known != "" {
		return
	}
	t.srv.log.Debug("the agent started a task", "session", t.sess.id, "task", id)
	t.srv.thread(t.sess.id).claim(id) // shown live: never replayed
	if cancelled {
		// The cancel came before the server named the task.
		go t.cancelTask(id)
	}
	// The index learns the task when the turn ends (record).
}

func (t *turn) task() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.taskID
}

// adopt hands the turn to a new prompt and flushes the buffered output to
// it, in order.
func (t *turn) adopt(req *acp.Request) {
	t.mu.Lock()
	flush, ended := t.onAdopt(req)
	for _, it := range flush {
		t.srv.send(t.sess.id, it.Update)
	}
	if ended != nil {
		// The turn ended while the steer was being posted.
		t.answer(req, *ended)
	}
	t.mu.Unlock()
	t.srv.pace()
}
