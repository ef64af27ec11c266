package turn

// The driver, and a stream's frames (A2A events) through its renderer:
// what each shows and whether it ends the turn; a park asked of the
// person (package ask). The driver and its renderer are the turn
// goroutine's alone; what it renders is routed by the machine
// (control.Show).

import (
	"context"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/bridge/turn/ask"
)

// A driver runs a turn on the turn's goroutine, which alone uses it: it
// sends the message, reads the answer's streams and renders their
// frames; what it renders goes out through the turn's control.
type driver struct {
	ctx context.Context
	// streams is the root of the turn's streams' contexts (with ctx's
	// values; nil: ctx); endStream ends the stream read now
	// (streamContext).
	streams   context.Context
	endStream context.CancelFunc
	env       *Env
	sess      *Session
	ctl       *control
	steers    *steers
	ask       *ask.Asker
	r         *render.Renderer // the turn's a2a values as updates
	msg       a2a.OutMessage
	title     string

	// ownTask is the driver's copy of the machine's task id, which only
	// the driver writes (setTask, resetTask): read without the control's
	// lock for each frame.
	ownTask string
	stream
	// sentBypass is set when the message the turn's stream answers asked
	// to bypass approvals.
	sentBypass bool
	usage      *a2a.Usage
	ctxInfo    *a2a.ContextInfo
}

func newDriver(ctx context.Context, env *Env, sess *Session, ctl *control, st *steers, r *render.Renderer, msg a2a.OutMessage, title string) *driver {
	a := &ask.Asker{Conn: env.Conn, Client: env.Client, Session: sess.id, Forms: env.Draws.Forms, Poll: env.busyPoll(),
		Log: env.Log, R: r, Out: ctl, Prompt: ctl, Mode: mode{env: env, sess: sess, ctl: ctl}}
	return &driver{ctx: ctx, env: env, sess: sess, ctl: ctl, steers: st, ask: a, r: r, msg: msg, title: title}
}

// setTask records the task id the server gave the turn.
func (d *driver) setTask(id string) {
	if d.ownTask != "" || id == "" {
		return // what machine.task would say, without the lock
	}
	first, cancel := d.ctl.claim(id)
	if !first {
		return
	}
	d.ownTask = id
	d.env.Log.Debug("the agent started a task", "session", d.sess.id, "task", id)
	d.env.Shown.Claim(id) // shown live: never replayed
	if cancel {
		// The cancel came before the server named the task: the stream
		// was read on only to learn it.
		go d.env.cancelGivenUp(d.ctx, d.sess, d.sess.cancelling(id))
		if d.endStream != nil {
			d.endStream()
		}
	}
	// The index learns the task when the turn ends (Thread.Record).
}

// resetTask forgets the task: a steer run as the next message starts a
// task of its own.
func (d *driver) resetTask() {
	d.ctl.resetTask()
	d.ownTask = ""
}

// stream is what the driver keeps of the stream it reads.
type stream struct {
	gotMessage   bool
	authRequired bool
	// staleFirst: the stream's first frame, a snapshot, is the resumed
	// task's stale one; lastSnap is the status of the stream's last frame
	// when that was a snapshot.
	staleFirst bool
	lastSnap   *a2a.Status
	// lateNote: a status text after the task's first frame was held (said
	// once in the log).
	lateNote bool
	// earlier is the session's earlier turn given up whose cancel the
	// agent may have refused; earlierCheck its check, until said
	// (refused.go).
	earlier      *earlier
	earlierCheck stillFinishing
}

// frame maps one event; done reports that the turn's outcome is known.
func (d *driver) frame(ev *a2a.Event) (outcome, bool) {
	d.sayEarlier()
	d.setTask(ev.TaskID)
	first := d.r.Snapshots.FirstFrame(d.ownTask)
	switch ev.Kind {
	case a2a.EventTask:
		// A snapshot's state never ends a turn.
		if ev.Task != nil {
			d.snapshot(ev.Task, first)
		}
	case a2a.EventArtifact:
		d.artifact(ev.Artifact, ev.Append)
	case a2a.EventMessage:
		if ev.Message != nil && !ev.Message.FromUser() {
			d.gotMessage = true
			d.message(ev.Message)
		}
	case a2a.EventStatus:
		d.lastSnap = nil
		return d.status(ev.Status)
	}
	return outcome{}, false
}

