package bridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/steer"
	"github.com/shimdev/shim/threads"
)

// A turn is one exchange with the remote agent: it sends one message and
// maps the events of the answer (and of any reattach) onto session
// updates. A turn can outlive its prompt: Send Now detaches it from the
// cancelled prompt and hands it to the next one. Who receives its output
// at each moment (a prompt, the buffer, nobody) is its steer.Window.
type turn struct {
	srv    *Server
	sess   *session
	client *a2a.Client
	agent  string
	msg    a2a.OutMessage
	prev   *turn

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// prompt is the request that receives the turn's answer; nil once it
	// was answered (by the turn, or "cancelled" by a cancel).
	prompt *jsonrpc2.Request
	// win says where updates go.
	win *steer.Window
	// taskID is the A2A task, once the server named it.
	taskID string
	// cancelled is set once the turn was given up (its task cancelled).
	cancelled bool
	// steers are the steers folded into this turn, in order.
	steers []*pendingSteer
	// final is the outcome once the turn ended.
	final *outcome

	// Only the turn's own goroutine touches the fields below. texts and
	// shownIDs are keyed by artifactKey: artifact ids are unique per task,
	// and a new task of the same turn (a re-run steer) starts afresh.
	texts        map[string]*shownText
	shownIDs     map[string]bool
	statusText   *shownText
	anyText      bool
	artifactText bool
	gotMessage   bool
	authRequired bool
	reattaching  bool
	allowSession bool
	usage        *a2a.Usage
	ctxInfo      *a2a.ContextInfo
	tools        *toolCards
}

// outcome is how a stream of the turn ended: a stop reason, an error, or
// a message that resumes the task (an answered approval) in the same turn.
type outcome struct {
	stop   string
	err    *jsonrpc2.Error
	resume *a2a.OutMessage
}

func (s *Server) prompt(req *jsonrpc2.Request) {
	var p promptParams
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
		s.reply(req, nil, rpcError(codeInvalidParams, "Invalid params: session/prompt needs {sessionId, prompt}", nil))
		return
	}
	sess := s.session(p.SessionID)
	if sess == nil {
		s.reply(req, nil, rpcError(codeInvalidParams, "Invalid params: unknown session "+p.SessionID, nil))
		return
	}
	parts, userText, err := promptMessage(p.Prompt)
	p.Prompt, req.Params = nil, nil // a big prompt's JSON is not kept for the turn
	if err != nil {
		s.reply(req, nil, rpcError(codeInvalidParams, "Invalid params: "+err.Error(), nil))
		return
	}
	client, err := s.remote()
	if err != nil {
		s.reply(req, nil, err)
		return
	}
	msg := a2a.OutMessage{ContextID: sess.id, Parts: parts}

	sess.mu.Lock()
	prev := sess.current
	sess.mu.Unlock()
	if s.trySteer(req, sess, prev, parts) {
		return
	}

	sess.mu.Lock()
	first := !sess.prompted
	sess.prompted = true
	parked := sess.parkedTask
	sess.parkedTask = ""
	bypass, minted, cwd := sess.bypass, sess.minted, sess.cwd
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
	msg.Bypass = bypass
	msg.Workspace = cwd
	t := &turn{srv: s, sess: sess, client: client, agent: s.agentName(), msg: msg, prompt: req,
		done: make(chan struct{}), texts: map[string]*shownText{}, shownIDs: map[string]bool{}, statusText: newShownText()}
	t.tools = newToolCards(t)
	t.win = steer.NewWindow(s.opts.SteerGrace, steerBufferMax, t.orphan)
	t.ctx, t.cancel = context.WithCancel(s.ctx)
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
	s.mu.Lock()
	client := s.clientTitle
	if client == "" {
		client = s.clientName
	}
	s.mu.Unlock()
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
	sess.mu.Lock()
	t := sess.current
	sess.mu.Unlock()
	if t != nil {
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
		t.emit(sessionInfoUpdate{SessionUpdate: uSessionInfo, Title: title, UpdatedAt: time.Now().UTC().Format(time.RFC3339)})
	}
	out := t.drive()
	t.tools.settle(cardStatus(out))
	t.record(title)
	t.usageUpdate()
	t.finish(out)
}

