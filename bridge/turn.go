package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/shimdev/shim/acp"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/steer"
	"github.com/shimdev/shim/threads"
)

// A turn is one exchange with the remote agent: it sends one message and
// maps the events of the answer (and of any reattach) onto session
// updates. A turn can outlive its prompt: Send Now detaches it from the
// cancelled prompt and hands it to the next one. Who receives its output
// at each moment (a prompt, the buffer, nobody) is its turnState.
type turn struct {
	srv    *Server
	sess   *session
	client *a2aclient.Client
	agent  string
	msg    a2a.OutMessage
	prev   *turn

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// turnState (turn_state.go) is under mu: who owns the output, the
	// prompt, cancelled, the steers, the outcome.
	turnState
	// taskID is the A2A task, once the server named it (under mu).
	taskID string

	// Only the turn's own goroutine touches the fields below.
	r            *renderer // the turn's a2a values as updates
	gotMessage   bool
	authRequired bool
	// staleFirst: the stream's first frame, a snapshot, is the resumed
	// task's stale one; lastSnap is the status of the stream's last frame
	// when that was a snapshot.
	staleFirst bool
	lastSnap   *a2a.Status
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
}

func (s *Server) prompt(req *acp.Request, p *acp.PromptParams) {
	sess := s.session(p.SessionID)
	if sess == nil {
		s.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	cmd := slashCommand(p.Prompt)
	if cmd == statusCommand {
		s.showStatus(req, sess)
		return
	}
	parts, userText, err := promptMessage(p.Prompt)
	p.Prompt = nil // a big prompt's blocks are not kept for the turn
	if err != nil {
		s.reply(req, nil, acp.InvalidParams(err.Error()))
		return
	}
	client, err := s.remote()
	if err != nil {
		s.reply(req, nil, err)
		return
	}
	msg := a2a.OutMessage{ContextID: sess.id, Parts: parts, SkillHint: s.skillHint(cmd)}

	prev := sess.turn()
	if s.trySteer(req, sess, prev, parts) {
		return
	}

	sess.mu.Lock()
	first := !sess.prompted
	sess.prompted = true
	parked := sess.parkedTask
	sess.parkedTask = ""
	minted, cwd := sess.minted, sess.cwd
	sess.mu.Unlock()
	// No lock is held from here to the turn's start: the preamble may load
	// the project roots over the network.
	switch {
	case parked != "":
		msg.TaskID = parked
		msg.Resume = true
	case first && minted && !s.opts.NoPreamble:
		if pre := s.preamble(cwd); pre != "" {
			msg.Parts = addPreamble(msg.Parts, pre)
		}
	}
	msg.Workspace = cwd
	sess.intents(&msg)
	t := &turn{srv: s, sess: sess, client: client, agent: s.agentName(), msg: msg,
		done: make(chan struct{}), turnState: turnState{prompt: req}}
	t.win = steer.NewWindow(s.opts.SteerGrace, steerBufferMax, droppedNote, t.orphan)
	// The turn's calls are made for the session (a platform keeps its state).
	t.ctx, t.cancel = context.WithCancel(a2a.WithSession(s.ctx, sess.id))
	t.r = s.newSessionRenderer(t.agent, s.resolver(t.ctx, sess))
	sess.mu.Lock()
	t.prev = sess.current
	sess.current = t
	sess.mu.Unlock()

	var title string
	if first {
		title = titleOf(userText)
	}
	go t.run(title)
}

// preamble is the editor-context line for a cwd inside a known root.
func (s *Server) preamble(cwd string) string {
	if cwd == "" {
		return ""
	}
	if err := s.roots().Load(s.ctx); err != nil {
		s.log.Debug("project roots not loaded", "err", err)
	}
	r, ok := s.roots().Containing(cwd)
	if !ok {
		return ""
	}
	s.infoMu.Lock()
	client := s.clientTitle
	if client == "" {
		client = s.clientName
	}
	s.infoMu.Unlock()
	if client == "" {
		client = "an ACP editor"
	}
	return "[Context: the user is talking to you from " + client + " opened on your project `" + r.Name + "` (" + r.Path + "). Paths you read or search there are shown to them in the editor.]"
}

// cancel handles session/cancel: the running prompt answers cancelled at
// once and the task is cancelled.
func (s *Server) cancel(sessionID string) {
	sess := s.session(sessionID)
	if sess == nil {
		return
	}
	if t := sess.turn(); t != nil {
		t.cancelByUser()
	}
}

func (t *turn) run(title string) {
	defer close(t.done)
	defer t.cancel()
	if t.prev != nil {
		<-t.prev.done
		t.prev = nil // a session's turns must not chain up in memory
	}
	if out, ok := t.waitIdle(); !ok { // a chat busy elsewhere (history.go)
		t.finish(out)
		return
	}
	if title != "" {
		t.emit(acp.SessionInfoUpdate{Title: title, UpdatedAt: time.Now().UTC().Format(time.RFC3339)})
	}
	out := t.drive()
	t.noteBeforeAnswer() // a note still held when the turn ends
	t.showSettled(t.r.settle(cardStatus(out)))
	t.record(title)
	t.usageUpdate()
	t.finish(out)
}

// record writes what the turn taught the thread index (title, cwd, task
// id, time) in one write, once the turn's stream is over: never between
// the prompt and its first chunk (SPEC §8).
func (t *turn) record(title string) {
	if _, _, ok := t.srv.threadIndex(); !ok {
		return
	}
	taskID := t.task()
	t.srv.index(t.sess.id, func(e *threads.Entry) {
		if title != "" && e.Title == "" {
			e.Title = title
		}
		if e.CWD == "" {
			e.CWD = t.sess.cwd
		}
		e.AddTask(taskID)
		e.UpdatedAt = time.Now()
	})
}

// usageUpdate reports the context use when the window is known.
func (t *turn) usageUpdate() {
	size := t.srv.opts.ContextWindow
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
	u := acp.UsageUpdate{Used: used, Size: size}
	t.sess.mu.Lock()
	if total := t.sess.costUSD; total > 0 {
		u.Cost = &acp.Cost{Amount: total, Currency: "USD"}
	}
	t.sess.mu.Unlock()
	t.emit(u)
}
