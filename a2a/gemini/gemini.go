package gemini

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/jsonrpc"
	"github.com/shimdev/shim/a2a/wire"
	"github.com/shimdev/shim/a2a/wire/request"
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
//     so each session's task has a connection of its own: a binding with
//     one connection, kept busy with tasks/get while an approval is asked,
//     and CancelTask drops the running stream instead of cancelling the
//     task (tasks/cancel makes it terminal).

// CardName is the name of Gemini CLI's A2A server's card: the profile
// applies to the agent of a card so named (unless another is asked for).
const CardName = "Gemini SDLC Agent"

// Binding is the JSON-RPC binding with the coderAgent protocol.
type Binding struct {
	*jsonrpc.Binding
	card *a2a.Card

	mu       sync.Mutex
	sessions map[string]*geminiSession // by the session's (ACP) context id
	tasks    map[string]*geminiSession // by the server's task id
}

var _ binding.Binding = (*Binding)(nil)

// New returns the profile's binding of card's endpoint over conn. It marks
// the card NoReplay: the server's tasks/get history is unreliable.
func New(conn *binding.Conn, card *a2a.Card) *Binding {
	card.NoReplay = true
	return &Binding{Binding: jsonrpc.New(conn, card), card: card,
		sessions: map[string]*geminiSession{}, tasks: map[string]*geminiSession{}}
}

// SendStreaming implements binding.Binding.
func (g *Binding) SendStreaming(ctx context.Context, m a2a.OutMessage) (*binding.Stream, error) {
	s := g.session(m.ContextID)
	s.stopWarm(false)
	msg := s.encode(m)
	st, err := s.rpc.OpenStream(ctx, "message/stream", map[string]any{"message": msg}, &geminiFrames{s: s})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.running = st
	s.mu.Unlock()
	return st, nil
}

// Send implements binding.Binding (the server streams; a blocking send is only
// encoded the same way).
func (g *Binding) Send(ctx context.Context, m a2a.OutMessage, immediate bool) (*binding.Stream, error) {
	s := g.session(m.ContextID)
	p := map[string]any{"message": s.encode(m)}
	if immediate {
		p["configuration"] = request.SendConfiguration(a2a.V03)
	}
	return s.rpc.OpenStream(ctx, "message/send", p, &geminiFrames{s: s})
}

// Subscribe implements binding.Binding.
func (g *Binding) Subscribe(ctx context.Context, taskID string) (*binding.Stream, error) {
	s := g.byTask(taskID)
	if s == nil {
		return g.Binding.Subscribe(ctx, taskID)
	}
	st, err := s.rpc.OpenStream(ctx, "tasks/resubscribe", map[string]any{"id": taskID}, &geminiFrames{s: s})
	if err == nil {
		s.mu.Lock()
		s.running = st
		s.mu.Unlock()
	}
	return st, err
}

// GetTask implements binding.Binding: on the task's own connection, its state
// read as a stream's final frame would be. The request outlives ctx
// (getBehind): the caller is answered when ctx ends.
func (g *Binding) GetTask(ctx context.Context, id string, historyLength int) (*a2a.Task, error) {
	s := g.byTask(id)
	if s == nil {
		return g.Binding.GetTask(ctx, id, historyLength)
	}
	t, err := s.getBehind(ctx, id, historyLength)
	if err != nil {
		return nil, err
	}
	t.ContextID = s.session
	if t.Status.State == a2a.StateInputRequired {
		ev := s.finalStatus(a2a.Event{Kind: a2a.EventStatus, TaskID: id, ContextID: s.session, Status: t.Status})
		t.Status = ev.Status
	}
	return t, nil
}

// geminiFrames reads one stream's frames.
type geminiFrames struct {
	s   *geminiSession
	dec wire.Decoder
	// ended is set once the final frame was read.
	ended bool
}

var (
	_ binding.FinalFrames  = (*geminiFrames)(nil)
	_ binding.SharedFrames = (*geminiFrames)(nil)
)

// Share implements binding.SharedFrames.
func (f *geminiFrames) Share() { f.dec.Share() }

// Failure implements binding.Frames.
func (f *geminiFrames) Failure(data []byte) error { return wire.ErrorFrame(data) }

// Final implements binding.FinalFrames.
func (f *geminiFrames) Final(a2a.Event) bool { return f.ended }

// Event implements binding.Frames.
func (f *geminiFrames) Event(data []byte) (a2a.Event, error) {
	ev, err := f.dec.Frame(data)
	if err != nil {
		return ev, err
	}
	f.s.adopt(&ev)
	switch ev.Kind {
	case a2a.EventArtifact:
		return toolOutput(ev), nil
	case a2a.EventStatus:
		return f.status(ev), nil
	}
	return ev, nil
}

// adopt learns the server's ids of the session's task from ev and gives
// ev the session's context.
func (s *geminiSession) adopt(ev *a2a.Event) {
	switch ev.Kind {
	case a2a.EventTask:
		if ev.Task != nil {
			s.learn(ev.Task.ID, ev.Task.ContextID)
			ev.Task.ContextID = s.session
			ev.Task.History = nil // the server's own copy of the message just sent
		}
	case a2a.EventStatus, a2a.EventArtifact:
		s.learn(ev.TaskID, ev.ContextID)
	}
	if ev.ContextID != "" {
		ev.ContextID = s.session
	}
}

