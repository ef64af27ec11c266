package a2a

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-retryablehttp"
)

// The Gemini CLI profile (SPEC §12.5). @google/gemini-cli-a2a-server
// speaks A2A 0.3 and declares no extension: its protocol rides
// metadata.coderAgent. This file reads it into the event model the rest of
// shim knows, so that nothing above this package knows it talks to Gemini
// CLI:
//   - text-content deltas and citations are appended artifact text, a
//     thought is working-status text, a tool-call-update is a ToolCall, the
//     tool-<callId>-output artifact is that call's live output;
//   - only a final status ends a turn: a stale input-required on a frame
//     that is not final reads as working, and a final input-required is a
//     completed turn, unless a tool waits for approval (a Hitl park naming
//     the call);
//   - a session's first message carries the agent settings (the
//     workspace) and no ids; later ones the server's task and context ids.
//     Frames are given the session's context id;
//   - the server aborts a run when the connection of its request closes,
//     so each session's task has a connection of its own: a transport with
//     one connection, kept busy with tasks/get while an approval is asked,
//     and CancelTask drops the running stream instead of cancelling the
//     task (tasks/cancel makes it terminal).

// Profiles.
const (
	ProfileAuto      = "auto"
	ProfileGeneric   = "generic"
	ProfileGeminiCLI = "gemini-cli"
)

// geminiCardName is the name of Gemini CLI's A2A server's card.
const geminiCardName = "Gemini SDLC Agent"

// geminiWarmEvery is how often the parked task's connection is used while
// an approval is asked (the server's keep-alive timeout is 5 s).
var geminiWarmEvery = 1500 * time.Millisecond

// isGemini reports whether the profile applies to the agent of card.
func (c *Client) isGemini(card *Card) bool {
	switch c.cfg.Profile {
	case ProfileGeminiCLI:
		return true
	case ProfileGeneric:
		return false
	}
	return card.Name == geminiCardName
}

// geminiTransport is the JSON-RPC binding with the coderAgent protocol.
type geminiTransport struct {
	*jsonrpcTransport
	card *Card

	mu       sync.Mutex
	sessions map[string]*geminiSession // by the session's (ACP) context id
	tasks    map[string]*geminiSession // by the server's task id
}

var _ transport = (*geminiTransport)(nil)

func newGemini(c *conn, card *Card) *geminiTransport {
	return &geminiTransport{jsonrpcTransport: newJSONRPC(c, card), card: card,
		sessions: map[string]*geminiSession{}, tasks: map[string]*geminiSession{}}
}

// geminiSession is one session's task on the server, with the connection
// its runs live on.
type geminiSession struct {
	g       *geminiTransport
	session string
	tr      *jsonrpcTransport
	ht      *http.Transport

	mu        sync.Mutex
	taskID    string
	contextID string
	// awaiting are the calls waiting for approval, in the order they asked.
	awaiting []geminiAwait
	// running is the stream of the run in progress.
	running *Stream
	// warm stops the keep-alive of a parked task.
	warm func()
}

type geminiAwait struct {
	callID   string
	confType string
	title    string
	detail   string
}

// session returns the state of the session of context id ctxID, creating
// it with a connection of its own.
func (g *geminiTransport) session(ctxID string) *geminiSession {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.sessions[ctxID]; s != nil {
		return s
	}
	s := &geminiSession{g: g, session: ctxID}
	base := g.conn
	nc := *base // the same credentials, log and trace; clients of its own
	pin := func(rt http.RoundTripper) http.RoundTripper {
		ht, ok := rt.(*http.Transport)
		if !ok {
			return rt // a test's or a caller's own transport
		}
		s.ht = ht.Clone()
		s.ht.MaxConnsPerHost = 1
		s.ht.MaxIdleConnsPerHost = 1
		s.ht.DisableKeepAlives = false
		return s.ht
	}
	rt := base.cfg.Transport
	if at, ok := rt.(*authTransport); ok {
		rt = &authTransport{base: pin(at.base), auth: at.auth}
	} else {
		rt = pin(rt)
	}
	nc.streaming = &http.Client{Transport: rt, CheckRedirect: base.streaming.CheckRedirect}
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: rt, Timeout: base.unary.HTTPClient.Timeout, CheckRedirect: base.unary.HTTPClient.CheckRedirect}
	rc.RetryMax, rc.RetryWaitMin, rc.RetryWaitMax = base.unary.RetryMax, base.unary.RetryWaitMin, base.unary.RetryWaitMax
	rc.Backoff, rc.Logger, rc.CheckRetry, rc.ErrorHandler = base.unary.Backoff, base.unary.Logger, base.unary.CheckRetry, base.unary.ErrorHandler
	nc.unary = rc
	s.tr = newJSONRPC(&nc, g.card)
	g.sessions[ctxID] = s
	return s
}