// record writes what the turn taught the thread index (title, cwd, task
// id, time) in one write, once the turn's stream is over: never between
// the prompt and its first chunk (SPEC §8).
func (t *turn) record(title string) {
	if t.srv.opts.Index == nil {
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

// emit sends an update to whoever owns the turn's output now.
func (t *turn) emit(update any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.win.Route(bufferItem(update)) {
		t.srv.notify(t.sess.id, update)
	}
}

// emitSettled is emit for the update that settles an open card: a turn
// given up after its grace window still ends its cards in the editor
// (unless the session was closed).
func (t *turn) emitSettled(update any) {
	registered := t.srv.session(t.sess.id) == t.sess
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.win.Route(bufferItem(update)) || (registered && t.win.State() == steer.Orphaned) {
		t.srv.notify(t.sess.id, update)
	}
}

// cardStatus is the status the cards still open at the turn's end get.
func cardStatus(out outcome) string {
	if out.err == nil && out.stop == stopEndTurn {
		return "completed"
	}
	return "failed"
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
	u := usageUpdate{SessionUpdate: uUsage, Used: used, Size: size}
	t.sess.mu.Lock()
	if total := t.sess.costUSD; total > 0 {
		u.Cost = &cost{Amount: total, Currency: "USD"}
	}
	t.sess.mu.Unlock()
	t.emit(u)
}

// finish answers the prompt, unless a cancel already did; the outcome is
// kept for a prompt that adopts the turn as it ends.
func (t *turn) finish(out outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.win.End()
	t.final = &out
	if req := t.prompt; req != nil {
		t.prompt = nil
		t.answer(req, out)
	}
}

// answer replies to a prompt with the turn's outcome; t.mu is held.
func (t *turn) answer(req *jsonrpc2.Request, out outcome) {
	if out.err != nil {
		t.srv.reply(req, nil, out.err)
		return
	}
	res := promptResult{StopReason: out.stop}
	if u := t.usage; u != nil {
		res.Usage = &usageTotal{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
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
	req := t.prompt
	t.prompt = nil
	if req != nil {
		t.srv.reply(req, promptResult{StopReason: stopCancelled}, nil)
	}
	state := t.win.Detach()
	t.mu.Unlock()
	if state == steer.Orphaned {
		t.orphan()
	}
}

// orphan gives the turn up: its output is dropped, its task cancelled.
func (t *turn) orphan() {
	t.win.Orphan()
	t.mu.Lock()
	already := t.cancelled
	t.cancelled = true
	taskID := t.taskID
	t.mu.Unlock()
	if already {
		return
	}
	select {
	case <-t.done:
		return
	default:
	}
	if taskID != "" {
		go t.cancelTask(taskID, 5*time.Second)
	}
	t.cancel()
}

// abandon is the shutdown path: cancel the task, wait at most d.
func (t *turn) abandon(d time.Duration) {
	t.win.Orphan()
	t.mu.Lock()
	taskID := t.taskID
	already := t.cancelled
	t.cancelled = true
	t.mu.Unlock()
	select {
	case <-t.done:
		return
	default:
	}
	t.cancel()
	deadline := time.After(d)
	if taskID != "" && !already {
		t.cancelTask(taskID, d)
	}
	// Let the turn end and record itself in the index.
	select {
	case <-t.done:
	case <-deadline:
	}
}

func (t *turn) cancelTask(taskID string, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := t.client.CancelTask(ctx, taskID); err != nil {
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
		go t.cancelTask(id, 5*time.Second)
	}
	// The index learns the task when the turn ends (record).
}

func (t *turn) task() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.taskID
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
func (t *turn) drive() outcome {
	msg := t.msg
	for {
		stream, err := t.client.Stream(t.ctx, msg)
		if err != nil {
			if t.isCancelled() {
				return outcome{stop: stopCancelled}
			}
			return outcome{err: t.srv.callError(err, t.task())}
		}
		out := t.follow(stream)
		if out.resume == nil && out.err == nil && out.stop == stopEndTurn {
			out.resume = t.settleSteers()
		} else if out.resume == nil {
			t.dropSteers()
		}
		if out.resume == nil {
			return out
		}
		msg = *out.resume
		t.reattaching, t.authRequired = false, false
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
func (t *turn) follow(stream *a2a.Stream) outcome {
	for attempt := 0; ; attempt++ {
		out, why, cause := t.consume(stream)
		stream.Close()
		if why == consumedEnd {
			return out
		}
		if t.isCancelled() {
			return outcome{stop: stopCancelled}
		}
		if t.authRequired {
			return outcome{stop: stopEndTurn}
		}
		taskID := t.task()
		if taskID == "" {
			if t.gotMessage {
				return outcome{stop: stopEndTurn}
			}
			if cause != nil {
				return outcome{err: t.srv.callError(cause, "")}
			}
			return outcome{err: rpcError(codeInternal, t.agent+": the stream ended before the agent started a task",
				stateData("unknown", "", ""))}
		}
		if why == consumedError || attempt >= 2 {
			break
		}
		t.srv.log.Info("the stream ended before the turn did; reattaching", "task", taskID, "cause", errString(cause))
		var err error
		stream, err = t.client.Resubscribe(t.ctx, taskID)
		if err != nil {
			t.srv.log.Info("reattach refused; reading the task back", "task", taskID, "err", err)
			break
		}
		t.reattaching = true
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
func (t *turn) consume(stream *a2a.Stream) (outcome, consumeResult, error) {
	for {
		ev, err := stream.Next()
		if err != nil {
			if t.isCancelled() {
				return outcome{stop: stopCancelled}, consumedEnd, nil
			}
			var rpc *a2a.RPCError
			if errors.As(err, &rpc) {
				if t.task() == "" {
					return outcome{err: rpcError(codeInternal, t.agent+": "+rpc.Message, stateData("failed", "", rpc.Message))}, consumedEnd, nil
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
		if out, done := t.handle(ev); done {
			return out, consumedEnd, nil
		}
	}
}

// handle maps one event; done reports that the turn's outcome is known.
func (t *turn) handle(ev a2a.Event) (outcome, bool) {
	t.setTask(ev.TaskID)
	switch ev.Kind {
	case a2a.EventTask:
		// A snapshot's state never ends a turn: a resumed task's first
		// frame is the stale parked one. After a reattach its artifacts
		// fill what the gap lost.
		if t.reattaching && ev.Task != nil {
			for i := range ev.Task.Artifacts {
				t.artifact(&ev.Task.Artifacts[i], false)
			}
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
		return t.status(ev.Status)
	}
	return outcome{}, false
}

// message shows an agent message: its thoughts, tools and text.
func (t *turn) message(m *a2a.Message) {
	for _, th := range m.Thoughts() {
		t.thought(th)
	}
	for _, tc := range m.ToolCalls() {
		t.tools.handle(tc)
	}
	t.showStatusText(m.Text())
}

// status maps a status update.
func (t *turn) status(st a2a.Status) (outcome, bool) {
	m := st.Message
	if m != nil {
		for _, th := range m.Thoughts() {
			t.thought(th)
		}
		for _, tc := range m.ToolCalls() {
			t.tools.handle(tc)
		}
		t.steersConsumed(m.SteersConsumed())
	}
	text := m.Text()
	switch st.State {
	case a2a.StateCompleted:
		if !t.artifactText {
			t.showStatusText(text)
		}
		return outcome{stop: stopEndTurn}, true
	case a2a.StateCanceled:
		return outcome{stop: stopCancelled}, true
	case a2a.StateRejected:
		t.showStatusText(text)
		return outcome{stop: stopRefusal}, true
	case a2a.StateFailed:
		return t.failed(text), true
	case a2a.StateInputRequired:
		return t.park(m), true
	case a2a.StateAuthRequired:
		t.authRequired = true
		if text == "" {
			text = "The agent needs you to authenticate with it before it can go on."
		}
		t.showStatusText(text)
		return outcome{}, false
	default:
		if strings.TrimSpace(text) != "" {
			t.thought(text)
		}
	}
	return outcome{}, false
}

// failed shows the failed-turn line and builds its error.
func (t *turn) failed(detail string) outcome {
	f := a2a.FriendlyError(detail)
	if f == "" {
		f = "the task failed"
	}
	line := "⚠️ " + t.agent + " error: " + f
	if t.anyText {
		line = "\n\n" + line
	}
	t.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(line)})
	t.anyText = true
	return outcome{err: rpcError(codeInternal, t.agent+": "+f, map[string]any{"state": "failed", "taskId": t.task(), "detail": detail})}
}

// readBack reads the task after the stream was lost for good.
func (t *turn) readBack() outcome {
	taskID := t.task()
	task, err := t.client.GetTask(t.ctx, taskID, 0)
	if err != nil {
		if t.isCancelled() {
			return outcome{stop: stopCancelled}
		}
		e := t.srv.callError(err, taskID)
		e.Message = t.agent + ": the stream was lost and the task could not be read back: " + err.Error()
		return outcome{err: e}
	}
	t.reattaching = true
	for i := range task.Artifacts {
		t.artifact(&task.Artifacts[i], false)
	}
	switch task.Status.State {
	case a2a.StateCompleted, a2a.StateCanceled, a2a.StateRejected, a2a.StateFailed, a2a.StateInputRequired:
		out, _ := t.status(task.Status)
		return out
	case a2a.StateAuthRequired:
		t.status(task.Status)
		return outcome{stop: stopEndTurn}
	}
	return outcome{err: rpcError(codeInternal,
		t.agent+": the connection was lost while the task was still "+string(task.Status.State)+"; it may finish on its own",
		stateData("working", taskID, ""))}
}

// artifact shows an artifact's parts.
func (t *turn) artifact(a *a2a.Artifact, appendMode bool) {
	if a == nil {
		return
	}
	// (The copies inside the ifs keep a chunk without usage or context
	// from allocating them.)
	if u, ok := a.Usage(); ok {
		u := u
		t.usage = &u
		t.sess.mu.Lock()
		t.sess.costUSD += u.CostUSD
		t.sess.mu.Unlock()
	}
	if c, ok := a.Context(); ok {
		c := c
		t.ctxInfo = &c
	}
	var one [1]string // the usual chunk has one text part
	textParts := one[:0]
	for i := range a.Parts {
		p := &a.Parts[i]
		switch p.Kind {
		case a2a.PartText:
			if !p.Thought() {
				textParts = append(textParts, p.Text)
			} else {
				t.thought(p.Text)
			}
		case a2a.PartFile:
			t.file(p)
		case a2a.PartData:
			if !p.Known() {
				t.showArtifactText(a.ID, "```json\n"+p.DataJSON()+"\n```\n")
			}
		}
	}
	if len(textParts) == 0 {
		return
	}
	key := t.artifactKey(a.ID)
	st := t.texts[key]
	if st == nil {
		st = newShownText()
		t.texts[key] = st
	}
	joined := strings.Join(textParts, "")
	var show string
	if appendMode {
		show = st.Append(joined)
	} else {
		show = st.Replace(joined)
	}
	t.showArtifactText(a.ID, show)
}

// artifactKey names an artifact of the turn's current task.
func (t *turn) artifactKey(id string) string { return t.task() + "\x00" + id }

// showArtifactText shows new text of an artifact; the first text of a
// second artifact is preceded by a blank line.
func (t *turn) showArtifactText(id, s string) {
	if s == "" {
		return
	}
	if key := t.artifactKey(id); !t.shownIDs[key] {
		t.shownIDs[key] = true
		if t.anyText {
			s = "\n\n" + s
		}
	}
	t.emitArtifactText(id, s)
	t.anyText = true
	t.artifactText = true
}

// showStatusText shows a status or message text as answer text.
func (t *turn) showStatusText(s string) {
	if s == "" {
		return
	}
	if !t.anyText {
		s = t.statusText.trimLead(s)
	}
	if s == "" {
		return
	}
	t.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(s)})
	t.anyText = true
}

func (t *turn) thought(s string) {
	if s == "" {
		return
	}
	t.emit(chunkUpdate{SessionUpdate: uAgentThought, Content: text(s)})
}

// file shows a file part: a link for a URL, an image for raw image bytes.
func (t *turn) file(p *a2a.Part) {
	switch {
	case p.URL != "":
		name := p.Filename
		if name == "" {
			name = p.URL
			if i := strings.LastIndexByte(strings.TrimSuffix(name, "/"), '/'); i >= 0 {
				name = name[i+1:]
			}
		}
		t.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: resourceLink{Type: "resource_link", URI: p.URL, Name: name, MimeType: p.MediaType}})
		t.anyText = true
	case len(p.Raw) > 0 && strings.HasPrefix(p.MediaType, "image/"):
		t.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: imageContent{Type: "image", Data: base64.StdEncoding.EncodeToString(p.Raw), MimeType: p.MediaType}})
		t.anyText = true
	case len(p.Raw) > 0:
		name := p.Filename
		if name == "" {
			name = "a file"
		}
		t.showArtifactText("file:"+name, fmt.Sprintf("[%s (%s, %d bytes) not shown]", name, orUnknown(p.MediaType), len(p.Raw)))
	}
}
