package a2a

import (
	"encoding/json"
	"strings"
)

// Extension identifiers shim understands.
const (
	ExtToolCall       = "https://proto-labs.ai/a2a/ext/tool-call-v1"
	ExtCost           = "https://proto-labs.ai/a2a/ext/cost-v1"
	MimeToolCall      = "application/vnd.protolabs.tool-call-v1+json"
	MimeCost          = "application/vnd.protolabs.cost-v1+json"
	MimeReasoning     = "application/vnd.protolabs.reasoning-v1+json"
	MimeHitl          = "application/vnd.protolabs.hitl-v1+json"
	MimeSteerConsumed = "application/vnd.protolabs.steer-consumed-v1+json"
	MimeContext       = "application/vnd.protolabs.context-v1+json"
	mimeVendorPrefix  = "application/vnd.protolabs."
)

// Extensions are the extension URIs shim announces in A2A-Extensions.
var Extensions = []string{ExtToolCall, ExtCost}

// Phase is a tool call's phase, lowercased.
type Phase string

// The tool call phases shim acts on (any other is treated as started).
const (
	PhaseStarted   Phase = "started"
	PhaseCompleted Phase = "completed"
	PhaseFailed    Phase = "failed"
	// PhasePending is a call not yet running (validated, scheduled, or
	// waiting for approval).
	PhasePending Phase = "pending"
	// PhaseOutput carries the call's live output in Output, replacing what
	// was shown; the call's phase does not change.
	PhaseOutput Phase = "output"
)

// ToolCodeExecution is the tool name of code execution tool events: the
// code part starts the call (its Args the code and language), the
// result part ends it (its Result the output).
const ToolCodeExecution = "code_execution"

// ToolCall is one tool-call-v1 event (or a server's tool-event part: a
// function call or response, code run or its result).
type ToolCall struct {
	// ID is empty for a call the server names no id for (code
	// execution): its start is a new call, its end ends the latest call
	// of its Name not ended.
	ID    string
	Name  string
	Phase Phase
	// Args is the tool's arguments as JSON text. Servers send a JSON string
	// cut at a few hundred characters, so it may not parse.
	Args     string
	Result   string
	Error    string
	ParentID string
	// Kind is the ACP tool kind the agent gives the call; empty: shim
	// derives it from Name.
	Kind string
	// Display is the agent's display text for the call (a display name of
	// its tool, such as "ReadFile", or words of its own), and Subject what
	// the call acts on as the agent's args name it (a file or folder, a
	// command, a pattern or query, an address): hints shim builds the
	// call's title from when it knows no title for Name. The A2A side
	// never builds a title.
	Display string
	Subject string
	// Output is the live output of a PhaseOutput event.
	Output string
	// Diff is the change an edit made, when the agent reports it.
	Diff *ToolDiff
	// Paths are the files and folders the call touches as an agent
	// profile read them from the call's own args (an absolute path, or one
	// relative to the session's workspace), for agents whose arg names
	// shim's generic reading does not know.
	Paths []ToolPath
}

// ToolPath is a place a tool call touches: a path and, when the call names
// one, a 1-based line (0: none).
type ToolPath struct {
	Path string
	Line int
}

// ToolDiff is a file change: the whole old and new text of Path.
type ToolDiff struct {
	Path    string
	OldText string
	NewText string
}

// Usage is a cost-v1 payload.
type Usage struct {
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostUSD             float64
}

// ContextInfo is a context-v1 payload.
type ContextInfo struct {
	Tokens int64
	Window int64
}

// HitlKind is what a hitl-v1 park asks for.
type HitlKind string

// The park kinds; a park of any other kind is read as a question.
const (
	HitlApproval HitlKind = "approval"
	HitlQuestion HitlKind = "question"
	HitlForm     HitlKind = "form"
)

// Answer is the text of the message that answers an approval park.
type Answer string

// The answers to an approval.
const (
	AnswerApproved Answer = "approved"
	AnswerDenied   Answer = "denied"
)