// byTask returns the session whose task is id, or nil.
func (g *geminiTransport) byTask(id string) *geminiSession {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tasks[id]
}

// SendStreaming implements transport.
func (g *geminiTransport) SendStreaming(ctx context.Context, m OutMessage) (*Stream, error) {
	s := g.session(m.ContextID)
	s.stopWarm()
	msg := s.encode(m)
	st, err := s.tr.openStreamWith(ctx, "message/stream", map[string]any{"message": msg}, &geminiFrames{s: s})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.running = st
	s.mu.Unlock()
	return st, nil
}

// Send implements transport (the server streams; a blocking send is only
// encoded the same way).
func (g *geminiTransport) Send(ctx context.Context, m OutMessage, immediate bool) (*Stream, error) {
	s := g.session(m.ContextID)
	p := map[string]any{"message": s.encode(m)}
	if immediate {
		p["configuration"] = sendConfiguration(V03)
	}
	return s.tr.openStreamWith(ctx, "message/send", p, &geminiFrames{s: s})
}

// Subscribe implements transport.
func (g *geminiTransport) Subscribe(ctx context.Context, taskID string) (*Stream, error) {
	s := g.byTask(taskID)
	if s == nil {
		return g.jsonrpcTransport.Subscribe(ctx, taskID)
	}
	st, err := s.tr.openStreamWith(ctx, "tasks/resubscribe", map[string]any{"id": taskID}, &geminiFrames{s: s})
	if err == nil {
		s.mu.Lock()
		s.running = st
		s.mu.Unlock()
	}
	return st, err
}

// GetTask implements transport: on the task's own connection, its state
// read as a stream's final frame would be.
func (g *geminiTransport) GetTask(ctx context.Context, id string, historyLength int) (*Task, error) {
	s := g.byTask(id)
	if s == nil {
		return g.jsonrpcTransport.GetTask(ctx, id, historyLength)
	}
	t, err := s.tr.GetTask(ctx, id, historyLength)
	if err != nil {
		return nil, err
	}
	t.ContextID = s.session
	if t.Status.State == StateInputRequired {
		ev := s.finalStatus(Event{Kind: EventStatus, TaskID: id, ContextID: s.session, Status: t.Status})
		t.Status = ev.Status
	}
	return t, nil
}

// CancelTask implements transport: it drops the connection of the task's
// running stream, which ends the run and leaves the task usable; it never
// sends tasks/cancel, which would make the task terminal.
func (g *geminiTransport) CancelTask(ctx context.Context, id string) error {
	s := g.byTask(id)
	if s == nil {
		return nil
	}
	s.stopWarm()
	s.mu.Lock()
	st := s.running
	s.running = nil
	s.mu.Unlock()
	if st != nil {
		st.Close()
	}
	if s.ht != nil {
		s.ht.CloseIdleConnections()
	}
	return nil
}

// encode builds the message: the first of a session carries the agent
// settings and no ids, later ones the server's ids; an approval answer is
// the data part {callId, outcome}.
func (s *geminiSession) encode(m OutMessage) map[string]any {
	s.mu.Lock()
	taskID, contextID := s.taskID, s.contextID
	var await *geminiAwait
	if a := m.Approval; a != nil && len(m.Parts) == 0 {
		for i := range s.awaiting {
			if s.awaiting[i].callID == a.ToolCallID {
				await = &s.awaiting[i]
				break
			}
		}
	}
	s.mu.Unlock()
	out := OutMessage{Parts: m.Parts, TaskID: taskID, ContextID: contextID}
	if a := m.Approval; a != nil && len(m.Parts) == 0 {
		outcome := "cancel"
		switch {
		case a.Allow && a.Always && await != nil && await.confType == "mcp":
			outcome = "proceed_always_tool"
		case a.Allow && a.Always:
			outcome = "proceed_always"
		case a.Allow:
			outcome = "proceed_once"
		}
		data, _ := json.Marshal(map[string]string{"callId": a.ToolCallID, "outcome": outcome})
		out.Parts = []Part{{Kind: PartData, Data: data}}
		s.mu.Lock()
		s.dropAwait(a.ToolCallID)
		s.mu.Unlock()
	}
	msg := encodeMessage(V03, out)
	if taskID == "" {
		settings := map[string]any{"kind": "agent-settings"}
		if m.Workspace != "" {
			settings["workspacePath"] = m.Workspace
		}
		msg["metadata"] = map[string]any{"coderAgent": settings}
	}
	return msg
}

