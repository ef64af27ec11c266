package turn

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/steer"
)

// Env is what a turn needs of the server it runs in.
type Env struct {
	Conn   *stdio.Conn
	Client *a2aclient.Client
	// Agent is the agent's name, as the editor is shown it.
	Agent string
	// Roots are the project roots; Shown what this process showed of the
	// session's thread (a turn's task is never replayed).
	Roots *roots.Map
	Shown *history.Shown
	Log   *slog.Logger
	// Grace is the window after a cancel in which a prompt steers the
	// turn (0: none).
	Grace time.Duration
	// ContextWindow is the remote model's context window, 0 when unknown.
	ContextWindow int64
	// BusyTimeout bounds the wait for a chat busy elsewhere (0: 120 s);
	// BusyPoll is how often it is polled (0: every 2 s).
	BusyTimeout, BusyPoll time.Duration
	// Draws is what the client draws: elicitation forms, command calls
	// as terminals, notices (SPEC §11.3, §11.6, §14).
	Draws render.Draws
	Host  Host
}

// Host is the server side of a turn.
type Host interface {
	// Reply answers a request (never waiting on the editor).
	Reply(req *acp.Request, result any, err error)
	// CallError maps an A2A client error to the ACP error a request
	// fails with.
	CallError(err error, taskID string) *acp.Error
	// Open reports whether the session is still open (not closed).
	Open(s *Session) bool
	// Meanwhile shows the turns of the session's thread that finished
	// while the turn waited for a busy chat.
	Meanwhile(ctx context.Context, s *Session, emit func(acp.Update))
	// Record writes what the turn taught the thread index (its title,
	// its task), once its stream is over (SPEC §8).
	Record(s *Session, title, taskID string)
	// ModeChanged tells the editor of a mode change the turn made (the
	// permission dialog's "Allow for this session").
	ModeChanged(s *Session, emit func(acp.Update))
}

// A Turn is one exchange with the remote agent: it sends one message and
// maps the events of the answer (and of any reattach) onto session
// updates. A turn can outlive its prompt: Send Now detaches it from the
// cancelled prompt and hands it to the next one. Who receives its output
// at each moment (a prompt, the buffer, nobody) is its machine's phase.
type Turn struct {
	env   Env
	sess  *Session
	msg   a2a.OutMessage
	title string
	prev  *Turn

	// ctx is the turn's own (its prompt's context, with its trace
	// context), cancelled when it is given up or over.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// Under mu: the machine, the grace timer, and the channel closed when
	// the machine's phase next changes.
	m       machine
	timer   *time.Timer
	changed chan struct{}

	// Only the turn's own goroutine touches the fields below.
	r *render.Renderer // the turn's a2a values as updates
	// ownTask is the turn goroutine's copy of m.taskID, which only that
	// goroutine writes (setTask, resetTask): read without t.mu for each
	// frame (task() is for the other goroutines).
	ownTask string
	stream
	// sentBypass is set when the message the turn's stream answers asked
	// to bypass approvals.
	sentBypass bool
	usage      *a2a.Usage
	ctxInfo    *a2a.ContextInfo
}

// outcome is how a stream of the turn ended: a stop reason, an error, or
// a message that resumes the task (an answered approval) in the same turn.
type outcome struct {
	stop   acp.StopReason
	err    *acp.Error
	resume *a2a.OutMessage
	// elsewhere: the park the turn asked about was answered elsewhere;
	// the turn follows the task from there (reattaching).
	elsewhere bool
}

// bufferMax bounds a detached turn's buffered output.
const bufferMax = 1 << 20

// Start runs a turn of sess for the prompt req: it sends msg once the
// session's previous turn is over; title, when set, names the thread.
// The turn ends with ctx; its A2A calls carry ctx's values (the prompt's
// trace context) and report what the client did on its own (a renewed
// sign-in) as notices.
func Start(ctx context.Context, env Env, sess *Session, req *acp.Request, msg a2a.OutMessage, title string) *Turn {
	ctx = a2a.WithSession(ctx, sess.id) // the turn's calls are made for the session (a platform keeps its state)
	t := &Turn{env: env, sess: sess, msg: msg, title: title, done: make(chan struct{}),
		m: newMachine(req, env.Grace > 0, bufferMax), changed: make(chan struct{})}
	if env.Draws.Notices {
		ctx = a2a.WithReporter(ctx, t.reported)
	}
	t.ctx, t.cancel = context.WithCancel(ctx)
	t.r = render.New(env.Agent, render.RootsOf(env.Roots, sess.cwd, sess.Dirs()), env.Draws)
	sess.mu.Lock()
	t.prev = sess.current
	sess.current = t
	sess.mu.Unlock()
	go t.run()
	return t
}

