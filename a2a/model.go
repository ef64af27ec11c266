package a2a

import (
	"encoding/json"
	"strings"
	"time"
)

// State is a task state, normalized to the lowercase, dash-separated form
// ("input-required") whatever the wire sent ("TASK_STATE_INPUT_REQUIRED", 6).
type State string

// The task states.
const (
	StateUnknown       State = "unknown"
	StateSubmitted     State = "submitted"
	StateWorking       State = "working"
	StateInputRequired State = "input-required"
	StateAuthRequired  State = "auth-required"
	StateCompleted     State = "completed"
	StateFailed        State = "failed"
	StateCanceled      State = "canceled"
	StateRejected      State = "rejected"
)

// ParseState normalizes a state name: it strips TASK_STATE_, lowercases and
// turns underscores into dashes. Unknown names give StateUnknown.
func ParseState(s string) State {
	if st, ok := statesAsSpelled[s]; ok {
		return st // no lowered copy for the names as servers write them
	}
	return parseState(s)
}

// parseState is ParseState of any spelling.
func parseState(s string) State {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "task_state_")
	s = strings.ReplaceAll(s, "_", "-")
	switch st := State(s); st {
	case StateSubmitted, StateWorking, StateInputRequired, StateAuthRequired,
		StateCompleted, StateFailed, StateCanceled, StateRejected:
		return st
	case "cancelled":
		return StateCanceled
	}
	return StateUnknown
}

// statesAsSpelled are the states by the names the dialects give them
// (1.0's TASK_STATE_COMPLETED, 0.3's completed).
var statesAsSpelled = func() map[string]State {
	m := map[string]State{}
	for _, st := range []State{StateSubmitted, StateWorking, StateInputRequired, StateAuthRequired,
		StateCompleted, StateFailed, StateCanceled, StateRejected} {
		m[string(st)] = st
		m["TASK_STATE_"+strings.ToUpper(strings.ReplaceAll(string(st), "-", "_"))] = st
	}
	return m
}()

// Terminal reports whether the task can no longer change.
func (s State) Terminal() bool {
	switch s {
	case StateCompleted, StateFailed, StateCanceled, StateRejected:
		return true
	}
	return false
}

// Interrupted reports whether the task waits for the user.
func (s State) Interrupted() bool {
	return s == StateInputRequired || s == StateAuthRequired
}

// PartKind tells which member of a Part is set.
type PartKind uint8

// The part kinds.
const (
	PartText PartKind = iota
	PartFile          // URL or Raw, with MediaType and Filename
	PartData          // Data, a JSON value
)

// Part is one piece of a message or an artifact.
type Part struct {
	Kind      PartKind
	Text      string
	URL       string
	Raw       []byte
	MediaType string
	Filename  string
	// Data is the raw JSON of a data part.
	Data []byte
	// MimeType is metadata.mimeType: how extension data parts are told apart.
	MimeType string
	// ToolEvent is set when the part is a server's tool event (a call,
	// its result, code run and its output: read into its message's tool
	// calls, never shown as it is), ToolEventType the server's name of the
	// event; Thinking when a text part is the agent's thinking, not its
	// answer (Thought). The decoder sets them from the metadata of the
	// servers that mark parts so (package wire, departures.go).
	ToolEvent     bool
	ToolEventType string
	Thinking      bool
	// Metadata is the part's metadata object as its raw JSON (nil when it
	// had none, or one past 64 KiB: what shim reads of it is read as it is
	// decoded); the keys shim reads are the fields above.
	Metadata json.RawMessage
}

