package bridge

// Reading a turn's streams: the events of the answer mapped one by one,
// reattaching when a stream drops, reading the task back when it cannot.

import (
	"errors"
	"io"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/transport"
	"github.com/shimdev/shim/acp"
)

// consumeResult is why consume returned.
type consumeResult uint8

const (
	consumedEnd     consumeResult = iota // a final outcome is known
	consumedDropped                      // the stream ended, broke or stalled without one
	consumedError                        // an error frame after the task was known
)

// drive runs the turn and returns how it ended. An answered approval
// resumes the task with a new stream, in the same turn.
func (t *turn) drive() outcome {
	msg := t.msg
	for {
		t.sentBypass = msg.Bypass
		// A resumed task's first frame is its stale parked snapshot.
		t.staleFirst = msg.TaskID != ""
		stream, err := t.client.Stream(t.ctx, msg)
		if err != nil {
			if t.isCancelled() {
				return outcome{stop: acp.StopCancelled}
			}
			return outcome{err: t.srv.callError(err, t.task())}
		}
		out := t.follow(stream)
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
			t.mu.Lock()
			t.taskID = ""
			t.mu.Unlock()
		}
	}
}

// follow reads a stream to the outcome, reattaching when it drops and
// reading the task back when it cannot.
func (t *turn) follow(stream *transport.Stream) outcome {
	for attempt := 0; ; attempt++ {
		out, why, cause := t.consume(stream)
		stream.Close()
		if why == consumedEnd {
			return out
		}
		if snap := t.lastSnap; why == consumedDropped && snap != nil {
			// A snapshot streamer's stream ends on its last snapshot.
			if out, ok := t.final(*snap); ok {
				return out
			}
		}
		if t.isCancelled() {
			return outcome{stop: acp.StopCancelled}
		}
		if t.authRequired {
			return outcome{stop: acp.StopEndTurn}
		}
		taskID := t.task()
		if taskID == "" {
			if t.gotMessage {
				return outcome{stop: acp.StopEndTurn}
			}
			if cause != nil {
				return outcome{err: t.srv.callError(cause, "")}
			}
			return outcome{err: acp.NewError(acp.CodeInternal, t.agent+": the stream ended before the agent started a task",
				stateData("unknown", "", ""))}
		}
		if why == consumedError || attempt >= 2 {
			break
		}
		t.srv.log.Info("the stream ended before the turn did; reattaching", "task", taskID, "cause", errString(cause))
		var err error
		t.staleFirst = false // a reattach's first frame is the task now
		stream, err = t.client.Resubscribe(t.ctx, taskID)
		if err != nil {
			t.srv.log.Info("reattach refused; reading the task back", "task", taskID, "err", err)
			break
		}
	}
	return t.readBack()
}

func errString(err error) string {
	if err == nil {
		return "end of stream"
	}
	return err.Error()
}