// dropAwait forgets a call's approval; s.mu is held.
func (s *geminiSession) dropAwait(callID string) {
	for i := range s.awaiting {
		if s.awaiting[i].callID == callID {
			s.awaiting = append(s.awaiting[:i], s.awaiting[i+1:]...)
			return
		}
	}
}

// warmUp keeps the parked task's connection in use while its approval is
// asked, until the next message or ctx ends. A tasks/get in flight is
// let finish when it stops: cancelling it would close the connection.
func (s *geminiSession) warmUp(ctx context.Context, taskID string) {
	stop, done := make(chan struct{}), make(chan struct{})
	s.stopWarm()
	s.mu.Lock()
	s.warm = func() { close(stop); <-done }
	s.mu.Unlock()
	go func() {
		defer close(done)
		tick := time.NewTicker(geminiWarmEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := s.tr.GetTask(ctx, taskID, 1); err != nil && ctx.Err() == nil {
				s.tr.log.Debug("keeping the parked task's connection", "task", taskID, "err", err)
			}
		}
	}()
}

func (s *geminiSession) stopWarm() {
	s.mu.Lock()
	stop := s.warm
	s.warm = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// geminiFrames reads one stream's frames.
type geminiFrames struct {
	s *geminiSession
	// ended is set once the final frame was read.
	ended bool
	// park is set when the final frame parked on an approval.
	park bool
}

var _ finalFrames = (*geminiFrames)(nil)

// geminiEnvelope is what the event model does not keep of a frame.
type geminiEnvelope struct {
	Result struct {
		Kind     string `json:"kind"`
		Final    bool   `json:"final"`
		Metadata struct {
			CoderAgent struct {
				Kind string `json:"kind"`
			} `json:"coderAgent"`
			TraceID string `json:"traceId"`
		} `json:"metadata"`
	} `json:"result"`
}

// geminiToolUpdate is a tool-call-update's data part.
type geminiToolUpdate struct {
	Request struct {
		CallID string          `json:"callId"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
	} `json:"request"`
	Status string `json:"status"`
	Tool   struct {
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
		Kind        string `json:"kind"`
	} `json:"tool"`
	ConfirmationDetails *struct {
		Type       string   `json:"type"`
		Title      string   `json:"title"`
		Prompt     string   `json:"prompt"`
		Command    string   `json:"command"`
		FileName   string   `json:"fileName"`
		ServerName string   `json:"serverName"`
		ToolName   string   `json:"toolName"`
		URLs       []string `json:"urls"`
	} `json:"confirmationDetails"`
	Response *struct {
		ResultDisplay json.RawMessage `json:"resultDisplay"`
		ResponseParts []struct {
			FunctionResponse struct {
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"responseParts"`
		Error any `json:"error"`
	} `json:"response"`
}

func (f *geminiFrames) failure(data []byte) error { return errorFrame(data) }

func (f *geminiFrames) final(Event) bool { return f.ended }

func (f *geminiFrames) event(data []byte) (Event, error) {
	ev, err := DecodeFrame(data)
	if err != nil {
		return ev, err
	}
	var env geminiEnvelope
	_ = json.Unmarshal(data, &env)
	s := f.s
	switch ev.Kind {
	case EventTask:
		if ev.Task != nil {
			s.learn(ev.Task.ID, ev.Task.ContextID)
			ev.Task.ContextID = s.session
			ev.Task.History = nil // the server's own copy of the message just sent
		}
	case EventStatus, EventArtifact:
		s.learn(ev.TaskID, ev.ContextID)
	}
	if ev.ContextID != "" {
		ev.ContextID = s.session
	}
	switch ev.Kind {
	case EventArtifact:
		if a := ev.Artifact; a != nil {
			if callID, ok := strings.CutPrefix(a.ID, "tool-"); ok && strings.HasSuffix(callID, "-output") {
				callID = strings.TrimSuffix(callID, "-output")
				out := a.textOf()
				return Event{Kind: EventStatus, TaskID: ev.TaskID, ContextID: ev.ContextID,
					Status: Status{State: StateWorking, Message: &Message{Role: "agent",
						Tools: []ToolCall{{ID: callID, Phase: PhaseOutput, Output: out}}}}}, nil
			}
		}
		return ev, nil
	case EventStatus:
	default:
		return ev, nil
	}
	final := env.Result.Final
	if final {
		f.ended = true
		ev.Final = true
	}
	m := ev.Status.Message
	switch env.Result.Metadata.CoderAgent.Kind {
	case "text-content", "citation":
		text := m.Text()
		id := "gemini-text"
		if tr := env.Result.Metadata.TraceID; tr != "" {
			id += "-" + tr
		}
		ev = Event{Kind: EventArtifact, TaskID: ev.TaskID, ContextID: ev.ContextID, Append: true,
			Artifact: &Artifact{ID: id, Parts: []Part{{Kind: PartText, Text: text}}}}
		if !final {
			return ev, nil
		}
		// A final frame that also carries text: its text is lost rather
		// than the end of the turn.
		ev = Event{Kind: EventStatus, TaskID: ev.TaskID, ContextID: ev.ContextID, Final: true,
			Status: Status{State: StateInputRequired}}
	case "thought":
		ev.Status.Message = &Message{Role: "agent", TaskID: ev.TaskID, ContextID: ev.ContextID,
			Parts: []Part{{Kind: PartText, Text: thoughtText(m)}}}
	case "tool-call-update", "tool-call-confirmation":
		var tools []ToolCall
		if m != nil {
			for i := range m.Parts {
				if p := &m.Parts[i]; p.Kind == PartData {
					var u geminiToolUpdate
					if json.Unmarshal(p.Data, &u) == nil && u.Request.CallID != "" {
						tools = append(tools, s.tool(&u))
					}
				}
			}
		}
		ev.Status.Message = &Message{Role: "agent", TaskID: ev.TaskID, ContextID: ev.ContextID, Tools: tools}
	}
	if !final {
		// The state of a frame that is not final may be stale.
		if !ev.Status.State.Terminal() {
			ev.Status.State = StateWorking
		}
		return ev, nil
	}
	ev = s.finalStatus(ev)
	if ev.Status.State == StateInputRequired {
		f.park = true
		if st := s.runningCtx(); st != nil {
			s.warmUp(st, ev.TaskID)
		}
	}
	return ev, nil
}

// runningCtx is the context the running stream was opened with, for the
// keep-alive of its park.
func (s *geminiSession) runningCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		return nil
	}
	return s.running.parent
}

