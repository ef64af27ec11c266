package turn

// Reading a turn's streams: the events of the answer mapped one by one
// (frames.go), reattaching when a stream drops, reading the task back
// when it cannot.

import (
	"errors"
	"io"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// stream is what the turn's goroutine keeps of the stream it reads.
type stream struct {
	gotMessage   bool
	authRequired bool
	// staleFirst: the stream's first frame, a snapshot, is the resumed
	// task's stale one; lastSnap is the status of the stream's last frame
	// when that was a snapshot.
	staleFirst bool
	lastSnap   *a2a.Status
}

// consumeResult is why consume returned.
type consumeResult uint8

const (
	consumedEnd     consumeResult = iota // a final outcome is known
	consumedDropped                      // the stream ended, broke or stalled without one
	consumedError                        // an error frame after the task was known
)

// drive runs the turn and returns how it ended. An answered approval
// resumes the task with a new stream, in the same turn.
func (t *Turn) drive() outcome {
	msg := t.msg
	for {
		t.sentBypass = msg.Bypass
		// A resumed task's first frame is its stale parked snapshot.
		t.staleFirst = msg.TaskID != ""
		s, err := t.env.Client.Stream(t.ctx, msg)
		if err != nil {
			if t.isCancelled() {
				return outcome{stop: acp.StopCancelled}
			}
			return outcome{err: t.env.Host.CallError(err, t.task())}
		}
		out := t.follow(s)
		for n := 0; out.elsewhere; n++ {
			if n >= elsewhereMax {
				t.env.Log.Info("the park keeps being answered elsewhere; ending the turn", "task", t.task())
				out = outcome{stop: acp.StopEndTurn}
				break
			}
			out = t.rejoin()
		}
		for {
			if out.resume == nil && out.err == nil && out.stop == acp.StopEndTurn {
				out.resume = t.settleSteers()
			} else if out.resume == nil {
				t.dropSteers()
			}
			// A native steer taken while the steers were settled is
			// settled too; then no more are taken.
			if out.resume != nil || t.closeSteers() {
				break
			}
		}
		if out.resume == nil {
			return out
		}
		msg = *out.resume
		t.authRequired = false
		if msg.TaskID == "" {
			// A steer run as the next turn starts a task of its own.
			t.resetTask()
		}
	}
}

// follow reads a stream to the outcome, reattaching when it drops and
// reading the task back when it cannot.
func (t *Turn) follow(s *a2aclient.Stream) outcome {
	for attempt := 0; ; attempt++ {
		out, why, cause := t.consume(s)
		s.Close()
		if why == consumedEnd {
			return out
		}
		if snap := t.lastSnap; why == consumedDropped && snap != nil {
			// A snapshot streamer's stream ends on its last snapshot.
			if out, ok := t.final(*snap); ok {
				return out
			}
		}
		if out, ok := t.lost(cause); ok {
			return out
		}
		taskID := t.task()
		if why == consumedError || attempt >= 2 {
			break
		}
		t.env.Log.Info("the stream ended before the turn did; reattaching", "task", taskID, "cause", errString(cause))
		t.show(t.r.Notices.Say(render.ReconnectingNotice()))
		var err error
		t.staleFirst = false // a reattach's first frame is the task now
		s, err = t.env.Client.Resubscribe(t.ctx, taskID)
		if err != nil {
			t.env.Log.Info("reattach refused; reading the task back", "task", taskID, "err", err)
			break
		}
	}
	return t.readBack()
}

// elsewhereMax bounds the times one turn follows a task whose park was
// answered elsewhere (a server whose summary and task disagree).
const elsewhereMax = 3

// rejoin follows the task after its park was answered elsewhere: a new
// stream of it, else what it is now (read back).
func (t *Turn) rejoin() outcome {
	if t.isCancelled() {
		return outcome{stop: acp.StopCancelled}
	}
	s, err := t.env.Client.Resubscribe(t.ctx, t.task())
	if err != nil {
		t.env.Log.Info("reattach refused; reading the task back", "task", t.task(), "err", err)
		return t.readBack()
	}
	t.staleFirst = false // a reattach's first frame is the task now
	return t.follow(s)
}

// lost is the outcome of a stream lost before the turn's end when there
// is no task to reattach to (or no need); false to reattach.
func (t *Turn) lost(cause error) (outcome, bool) {
	switch {
	case t.isCancelled():
		return outcome{stop: acp.StopCancelled}, true
	case t.authRequired:
		return outcome{stop: acp.StopEndTurn}, true
	case t.task() != "":
		return outcome{}, false
	case t.gotMessage:
		return outcome{stop: acp.StopEndTurn}, true
	case cause != nil:
		return outcome{err: t.env.Host.CallError(cause, "")}, true
	}
	return outcome{err: render.Error(t.env.Agent+": the stream ended before the agent started a task", "unknown", "", "")}, true
}

func errString(err error) string {
	if err == nil {
		return "end of stream"
	}
	return err.Error()
}

// consume reads a stream until the turn's outcome is known or the stream
// ends without one. Each event is done with before the next is read, so
// the stream shares (Stream.Share): a streamed chunk's decode allocates
// nothing.
func (t *Turn) consume(s *a2aclient.Stream) (outcome, consumeResult, error) {
	t.lastSnap = nil
	s.Share()
	for {
		ev, err := s.Next()
		if err != nil {
			return t.streamError(err)
		}
		if !t.mine(&ev) {
			continue
		}
		out, done := t.frame(&ev)
		t.staleFirst = false
		if done {
			return out, consumedEnd, nil
		}
	}
}

// mine reports whether a frame is of the turn: of its session's context
// and of its task, once the server named one (another client's turn on
// the same thread is not).
func (t *Turn) mine(ev *a2a.Event) bool {
	if ev.ContextID != "" && ev.ContextID != t.sess.id {
		t.env.Log.Debug("ignoring a frame of another context", "context", ev.ContextID)
		return false
	}
	if known := t.ownTask; known != "" && ev.TaskID != "" && ev.TaskID != known {
		t.env.Log.Debug("ignoring a frame of another task", "task", ev.TaskID, "turn task", known)
		return false
	}
	return true
}

// streamError is what a stream's error means for the turn.
func (t *Turn) streamError(err error) (outcome, consumeResult, error) {
	if t.isCancelled() {
		return outcome{stop: acp.StopCancelled}, consumedEnd, nil
	}
	var rpc *a2a.RPCError
	if errors.As(err, &rpc) {
		if t.task() == "" {
			return outcome{err: t.env.Host.CallError(err, "")}, consumedEnd, nil
		}
		return outcome{}, consumedError, err
	}
	if a2a.IsUnauthorized(err) || errors.Is(err, a2a.ErrTooLarge) {
		return outcome{err: t.env.Host.CallError(err, t.task())}, consumedEnd, nil
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return outcome{}, consumedDropped, err
}

// readBack reads the task after the stream was lost for good.
func (t *Turn) readBack() outcome {
	taskID := t.task()
	task, err := t.env.Client.GetTask(t.ctx, taskID, 0)
	if err != nil {
		if t.isCancelled() {
			return outcome{stop: acp.StopCancelled}
		}
		e := t.env.Host.CallError(err, taskID)
		e.Message = t.env.Agent + ": the stream was lost and the task could not be read back: " + err.Error()
		return outcome{err: e}
	}
	for i := range task.Artifacts {
		t.artifact(&task.Artifacts[i], false)
	}
	if out, ok := t.final(task.Status); ok {
		return out
	}
	return outcome{err: render.Error(t.env.Agent+": the connection was lost while the task was still "+string(task.Status.State)+"; it may finish on its own",
		"working", taskID, "")}
}

// final maps a task's last known status when it is terminal or
// interrupted; ok is false while the task still runs.
func (t *Turn) final(st a2a.Status) (outcome, bool) {
	switch st.State {
	case a2a.StateCompleted, a2a.StateCanceled, a2a.StateRejected, a2a.StateFailed, a2a.StateInputRequired:
		out, _ := t.status(st)
		return out, true
	case a2a.StateAuthRequired:
		t.status(st)
		return outcome{stop: acp.StopEndTurn}, true
	}
	return outcome{}, false
}