// Done is closed once the turn's goroutine is over.
func (t *Turn) Done() <-chan struct{} { return t.done }

func (t *Turn) run() {
	defer close(t.done)
	defer t.cancel()
	if t.prev != nil {
		<-t.prev.done
		t.prev = nil // a session's turns must not chain up in memory
	}
	if out, ok := t.waitIdle(); !ok { // a chat busy elsewhere (busy.go)
		t.finish(out)
		return
	}
	if t.title != "" {
		t.emit(render.Title(t.title, time.Now()))
	}
	out := t.drive()
	t.show(t.r.Snapshots.NoteBeforeAnswer()) // a note still held when the turn ends
	for _, o := range t.r.Tools.Settle(callStatus(out)) {
		t.emitSettled(o.Update())
	}
	t.env.Host.Record(t.sess, t.title, t.task())
	t.usageUpdate()
	t.finish(out)
}

// callStatus is the status the calls still open at the turn's end get.
func callStatus(out outcome) acp.ToolStatus {
	if out.err == nil && out.stop == acp.StopEndTurn {
		return acp.ToolCompleted
	}
	return acp.ToolFailed
}

// usageUpdate reports the context use when the window is known.
func (t *Turn) usageUpdate() {
	size := t.env.ContextWindow
	if t.ctxInfo != nil && t.ctxInfo.Window > 0 {
		size = t.ctxInfo.Window
	}
	if size <= 0 || (t.usage == nil && t.ctxInfo == nil) {
		return
	}
	var used int64
	switch {
	case t.ctxInfo != nil && t.ctxInfo.Tokens > 0:
		used = t.ctxInfo.Tokens
	case t.usage != nil:
		used = t.usage.InputTokens
	default:
		return
	}
	t.emit(render.Usage(used, size, t.sess.cost()))
}

// apply hands one event to the machine and does its effects: those that
// never wait (queueing updates and replies, the grace timer) under t.mu,
// so that nothing passes a buffer handed over or a cancel's answer; the
// others (pacing, giving the task up) after.
func (t *Turn) apply(ev event) effects {
	t.mu.Lock()
	fx := t.m.apply(ev)
	taskID := t.m.taskID
	t.queue(fx)
	t.mu.Unlock()
	if len(fx.flush) > 0 {
		t.pace()
	}
	if fx.giveUp {
		if taskID != "" {
			go t.cancelTask(taskID)
		}
		t.cancel()
	}
	return fx
}

// queue does the effects that never wait; t.mu is held.
func (t *Turn) queue(fx effects) {
	if fx.changed {
		close(t.changed)
		t.changed = make(chan struct{})
	}
	if fx.stopTimer && t.timer != nil {
		t.timer.Stop()
	}
	if fx.startTimer {
		gen := t.m.gen
		t.timer = time.AfterFunc(t.env.Grace, func() { t.apply(event{kind: evExpire, gen: gen}) })
	}
	for _, it := range fx.flush {
		t.send(it.Update)
	}
	if len(fx.flush) > 0 {
		t.env.Log.Debug("the steering prompt adopts the turn", "session", t.sess.id, "updates", len(fx.flush))
	}
	if fx.answer != nil {
		t.answer(fx.answer, fx.with)
	}
}

// answer replies to a prompt with the turn's outcome ("cancelled" when
// out is nil); t.mu is held (a reply is queued, never waited for).
func (t *Turn) answer(req *acp.Request, out *outcome) {
	switch {
	case out == nil:
		t.env.Host.Reply(req, acp.PromptResult{StopReason: acp.StopCancelled}, nil)
	case out.err != nil:
		t.env.Host.Reply(req, nil, out.err)
	default:
		res := acp.PromptResult{StopReason: out.stop}
		if u := t.usage; u != nil {
			res.Usage = &acp.UsageTotal{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				TotalTokens: u.InputTokens + u.OutputTokens, CachedReadTokens: u.CacheReadTokens}
		}
		t.env.Host.Reply(req, res, nil)
	}
}