// Message is an A2A message.
type Message struct {
	ID        string
	Role      string // "user" or "agent"
	TaskID    string
	ContextID string
	Parts     []Part
	// Metadata is the message's metadata object as its raw JSON (nil past
	// 64 KiB: no message keeps a big frame); what shim reads of it is
	// below, read as it is decoded whatever its size.
	Metadata json.RawMessage

	// What the extensions shim understands say, read once when the
	// message is decoded (package wire), or by an agent profile; the
	// accessors (ToolCalls, Hitl, …) read them on a nil message too.

	// Tools are its tool events (ToolCalls); ParkTools those of them a
	// park does not take as its data: all but those of its tool-event
	// parts (in a park such a part says what the park is about: ParkData,
	// Status.ToolCalls).
	Tools     []ToolCall
	ParkTools []ToolCall
	// Park is its park (Hitl).
	Park *Hitl
	// Reasoning is its reasoning (Thoughts).
	Reasoning []string
	// Steers are the steers it reports read (SteersConsumed).
	Steers []SteerItem
	// Resume is set when it answers a park (HitlResume).
	Resume bool
	// Data is what its data parts of no known extension carry (ParkData).
	Data *ParkData
}

// FromUser reports whether the message is the user's.
func (m *Message) FromUser() bool { return m != nil && m.Role == "user" }

// Artifact is an output of a task.
type Artifact struct {
	ID    string
	Name  string
	Parts []Part
	// Metadata is the artifact's metadata object as its raw JSON (nil
	// past 64 KiB, as a message's).
	Metadata json.RawMessage
	// Cost is its cost-v1 usage (Usage) and Window its context-v1
	// payload (Context), read once when it is decoded.
	Cost   *Usage
	Window *ContextInfo
}

// Status is a task's state with its optional message.
type Status struct {
	State   State
	Message *Message
	// Timestamp is when the task entered the state (zero when the server
	// gave none).
	Timestamp time.Time
}

// Task is a task snapshot.
type Task struct {
	ID        string
	ContextID string
	Status    Status
	Artifacts []Artifact
	History   []Message
}

// EventKind tells which kind of stream frame an Event is.
type EventKind uint8

// The event kinds.
const (
	EventTask EventKind = iota + 1
	EventStatus
	EventArtifact
	EventMessage
)

func (k EventKind) String() string {
	switch k {
	case EventTask:
		return "task"
	case EventStatus:
		return "status"
	case EventArtifact:
		return "artifact"
	case EventMessage:
		return "message"
	}
	return "none"
}

// Event is one frame of a stream, in either dialect.
type Event struct {
	Kind      EventKind
	TaskID    string
	ContextID string

	// Task is set for EventTask.
	Task *Task
	// Status is set for EventStatus (and mirrors Task.Status for EventTask).
	Status Status
	// Final is the older producers' end-of-stream flag on a status update.
	Final bool

	// Artifact, Append and LastChunk are set for EventArtifact.
	Artifact  *Artifact
	Append    bool
	LastChunk bool

	// Message is set for EventMessage.
	Message *Message

	// Metadata is a status or artifact update's own metadata (an agent
	// profile reads its protocol there), as its raw JSON (nil past
	// 64 KiB, as a message's).
	Metadata json.RawMessage
}

// OutMessage is a user message shim sends. Its intents are typed; the
// encoder spells them as the message metadata the server reads.
type OutMessage struct {
	ContextID string
	TaskID    string
	Parts     []Part
	// Resume answers the parked task TaskID (hitl_resume: true).
	Resume bool
	// Bypass asks for commands to run without approval
	// (bypass_permissions: true).
	Bypass bool
	// SkillHint is the id of the skill the prompt invokes (skillHint).
	SkillHint string
	// Model is the model the person chose; empty is the agent's default
	// (model).
	Model string
	// Workspace is the absolute directory the session works in (the ACP
	// cwd). Agents that take their workspace from the first message of a
	// task read it; others ignore it.
	Workspace string
	// Approval answers the approval park the task waits on. With no Parts
	// the encoder spells it: the text "approved" or "denied" by default.
	Approval *ApprovalAnswer
	// Values answers a park that asked for data (ParkData.Schema): a JSON
	// object. With no Parts the encoder sends it as one data part, and
	// its JSON as a text part.
	Values json.RawMessage
}

// ApprovalAnswer is the person's answer to an approval park.
type ApprovalAnswer struct {
	// ToolCallID is the park's Hitl.ToolCallID (empty when it named none).
	ToolCallID string
	// Allow is true when the person allowed the call.
	Allow bool
	// Always asks the agent to allow such calls from now on (only with a
	// park whose Hitl.Always is set).
	Always bool
}
