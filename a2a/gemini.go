package a2a

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
)

// The Gemini CLI profile (SPEC §12.5): this file chooses it and decodes
// coderAgent frames into events. @google/gemini-cli-a2a-server speaks A2A
// 0.3 and declares no extension: its protocol rides metadata.coderAgent.
// The gemini*.go files read it into the event model the rest of shim
// knows, so that nothing above this package knows it talks to Gemini CLI:
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