// message shows an agent message: its thoughts, tools and text.
func (d *driver) message(m *a2a.Message) {
	d.ctl.Show(d.r.Snapshots.NoteBeforeAnswer())
	d.r.Snapshots.Seen(d.ctl.task(), m)
	d.ctl.Show(d.r.Answer.Thoughts(d.ctl.task(), m))
	for _, tc := range m.ToolCalls() {
		d.tool(tc)
	}
	d.ctl.Show(d.r.Answer.StatusAnswer(d.r.Answer.MessageID(d.ctl.task(), m), m.Text()))
}

// status maps a status update.
func (d *driver) status(st a2a.Status) (outcome, bool) {
	m := st.Message
	switch st.State {
	case a2a.StateWorking, a2a.StateSubmitted, a2a.StateUnknown:
		// A new status text replaced the held one: that one did not grow
		// in place, it was a note.
		if m.Text() != "" {
			d.ctl.Show(d.r.Snapshots.NoteBeforeAnswer())
		}
	default:
		if d.r.Snapshots.ResentInStatus(st) {
			d.env.Client.Departed(a2a.DepartureAnswerResentInHistory, "task", d.ctl.task(), "state", string(st.State))
		}
		d.ctl.Show(d.r.Snapshots.EndNote(st))
	}
	if m != nil {
		d.r.Snapshots.Seen(d.ctl.task(), m)
		d.ctl.Show(d.r.Answer.Thoughts(d.ctl.task(), m))
		for _, tc := range st.ToolCalls() { // a park's data parts are its own
			d.tool(tc)
		}
		d.steers.read(m.SteersConsumed())
	}
	switch st.State {
	case a2a.StateCompleted:
		switch {
		case d.r.Answer.StatusAnswered():
			d.ctl.Show(d.r.Snapshots.StatusReplace(d.ctl.task(), m))
		case !d.r.Answer.ArtifactAnswered():
			d.ctl.Show(d.r.Answer.StatusAnswer(d.r.Answer.MessageID(d.ctl.task(), m), m.Text()))
		}
		return outcome{stop: acp.StopEndTurn}, true
	case a2a.StateCanceled:
		return outcome{stop: acp.StopCancelled}, true
	case a2a.StateRejected:
		d.ctl.Show(d.r.Answer.StatusAnswer(d.r.Answer.MessageID(d.ctl.task(), m), m.Text()))
		return outcome{stop: acp.StopRefusal}, true
	case a2a.StateFailed:
		return outcome{err: d.r.Answer.Failure(d.ctl.task(), m)}, true
	case a2a.StateInputRequired:
		return d.park(m), true
	case a2a.StateAuthRequired:
		d.authRequired = true
		d.needRootsFor(m.ParkData())
		d.ctl.Show(d.r.AuthRequired(d.ctl.task(), m))
	default:
		d.ctl.Show(d.r.Snapshots.StatusNote(d.ctl.task(), m))
	}
	return outcome{}, false
}

// artifact shows an artifact's parts, and keeps its usage and context.
func (d *driver) artifact(a *a2a.Artifact, appendMode bool) {
	if a == nil {
		return
	}
	// (The copies inside the ifs keep a chunk without usage or context
	// from allocating them.)
	if u, ok := a.Usage(); ok {
		u := u
		d.usage = &u
		d.sess.addCost(u.CostUSD)
	}
	if c, ok := a.Context(); ok {
		c := c
		d.ctxInfo = &c
	}
	if render.ArtifactShows(a) {
		d.ctl.Show(d.r.Snapshots.NoteBeforeAnswer())
	}
	d.ctl.Show(d.r.Answer.Artifact(d.ownTask, a, appendMode))
}