// toolOutput reads the artifact tool-<callId>-output as that call's live
// output; any other artifact is as it is.
func toolOutput(ev a2a.Event) a2a.Event {
	a := ev.Artifact
	if a == nil {
		return ev
	}
	callID, ok := strings.CutPrefix(a.ID, "tool-")
	if !ok || !strings.HasSuffix(callID, "-output") {
		return ev
	}
	callID = strings.TrimSuffix(callID, "-output")
	return a2a.Event{Kind: a2a.EventStatus, TaskID: ev.TaskID, ContextID: ev.ContextID,
		Status: a2a.Status{State: a2a.StateWorking, Message: &a2a.Message{Role: "agent",
			Tools: []a2a.ToolCall{{ID: callID, Phase: a2a.PhaseOutput, Output: textOf(a)}}}}}
}

// status reads a status update: by its coderAgent kind, and as the end of
// the turn only when it is final.
func (f *geminiFrames) status(ev a2a.Event) a2a.Event {
	final := ev.Final
	if final {
		f.ended = true
	}
	ev = f.s.coder(ev)
	if ev.Kind != a2a.EventStatus {
		return ev
	}
	if !final {
		// The state of a frame that is not final may be stale.
		if !ev.Status.State.Terminal() {
			ev.Status.State = a2a.StateWorking
		}
		return ev
	}
	ev = f.s.finalStatus(ev)
	if ev.Status.State == a2a.StateInputRequired {
		if st := f.s.runningCtx(); st != nil {
			f.s.warmUp(st, ev.TaskID)
		}
	}
	return ev
}

// coder reads a status update by its metadata.coderAgent kind: text
// content and citations are appended answer text, a thought is thought
// text, a tool call update is the calls it names.
func (s *geminiSession) coder(ev a2a.Event) a2a.Event {
	m := ev.Status.Message
	kind := wire.String(wire.Member(wire.Member(ev.Metadata, "coderAgent"), "kind"))
	switch kind {
	case "text-content", "citation":
		if ev.Final {
			// A final frame that also carries text: its text is lost
			// rather than the end of the turn.
			return a2a.Event{Kind: a2a.EventStatus, TaskID: ev.TaskID, ContextID: ev.ContextID, Final: true,
				Status: a2a.Status{State: a2a.StateInputRequired}}
		}
		id := "gemini-text"
		if tr := wire.String(wire.Member(ev.Metadata, "traceId")); tr != "" {
			id += "-" + tr
		}
		return a2a.Event{Kind: a2a.EventArtifact, TaskID: ev.TaskID, ContextID: ev.ContextID, Append: true,
			Artifact: &a2a.Artifact{ID: id, Parts: []a2a.Part{{Kind: a2a.PartText, Text: m.Text()}}}}
	case "thought":
		ev.Status.Message = &a2a.Message{Role: "agent", TaskID: ev.TaskID, ContextID: ev.ContextID,
			Parts: []a2a.Part{{Kind: a2a.PartText, Text: thoughtText(m)}}}
	case "tool-call-update", "tool-call-confirmation":
		ev.Status.Message = &a2a.Message{Role: "agent", TaskID: ev.TaskID, ContextID: ev.ContextID, Tools: s.tools(m)}
	}
	return ev
}

// tools reads the tool calls of a tool call update's data parts.
func (s *geminiSession) tools(m *a2a.Message) []a2a.ToolCall {
	var tools []a2a.ToolCall
	if m == nil {
		return nil
	}
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind == a2a.PartData {
			var u geminiToolUpdate
			if json.Unmarshal(p.Data, &u) == nil && u.Request.CallID != "" {
				tools = append(tools, s.tool(&u))
			}
		}
	}
	return tools
}

// finalStatus reads a final input-required: a park on the first call that
// waits for approval, else the normal end of a turn (completed).
func (s *geminiSession) finalStatus(ev a2a.Event) a2a.Event {
	if ev.Status.State != a2a.StateInputRequired {
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
		ev.Status.State = a2a.StateCompleted
		return ev
	}
	h := &a2a.Hitl{Kind: a2a.HitlApproval, Title: a.title, Detail: a.detail, ToolCallID: a.callID, Always: true}
	ev.Status.Message = &a2a.Message{Role: "agent", TaskID: ev.TaskID, ContextID: ev.ContextID, Park: h}
	return ev
}

// thoughtText renders a thought {subject, description}.
func thoughtText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.Kind {
		case a2a.PartText:
			b.WriteString(p.Text)
		case a2a.PartData:
			var o map[string]any
			if len(p.Data) > 0 && p.Data[0] == '{' {
				_ = json.Unmarshal(p.Data, &o)
			}
			subject, _ := o["subject"].(string)
			desc, _ := o["description"].(string)
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
func textOf(a *a2a.Artifact) string {
	var b strings.Builder
	for i := range a.Parts {
		if a.Parts[i].Kind == a2a.PartText {
			b.WriteString(a.Parts[i].Text)
		}
	}
	return b.String()
}