// Hitl is a hitl-v1 park: an approval, a question or a form.
type Hitl struct {
	Kind     HitlKind
	Title    string
	Detail   string
	Project  string
	Question string
	// Description is a form's description.
	Description string
	Fields      []FormField
	// ToolCallID is the tool call an approval is about, when the agent
	// names it: the answer refers to it and the call is shown as the
	// approval's.
	ToolCallID string
	// Always is set when the agent itself can remember an "always allow"
	// answer for this call (ApprovalAnswer.Always).
	Always bool
	// Steps are a form's steps, in order.
	Steps []FormStep
}

// FormStep is one step of a hitl-v1 form: its title and description (each
// may be empty) and its JSON Schema as sent (an object of fields).
type FormStep struct {
	Title       string
	Description string
	Schema      json.RawMessage
}

// FormField is one field of a hitl-v1 form.
type FormField struct {
	Name        string
	Title       string
	Type        string
	Description string
	Required    bool
	Options     []string
	Multiple    bool
}

// SteerItem is one steer the agent read (steer-consumed-v1).
type SteerItem struct {
	ID   string
	Text string
}

// Known reports whether p is a part shim interprets or deliberately
// ignores (a vendor extension or a tool-event part) rather than shows as
// is.
func (p *Part) Known() bool {
	if p.Vendor() {
		return true
	}
	return p.ToolEvent
}

// Vendor reports whether p is a part of an extension of shim's own vendor
// (a mime type under application/vnd.protolabs.).
func (p *Part) Vendor() bool { return strings.HasPrefix(p.MimeType, mimeVendorPrefix) }

// Thought reports whether p is a text of the agent's thinking.
func (p *Part) Thought() bool {
	return p.Kind == PartText && p.Thinking
}

// DataJSON returns the data of a data part as indented-free JSON text.
func (p *Part) DataJSON() string { return string(p.Data) }

// Text returns the message's text parts joined, thoughts excluded.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind == PartText && !p.Thought() {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Thoughts returns the reasoning in the message: reasoning-v1 parts and
// thought texts, in order.
func (m *Message) Thoughts() []string {
	if m == nil {
		return nil
	}
	return m.Reasoning
}

// ToolCalls returns the tool events the message carries: tool-call-v1 in
// the message metadata (one object or a list), the older tool-call-v1
// data parts and tool-event parts (function calls and responses, code
// run and its result); or what an agent profile read.
func (m *Message) ToolCalls() []ToolCall {
	if m == nil {
		return nil
	}
	return m.Tools
}

// ToolCalls returns the tool events of the status message
// (Message.ToolCalls), but in a park (input-required, auth-required) its
// tool-event parts are the park's data (ParkData), not calls that run.
func (s Status) ToolCalls() []ToolCall {
	if s.Message == nil {
		return nil
	}
	if s.State.Interrupted() {
		return s.Message.ParkTools
	}
	return s.Message.Tools
}

// Hitl returns the message's park (hitl-v1, or what an agent profile
// read), if any.
func (m *Message) Hitl() *Hitl {
	if m == nil {
		return nil
	}
	return m.Park
}

// SteersConsumed returns the steers the agent reports having read.
func (m *Message) SteersConsumed() []SteerItem {
	if m == nil {
		return nil
	}
	return m.Steers
}

// HitlResume reports whether the message answers a park (its metadata
// carries hitl_resume: true).
func (m *Message) HitlResume() bool { return m != nil && m.Resume }

// ParkData returns what the message's data parts of no known extension
// carry; nil when it has none.
func (m *Message) ParkData() *ParkData {
	if m == nil {
		return nil
	}
	return m.Data
}

// Usage returns the artifact's cost-v1 usage, from its metadata or an
// older cost-v1 data part.
func (a *Artifact) Usage() (Usage, bool) {
	if a == nil || a.Cost == nil {
		return Usage{}, false
	}
	return *a.Cost, true
}

// Context returns the artifact's context-v1 payload.
func (a *Artifact) Context() (ContextInfo, bool) {
	if a == nil || a.Window == nil {
		return ContextInfo{}, false
	}
	return *a.Window, true
}