// consume reads a stream until the turn's outcome is known or the stream
// ends without one.
func (t *turn) consume(stream *transport.Stream) (outcome, consumeResult, error) {
	t.lastSnap = nil
	for {
		ev, err := stream.Next()
		if err != nil {
			if t.isCancelled() {
				return outcome{stop: acp.StopCancelled}, consumedEnd, nil
			}
			var rpc *a2a.RPCError
			if errors.As(err, &rpc) {
				if t.task() == "" {
					return outcome{err: acp.NewError(acp.CodeInternal, t.agent+": "+errText(rpc.Text()), reasonData(stateData("failed", "", rpc.Message), rpc))}, consumedEnd, nil
				}
				return outcome{}, consumedError, err
			}
			if a2a.IsUnauthorized(err) || errors.Is(err, a2a.ErrTooLarge) {
				return outcome{err: t.srv.callError(err, t.task())}, consumedEnd, nil
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return outcome{}, consumedDropped, err
		}
		if ev.ContextID != "" && ev.ContextID != t.sess.id {
			t.srv.log.Debug("ignoring a frame of another context", "context", ev.ContextID)
			continue
		}
		if known := t.task(); known != "" && ev.TaskID != "" && ev.TaskID != known {
			// Another client's turn on the same thread.
			t.srv.log.Debug("ignoring a frame of another task", "task", ev.TaskID, "turn task", known)
			continue
		}
		out, done := t.handle(ev)
		t.staleFirst = false
		if done {
			return out, consumedEnd, nil
		}
	}
}

// handle maps one event; done reports that the turn's outcome is known.
func (t *turn) handle(ev a2a.Event) (outcome, bool) {
	t.setTask(ev.TaskID)
	first := t.r.firstFrame(t.task())
	switch ev.Kind {
	case a2a.EventTask:
		// A snapshot's state never ends a turn (turn_snapshot.go).
		if ev.Task != nil {
			t.snapshot(ev.Task, first)
		}
		return outcome{}, false
	case a2a.EventArtifact:
		t.artifact(ev.Artifact, ev.Append)
		return outcome{}, false
	case a2a.EventMessage:
		if ev.Message != nil && !ev.Message.FromUser() {
			t.gotMessage = true
			t.message(ev.Message)
		}
		return outcome{}, false
	case a2a.EventStatus:
		t.lastSnap = nil
		return t.status(ev.Status)
	}
	return outcome{}, false
}

// message shows an agent message: its thoughts, tools and text.
func (t *turn) message(m *a2a.Message) {
	t.noteBeforeAnswer()
	t.r.seen(t.task(), m)
	t.show(t.r.thoughts(m))
	for _, tc := range m.ToolCalls() {
		t.tool(tc)
	}
	t.showStatusText(m.Text())
}

// status maps a status update.
func (t *turn) status(st a2a.Status) (outcome, bool) {
	switch st.State {
	case a2a.StateWorking, a2a.StateSubmitted, a2a.StateUnknown:
		// A new status text replaced the held one: that one did not grow
		// in place, it was a note.
		if st.Message.Text() != "" {
			t.noteBeforeAnswer()
		}
	default:
		t.settleNoteAt(st)
	}
	m := st.Message
	if m != nil {
		t.r.seen(t.task(), m)
		t.show(t.r.thoughts(m))
		for _, tc := range st.ToolCalls() { // a park's data parts are its own
			t.tool(tc)
		}
		t.steersConsumed(m.SteersConsumed())
	}
	text := m.Text()
	switch st.State {
	case a2a.StateCompleted:
		switch {
		case t.r.statusShown:
			t.show(t.r.statusReplace(t.task(), m))
		case !t.r.artifactText:
			t.showStatusText(text)
		}
		return outcome{stop: acp.StopEndTurn}, true
	case a2a.StateCanceled:
		return outcome{stop: acp.StopCancelled}, true
	case a2a.StateRejected:
		t.showStatusText(text)
		return outcome{stop: acp.StopRefusal}, true
	case a2a.StateFailed:
		return t.failed(text), true
	case a2a.StateInputRequired:
		return t.park(m), true
	case a2a.StateAuthRequired:
		t.authRequired = true
		if text == "" {
			text = "The agent needs you to authenticate with it before it can go on."
		}
		if m.Hitl() == nil {
			d := m.ParkData()
			t.parkCard(d)
			text += dataBlock(d)
		}
		t.showStatusText(text)
		return outcome{}, false
	default:
		t.show(t.r.progressNote(text))
	}
	return outcome{}, false
}

// failed shows the failed-turn line and builds its error.
func (t *turn) failed(detail string) outcome {
	outs, f := t.r.failure(detail)
	t.show(outs)
	return outcome{err: acp.NewError(acp.CodeInternal, t.agent+": "+errText(f), map[string]any{"state": "failed", "taskId": t.task(), "detail": errDetail(detail)})}
}

// readBack reads the task after the stream was lost for good.
func (t *turn) readBack() outcome {
	taskID := t.task()
	task, err := t.client.GetTask(t.ctx, taskID, 0)
	if err != nil {
		if t.isCancelled() {
			return outcome{stop: acp.StopCancelled}
		}
		e := t.srv.callError(err, taskID)
		e.Message = t.agent + ": the stream was lost and the task could not be read back: " + err.Error()
		return outcome{err: e}
	}
	for i := range task.Artifacts {
		t.artifact(&task.Artifacts[i], false)
	}
	if out, ok := t.final(task.Status); ok {
		return out
	}
	return outcome{err: acp.NewError(acp.CodeInternal,
		t.agent+": the connection was lost while the task was still "+string(task.Status.State)+"; it may finish on its own",
		stateData("working", taskID, ""))}
}

// final maps a task's last known status when it is terminal or
// interrupted; ok is false while the task still runs.
func (t *turn) final(st a2a.Status) (outcome, bool) {
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
