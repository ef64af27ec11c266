package turn

// The driver's run (frames.go holds the driver): the wait for a busy chat,
// then the turn's streams read, the events of the answer mapped one by
// one (frames.go), reattaching when a stream drops, reading the task back
// when it cannot; at the end the open calls settled, the turn recorded.

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/failure"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/bridge/render/session"
)

// run runs the turn once its session's previous turn is over and returns
// how it ended: it waits for a chat busy elsewhere, names the thread,
// drives the streams, settles the calls still open, records the turn in
// the thread index and reports the context use.
func (d *driver) run() outcome {
	w := idleWait{ctx: d.ctx, env: d.env, sess: d.sess, ctl: d.ctl, r: d.r, msg: &d.msg}
	if out, ok := w.wait(); !ok { // a chat busy elsewhere (busy.go)
		return out
	}
	if d.title != "" {
		d.ctl.Emit(session.Title(d.title, time.Now()))
	}
	d.checkEarlier() // in parallel with the message (refused.go)
	out := d.drive()
	d.ctl.Show(d.r.Snapshots.NoteBeforeAnswer()) // a note still held when the turn ends
	for _, o := range d.r.Tools.Settle(callStatus(out)) {
		d.ctl.emitSettled(o.Update())
	}
	failed := ""
	if out.err != nil {
		failed = d.r.Answer.FailedText()
	}
	d.env.Thread.Record(d.sess, d.title, d.ctl.task(), failed)
	d.usageUpdate()
	out.usage = d.usage
	return out
}