// send queues one update for the editor; false when it cannot be
// delivered.
func (t *Turn) send(u acp.Update) bool {
	if err := t.env.Conn.Send(t.sess.id, u); err != nil {
		t.env.Log.Debug("update not delivered", "err", err)
		return false
	}
	return true
}

// pace waits while the editor is behind on its output.
func (t *Turn) pace() { _ = t.env.Conn.Pace() }

// emit sends an update to whoever owns the turn's output now. The update
// takes its place in the output queue under t.mu (so that it cannot pass
// a buffer being handed over, nor a cancel's answer); the wait for room,
// when the editor is behind, comes after t.mu is let go.
func (t *Turn) emit(u acp.Update) { t.output(event{kind: evOutput, item: bufferItem(u)}) }

// emitSettled is emit for the update that settles an open call: a turn
// given up after its grace window still ends its calls in the editor
// (unless the session was closed).
func (t *Turn) emitSettled(u acp.Update) {
	t.output(event{kind: evOutput, item: bufferItem(u), settles: true, open: t.env.Host.Open(t.sess)})
}

func (t *Turn) output(ev event) {
	t.mu.Lock()
	sent := t.m.apply(ev).deliver && t.send(ev.item.Update)
	t.mu.Unlock()
	if sent {
		t.pace()
	}
}

// emitText sends answer text of one message, like emit, on the output
// path where queued chunks of the same message merge (stdio.Conn.SendText).
// s may be a stream's frame, valid until the next is read
// (a2aclient.Stream.Share): it is copied into the output queue, and
// copied for the buffer of a detached turn.
func (t *Turn) emitText(messageID, s string) {
	t.mu.Lock()
	// Attached, the machine delivers without looking at the update; only
	// otherwise is one built (and boxed) for the buffer.
	sent := t.m.phase == attached || t.m.apply(event{kind: evOutput, item: bufferItem(render.AnswerChunk(messageID, strings.Clone(s)))}).deliver
	if sent {
		if err := t.env.Conn.SendText(t.sess.id, messageID, s); err != nil {
			t.env.Log.Debug("update not delivered", "err", err)
			sent = false
		}
	}
	t.mu.Unlock()
	if sent {
		t.pace()
	}
}

// show routes rendered updates to whoever owns the output now; answer
// text takes the path where queued chunks of one message merge.
func (t *Turn) show(outs []render.Out) {
	for _, o := range outs {
		if id, text, ok := o.AnswerText(); ok {
			t.emitText(id, text)
		} else {
			t.emit(o.Update())
		}
	}
}

// bufferItem sizes an update for the detached buffer.
func bufferItem(u acp.Update) steer.Item[acp.Update] {
	switch c := u.(type) {
	case acp.AgentMessageChunk:
		if tc, ok := c.Content.(acp.TextContent); ok {
			return steer.Item[acp.Update]{Update: u, Kind: steer.Text, Size: len(tc.Text)}
		}
	case acp.AgentThoughtChunk:
		if tc, ok := c.Content.(acp.TextContent); ok {
			return steer.Item[acp.Update]{Update: u, Kind: steer.Thought, Size: len(tc.Text)}
		}
	}
	return steer.Item[acp.Update]{Update: u, Kind: steer.Other, Size: 256}
}

// droppedNote is the update that says what a full buffer dropped (a
// message of shim's own).
func droppedNote(bytes, thoughts int) acp.Update {
	return render.DroppedNote("shim-"+randid.Hex(6), bytes, thoughts)
}