// snapshot shows a task snapshot of a stream (SPEC §12.4) like replaced
// artifacts: its history's agent messages not shown yet (as a working
// status update's would be), its artifacts, and its status message's
// agent text as answer text, each only for what was not shown yet. A
// resumed task's stale first frame is not shown, only taken as shown.
// The first working status text of the task, in any frame (first: the
// task's first), may be a progress note: it is held until the next frame
// tells (SPEC §12.8, §16).
func (d *driver) snapshot(task *a2a.Task, first bool) {
	taskID := d.ctl.task()
	if d.staleFirst {
		d.r.Snapshots.Seed(taskID, task)
		return
	}
	st := task.Status
	d.lastSnap = &st
	d.ctl.Show(d.r.Snapshots.SnapshotNote(taskID, task))
	for _, m := range render.NewHistory(task) {
		if d.r.Snapshots.Answered(taskID, m) {
			d.ctl.Show(d.r.Snapshots.StatusReplace(taskID, m))
			continue
		}
		outs, held := d.r.Snapshots.HoldHistory(taskID, task, m)
		d.ctl.Show(outs)
		if !held && !d.r.Snapshots.Seen(taskID, m) {
			d.status(a2a.Status{State: a2a.StateWorking, Message: m})
		}
	}
	for i := range task.Artifacts {
		if a := &task.Artifacts[i]; d.r.Snapshots.SnapArtifact(taskID, a) {
			d.artifact(a, false)
		}
	}
	held := d.r.Snapshots.Holding(taskID)
	d.ctl.Show(d.r.Snapshots.SnapshotStatus(taskID, st))
	if !first && !held && d.r.Snapshots.Holding(taskID) && !d.lateNote {
		// SPEC §16, progress notes anywhere in the task: held as one
		// that opens the task would be.
		d.lateNote = true
		d.env.Log.Info("the agent sent a status text after its task's first frame; holding it one frame as a progress note", "task", taskID)
	}
}

// tool shows one tool-call event and learns the project roots from a
// list_projects that completed.
func (d *driver) tool(tc a2a.ToolCall) {
	d.needRoots(tc)
	d.ctl.Show(d.r.Tools.Tool(tc))
	if tc.Phase == a2a.PhaseCompleted && d.r.Tools.ToolName(tc.ID) == "list_projects" && d.env.Roots != nil {
		d.env.Roots.Learn(tc.Result)
		d.r.Tools.SetRoots(toolpath.RootsOf(d.env.Roots, d.sess.cwd, d.sess.Dirs()))
	}
}

// needRoots reloads the project roots when a call names a project the
// roots the renderer has do not know (at most once per name in a while,
// roots.Map.ReloadFor), and gives the renderer the new roots.
func (d *driver) needRoots(tc a2a.ToolCall) {
	if p := d.r.Tools.Unknown(tc); p != "" && d.env.Roots.ReloadFor(d.ctx, p) {
		d.r.Tools.SetRoots(toolpath.RootsOf(d.env.Roots, d.sess.cwd, d.sess.Dirs()))
	}
}

// needRootsFor is needRoots for the tool call a park's data names.
func (d *driver) needRootsFor(pd *a2a.ParkData) {
	if pd != nil && pd.Tool != nil {
		d.needRoots(*pd.Tool)
	}
}

// park asks the person what a task in input-required asks: an approval
// in a permission dialog whose answer resumes the task in the same turn;
// a question or a form as the editor's own forms when it shows them
// (SPEC §11.3), else shown as text and answered by the next prompt.
func (d *driver) park(m *a2a.Message) outcome {
	var res ask.Result
	if h := m.Hitl(); h != nil && h.Kind == a2a.HitlApproval {
		res = d.ask.Approval(d.ctx, h, ask.Case{TaskID: d.ctl.task(), Bypass: d.sess.Settings().Bypass, SentBypass: d.sentBypass})
	} else {
		if h == nil {
			d.needRootsFor(m.ParkData())
		}
		res = d.ask.Question(d.ctx, d.ctl.task(), m)
	}
	switch {
	case res.Resume != nil:
		return outcome{resume: d.sess.Intents(res.Resume)}
	case res.Elsewhere:
		return outcome{elsewhere: true}
	case res.GivenUp:
		return outcome{stop: acp.StopCancelled}
	}
	d.sess.SetPark(d.ctl.task())
	return outcome{stop: acp.StopEndTurn}
}

// mode is the session's permissions mode as an approval changes it
// (ask.Mode).
type mode struct {
	env  *Env
	sess *Session
	ctl  *control
}

// AllowCommands puts the session in allow-commands and tells the editor
// when that changed it.
func (m mode) AllowCommands() {
	if m.sess.SetBypass(true) {
		m.env.Log.Info("session mode set by the permission dialog", "session", m.sess.id, "mode", "allow-commands")
		m.env.Modes.ModeChanged(m.sess, m.ctl.Emit)
	}
}

// TellNoSkip reports whether the person is still to be told that the
// server does not let approvals be skipped (once per session).
func (m mode) TellNoSkip() bool { return m.sess.tellNoSkip() }