// usageUpdate reports the context use when the window is known.
func (d *driver) usageUpdate() {
	size := d.env.ContextWindow
	if d.ctxInfo != nil && d.ctxInfo.Window > 0 {
		size = d.ctxInfo.Window
	}
	if size <= 0 || (d.usage == nil && d.ctxInfo == nil) {
		return
	}
	var used int64
	switch {
	case d.ctxInfo != nil && d.ctxInfo.Tokens > 0:
		used = d.ctxInfo.Tokens
	case d.usage != nil:
		used = d.usage.InputTokens
	default:
		return
	}
	d.ctl.Emit(session.Usage(used, size, d.sess.cost()))
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
func (d *driver) drive() outcome {
	msg := d.msg
	for {
		d.sentBypass = msg.Bypass
		// A resumed task's first frame is its stale parked snapshot.
		d.staleFirst = msg.TaskID != ""
		if d.ctx.Err() != nil {
			return outcome{stop: acp.StopCancelled} // given up before sending: nothing is sent
		}
		sctx, end := d.streamContext()
		s, err := d.env.Client.Stream(sctx, msg)
		if err != nil {
			end()
			if d.ctl.GivenUp() {
				return outcome{stop: acp.StopCancelled}
			}
			return outcome{err: d.env.Replies.CallError(err, d.ctl.task())}
		}
		out := d.follow(s)
		end()
		for n := 0; out.elsewhere; n++ {
			if n >= elsewhereMax {
				d.env.Log.Info("the park keeps being answered elsewhere; ending the turn", "task", d.ctl.task())
				out = outcome{stop: acp.StopEndTurn}
				break
			}
			out = d.rejoin()
		}
		for {
			if out.resume == nil && out.err == nil && out.stop == acp.StopEndTurn {
				out.resume = d.steers.settle(d.ctx)
			} else if out.resume == nil {
				d.steers.drop(d.ctx)
			}
			// A native steer taken while the steers were settled is
			// settled too; then no more are taken.
			if out.resume != nil || d.steers.close() {
				break
			}
		}
		if out.resume == nil {
			return out
		}
		msg = *out.resume
		d.authRequired = false
		if msg.TaskID == "" {
			// A steer run as the next turn starts a task of its own.
			d.resetTask()
		}
	}
}

// taskWait bounds how long a turn given up before the agent named its
// task reads its stream on to learn the task.
const taskWait = 10 * time.Second

// streamContext is the context of a stream the turn opens with its
// message: it ends with the turn, except that a turn given up before the
// agent named its task reads on until a frame names it (setTask then
// cancels the task on the agent and ends the stream), at most taskWait: a
// cancel that comes before the task's first frame still cancels the task.
func (d *driver) streamContext() (context.Context, context.CancelFunc) {
	root := d.streams
	if root == nil {
		root = d.ctx
	}
	ctx, cancel := context.WithCancel(root)
	stop := context.AfterFunc(d.ctx, func() {
		if d.ctl.task() != "" {
			cancel()
			return
		}
		t := time.AfterFunc(taskWait, cancel)
		context.AfterFunc(ctx, func() { t.Stop() })
	})
	d.endStream = cancel
	return ctx, func() {
		stop()
		cancel()
		d.endStream = nil
	}
}

// follow reads a stream to the outcome, reattaching when it drops and
// reading the task back when it cannot.
func (d *driver) follow(s *a2aclient.Stream) outcome {
	for attempt := 0; ; attempt++ {
		out, why, cause := d.consume(s)
		s.Close()
		if why == consumedEnd {
			return out
		}
		if snap := d.lastSnap; why == consumedDropped && snap != nil {
			// A snapshot streamer's stream ends on its last snapshot.
			if out, ok := d.final(*snap); ok {
				return out
			}
		}
		if out, ok := d.lost(cause); ok {
			return out
		}
		taskID := d.ctl.task()
		if why == consumedError || attempt >= 2 {
			break
		}
		d.env.Log.Info("the stream ended before the turn did; reattaching", "task", taskID, "cause", errString(cause))
		d.ctl.Show(d.r.Notices.Say(notice.ReconnectingNotice()))
		var err error
		d.staleFirst = false // a reattach's first frame is the task now
		s, err = d.env.Client.Resubscribe(d.ctx, taskID)
		if err != nil {
			d.env.Log.Info("reattach refused; reading the task back", "task", taskID, "err", err)
			break
		}
	}
	return d.readBack()
}

// elsewhereMax bounds the times one turn follows a task whose park was
// answered elsewhere (a server whose summary and task disagree).
const elsewhereMax = 3

// rejoin follows the task after its park was answered elsewhere: a new
// stream of it, else what it is now (read back).
func (d *driver) rejoin() outcome {
	if d.ctl.GivenUp() {
		return outcome{stop: acp.StopCancelled}
	}
	s, err := d.env.Client.Resubscribe(d.ctx, d.ctl.task())
	if err != nil {
		d.env.Log.Info("reattach refused; reading the task back", "task", d.ctl.task(), "err", err)
		return d.readBack()
	}
	d.staleFirst = false // a reattach's first frame is the task now
	return d.follow(s)
}

// lost is the outcome of a stream lost before the turn's end when there
// is no task to reattach to (or no need); false to reattach.
func (d *driver) lost(cause error) (outcome, bool) {
	switch {
	case d.ctl.GivenUp():
		return outcome{stop: acp.StopCancelled}, true
	case d.authRequired:
		return outcome{stop: acp.StopEndTurn}, true
	case d.ctl.task() != "":
		return outcome{}, false
	case d.gotMessage:
		return outcome{stop: acp.StopEndTurn}, true
	case cause != nil:
		return outcome{err: d.env.Replies.CallError(cause, "")}, true
	}
	return outcome{err: failure.Error(d.env.Agent+": the stream ended before the agent started a task", "unknown", "", "")}, true
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
func (d *driver) consume(s *a2aclient.Stream) (outcome, consumeResult, error) {
	d.lastSnap = nil
	s.Share()
	for {
		ev, err := s.Next()
		if err != nil {
			return d.streamError(err)
		}
		if !d.mine(&ev) {
			continue
		}
		out, done := d.frame(&ev)
		d.staleFirst = false
		if done {
			return out, consumedEnd, nil
		}
	}
}

// mine reports whether a frame is of the turn: of its session's context
// and of its task, once the server named one (another client's turn on
// the same thread is not).
func (d *driver) mine(ev *a2a.Event) bool {
	if ev.ContextID != "" && ev.ContextID != d.sess.id {
		d.env.Log.Debug("ignoring a frame of another context", "context", ev.ContextID)
		return false
	}
	if known := d.ownTask; known != "" && ev.TaskID != "" && ev.TaskID != known {
		d.env.Log.Debug("ignoring a frame of another task", "task", ev.TaskID, "turn task", known)
		return false
	}
	return true
}

// streamError is what a stream's error means for the turn.
func (d *driver) streamError(err error) (outcome, consumeResult, error) {
	if d.ctl.GivenUp() {
		return outcome{stop: acp.StopCancelled}, consumedEnd, nil
	}
	var rpc *a2a.RPCError
	if errors.As(err, &rpc) {
		if d.ctl.task() == "" {
			return outcome{err: d.env.Replies.CallError(err, "")}, consumedEnd, nil
		}
		return outcome{}, consumedError, err
	}
	if a2a.IsUnauthorized(err) || errors.Is(err, a2a.ErrTooLarge) {
		return outcome{err: d.env.Replies.CallError(err, d.ctl.task())}, consumedEnd, nil
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return outcome{}, consumedDropped, err
}

// readBack reads the task after the stream was lost for good.
func (d *driver) readBack() outcome {
	taskID := d.ctl.task()
	task, err := d.env.Client.GetTask(d.ctx, taskID, 0)
	if err != nil {
		if d.ctl.GivenUp() {
			return outcome{stop: acp.StopCancelled}
		}
		e := d.env.Replies.CallError(err, taskID)
		e.Message = d.env.Agent + ": the stream was lost and the task could not be read back: " + err.Error()
		return outcome{err: e}
	}
	for i := range task.Artifacts {
		d.artifact(&task.Artifacts[i], false)
	}
	if out, ok := d.final(task.Status); ok {
		return out
	}
	return outcome{err: failure.Error(d.env.Agent+": the connection was lost while the task was still "+string(task.Status.State)+"; it may finish on its own",
		"working", taskID, "")}
}

// final maps a task's last known status when it is terminal or
// interrupted; ok is false while the task still runs.
func (d *driver) final(st a2a.Status) (outcome, bool) {
	switch st.State {
	case a2a.StateCompleted, a2a.StateCanceled, a2a.StateRejected, a2a.StateFailed, a2a.StateInputRequired:
		out, _ := d.status(st)
		return out, true
	case a2a.StateAuthRequired:
		d.status(st)
		return outcome{stop: acp.StopEndTurn}, true
	}
	return outcome{}, false
}

// callStatus is the status the calls still open at the turn's end get.
func callStatus(out outcome) acp.ToolStatus {
	if out.err == nil && out.stop == acp.StopEndTurn {
		return acp.ToolCompleted
	}
	return acp.ToolFailed
}