// learn records the server's ids of the session's task.
func (s *geminiSession) learn(taskID, contextID string) {
	if taskID == "" {
		return
	}
	s.mu.Lock()
	first := s.taskID == ""
	if first {
		s.taskID = taskID
	}
	if s.contextID == "" && s.taskID == taskID {
		s.contextID = contextID
	}
	s.mu.Unlock()
	if first {
		s.g.mu.Lock()
		s.g.tasks[taskID] = s
		s.g.mu.Unlock()
	}
}

// finalStatus reads a final input-required: a park on the first call that
// waits for approval, else the normal end of a turn (completed).
func (s *geminiSession) finalStatus(ev Event) Event {
	if ev.Status.State != StateInputRequired {
		return ev
	}
	s.mu.Lock()
	var a *geminiAwait
	if len(s.awaiting) > 0 {
		c := s.awaiting[0]
		a = &c
	}
	s.mu.Unlock()
	if a == nil {
		ev.Status.State = StateCompleted
		return ev
	}
	h := &Hitl{Kind: HitlApproval, Title: a.title, Detail: a.detail, ToolCallID: a.callID, Always: true}
	ev.Status.Message = &Message{Role: "agent", TaskID: ev.TaskID, ContextID: ev.ContextID, Park: h}
	return ev
}