// reported turns what the A2A client did on its own in one of the turn's
// calls into a notice (the client advertised notices). It may run on any
// goroutine making a call for the turn, so it renders nothing with the
// turn's renderer and never waits for the editor.
func (t *Turn) reported(rep a2a.Report) {
	var n render.Notice
	switch rep.Kind {
	case a2a.ReportTokenRenewed:
		n = render.RenewedNotice()
	case a2a.ReportRenewalRefused:
		n = render.RenewalRefusedNotice(rep.Detail)
	default:
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if u := n.Update(); t.m.apply(event{kind: evOutput, item: bufferItem(u)}).deliver {
		t.send(u)
	}
}

// finish ends the turn: the prompt is answered unless a cancel already
// did; the outcome is kept for a prompt that adopts the turn as it ends.
func (t *Turn) finish(out outcome) { t.apply(event{kind: evEnd, out: out}) }

// Cancel handles session/cancel (and close): the prompt answers
// "cancelled" at once; the turn detaches into its grace window (a prompt
// arriving within it steers the turn), or, with no grace, is given up.
func (t *Turn) Cancel() { t.apply(event{kind: evCancel}) }

// Withdraw handles the client's cancel of the prompt req
// ($/cancel_request): when req is the prompt the turn answers now, it
// answers -32800 at once and the turn is given up: a turn that has not
// sent its message yet (waiting for a busy chat, or for the session's
// previous turn) sends nothing, one that has is cancelled on the server.
func (t *Turn) Withdraw(req *acp.Request) { t.apply(event{kind: evWithdraw, req: req}) }

// Abandon is the shutdown path: the turn's output is dropped, its context
// cancelled and its task cancelled (with the A2A client's own timeout and
// retries); it returns once the turn's goroutine is done.
func (t *Turn) Abandon() {
	t.mu.Lock()
	fx := t.m.apply(event{kind: evGiveUp})
	taskID := t.m.taskID
	t.queue(fx)
	t.mu.Unlock()
	t.cancel()
	if taskID != "" && fx.giveUp {
		t.cancelTask(taskID)
	}
	// Let the turn end and record itself in the index.
	<-t.done
}

// cancelTask asks the server to cancel the task. It is not tied to the
// turn's cancellation (cancelled by then), only to its values (the trace
// context); the client bounds each attempt.
func (t *Turn) cancelTask(taskID string) {
	if err := t.env.Client.CancelTask(context.WithoutCancel(t.ctx), taskID); err != nil {
		t.env.Log.Debug("CancelTask", "task", taskID, "err", err)
	}
}

func (t *Turn) isCancelled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.cancelled()
}

// setTask records the task id the server gave the turn.
func (t *Turn) setTask(id string) {
	if t.ownTask != "" || id == "" {
		return // what machine.task would say, without t.mu
	}
	t.mu.Lock()
	first, cancel := t.m.task(id)
	t.mu.Unlock()
	if !first {
		return
	}
	t.ownTask = id
	t.env.Log.Debug("the agent started a task", "session", t.sess.id, "task", id)
	t.env.Shown.Claim(id) // shown live: never replayed
	if cancel {
		// The cancel came before the server named the task.
		go t.cancelTask(id)
	}
	// The index learns the task when the turn ends (Host.Record).
}

// resetTask forgets the task: a steer run as the next message starts a
// task of its own.
func (t *Turn) resetTask() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m.taskID, t.ownTask = "", ""
}

func (t *Turn) task() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.taskID
}

// Buffered returns the bytes a detached turn holds for an adopting
// prompt, and those a full buffer dropped.
func (t *Turn) Buffered() (kept, dropped int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.buf.Size(), t.m.buf.DroppedBytes
}

// waitPhase waits while the turn is detached or adopting (an approval
// that parks inside the grace window is asked of the adopting prompt)
// and reports whether a prompt owns it then; false when nobody will, or
// the turn ends.
func (t *Turn) waitPhase() bool {
	for logged := false; ; logged = true {
		t.mu.Lock()
		p, ch := t.m.phase, t.changed
		t.mu.Unlock()
		switch p {
		case attached:
			return !t.isCancelled()
		case orphaned, ended:
			return false
		}
		if !logged {
			t.env.Log.Debug("the approval waits for a prompt to adopt the turn", "session", t.sess.id, "phase", p)
		}
		select {
		case <-ch:
		case <-t.ctx.Done():
			return false
		}
	}
}

// left returns a channel closed once the turn leaves attached (its prompt
// was cancelled); closed already when it is not attached now.
func (t *Turn) left() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m.phase != attached {
		c := make(chan struct{})
		close(c)
		return c
	}
	return t.changed
}