// tool reads a tool-call-update, remembering the calls that wait for
// approval.
func (s *geminiSession) tool(u *geminiToolUpdate) ToolCall {
	tc := ToolCall{ID: u.Request.CallID, Name: first(u.Request.Name, u.Tool.Name), Kind: geminiKind(u.Tool.Kind)}
	if len(u.Request.Args) > 0 && string(u.Request.Args) != "null" {
		tc.Args = string(u.Request.Args)
	}
	var args map[string]any
	_ = json.Unmarshal(u.Request.Args, &args)
	tc.Title = geminiTitle(tc.Kind, first(u.Tool.DisplayName, tc.Name), args)
	s.mu.Lock()
	s.dropAwait(tc.ID)
	s.mu.Unlock()
	switch u.Status {
	case "executing":
		tc.Phase = PhaseStarted
	case "success":
		tc.Phase = PhaseCompleted
	case "error", "cancelled":
		tc.Phase = PhaseFailed
	case "awaiting_approval":
		tc.Phase = PhasePending
		a := geminiAwait{callID: tc.ID, title: tc.Title}
		if d := u.ConfirmationDetails; d != nil {
			a.confType = d.Type
			a.title = first(d.Title, a.title)
			a.detail = first(d.Command, first(d.Prompt, first(d.FileName, strings.Join(d.URLs, "\n"))))
			if a.detail == "" && d.ToolName != "" {
				a.detail = strings.TrimPrefix(d.ServerName+" "+d.ToolName, " ")
			}
		}
		s.mu.Lock()
		s.awaiting = append(s.awaiting, a)
		s.mu.Unlock()
	default: // validating, scheduled
		tc.Phase = PhasePending
	}
	if r := u.Response; r != nil {
		display, diff := geminiDisplay(r.ResultDisplay, args)
		tc.Diff = diff
		var errText string
		for _, p := range r.ResponseParts {
			if e, ok := p.FunctionResponse.Response["error"]; ok && e != nil {
				errText = jsonText(e)
			}
		}
		if errText == "" && r.Error != nil {
			if o, ok := r.Error.(map[string]any); ok && str(o, "message") != "" {
				errText = str(o, "message")
			} else {
				errText = jsonText(r.Error)
			}
		}
		tc.Result = display
		if tc.Phase == PhaseFailed {
			tc.Error = errText
			if tc.Result == "" {
				tc.Result = errText
			}
		}
	}
	return tc
}

// geminiDisplay reads response.resultDisplay: a text, or an edit's
// {fileDiff, fileName, originalContent, newContent}.
func geminiDisplay(raw json.RawMessage, args map[string]any) (string, *ToolDiff) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var o struct {
		FileDiff        string  `json:"fileDiff"`
		FileName        string  `json:"fileName"`
		FilePath        string  `json:"filePath"`
		OriginalContent *string `json:"originalContent"`
		NewContent      string  `json:"newContent"`
	}
	if json.Unmarshal(raw, &o) != nil || (o.FileDiff == "" && o.NewContent == "") {
		return string(raw), nil
	}
	path, _ := args["file_path"].(string)
	if !filepath.IsAbs(path) {
		path = first(o.FilePath, o.FileName)
	}
	old := ""
	if o.OriginalContent != nil {
		old = *o.OriginalContent
	}
	if !filepath.IsAbs(path) {
		return o.FileDiff, nil
	}
	return o.FileDiff, &ToolDiff{Path: path, OldText: old, NewText: o.NewContent}
}

// geminiKind keeps the kinds ACP knows (Gemini CLI's Kind enum is the same
// set).
func geminiKind(k string) string {
	switch k {
	case "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other":
		return k
	}
	return "other"
}

// geminiTitle is a title a person reads, from the call's kind and args.
func geminiTitle(kind, display string, args map[string]any) string {
	arg := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := args[k].(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
		return ""
	}
	switch kind {
	case "execute":
		if c := arg("command"); c != "" {
			c, _, _ = strings.Cut(c, "\n")
			if utf8.RuneCountInString(c) > 80 {
				c = string([]rune(c)[:80])
			}
			return "Run: " + c
		}
	case "read":
		if p := arg("file_path", "absolute_path", "path", "dir_path"); p != "" {
			if display == "ReadFile" || display == "ReadManyFiles" {
				return "Read " + p
			}
			return "List " + p
		}
	case "edit":
		if p := arg("file_path", "path"); p != "" {
			if display == "WriteFile" {
				return "Write " + p
			}
			return "Edit " + p
		}
	case "search":
		if q := arg("pattern", "query"); q != "" {
			return "Search for '" + q + "'"
		}
	case "fetch":
		if u := arg("url", "prompt", "query"); u != "" {
			return display + ": " + u
		}
	}
	return display
}

// thoughtText renders a thought {subject, description}.
func thoughtText(m *Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.Kind {
		case PartText:
			b.WriteString(p.Text)
		case PartData:
			o := p.object()
			subject, desc := str(o, "subject"), str(o, "description")
			if subject != "" {
				b.WriteString("**" + subject + "**")
				if desc != "" {
					b.WriteString("\n\n")
				}
			}
			b.WriteString(desc)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + "\n\n"
}

// textOf joins an artifact's text parts.
func (a *Artifact) textOf() string {
	var b strings.Builder
	for i := range a.Parts {
		if a.Parts[i].Kind == PartText {
			b.WriteString(a.Parts[i].Text)
		}
	}
	return b.String()
}
