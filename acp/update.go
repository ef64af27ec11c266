package acp

import "encoding/json"

// Update is one session/update: AgentMessageChunk, AgentThoughtChunk,
// UserMessageChunk, ToolCall, ToolCallUpdate, UsageUpdate,
// SessionInfoUpdate, Notice, AvailableCommandsUpdate, CurrentModeUpdate or
// ConfigOptionUpdate (config.go).
type Update interface{ isUpdate() }

// SessionNotification is session/update's params.
type SessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    Update `json:"update"`
}

// The chunks carry the id of the message they belong to (MessageID):
// every chunk of one message the same, another message another (SPEC
// §14). It comes before the content, so that the text of a chunk ends its
// line (chunks.go merges into it there).

// AgentMessageChunk is a piece of the agent's answer.
type AgentMessageChunk struct {
	SessionUpdate tagAgentMessageChunk `json:"sessionUpdate"`
	MessageID     string               `json:"messageId,omitempty"`
	Content       ContentBlock         `json:"content"`
}

// AgentThoughtChunk is a piece of the agent's reasoning.
type AgentThoughtChunk struct {
	SessionUpdate tagAgentThoughtChunk `json:"sessionUpdate"`
	MessageID     string               `json:"messageId,omitempty"`
	Content       ContentBlock         `json:"content"`
}

// UserMessageChunk is a piece of the user's message (replay).
type UserMessageChunk struct {
	SessionUpdate tagUserMessageChunk `json:"sessionUpdate"`
	MessageID     string              `json:"messageId,omitempty"`
	Content       ContentBlock        `json:"content"`
}

// NoticeSeverity is how a notice is to be shown.
type NoticeSeverity string

// Notice severities (the ones shim sends).
const (
	NoticeInfo    NoticeSeverity = "info"
	NoticeWarning NoticeSeverity = "warning"
)

// Notice is what shim says about itself, shown apart from the
// conversation; only to a client that advertised session.notices.
type Notice struct {
	SessionUpdate tagNotice      `json:"sessionUpdate"`
	Severity      NoticeSeverity `json:"severity"`
	Title         string         `json:"title"`
	Description   string         `json:"description,omitempty"`
}

// ToolKind is a tool call's kind: how a client draws and handles the
// call.
type ToolKind = string

// Tool kinds (the ones shim sends).
const (
	ToolKindRead    ToolKind = "read"
	ToolKindSearch  ToolKind = "search"
	ToolKindEdit    ToolKind = "edit"
	ToolKindDelete  ToolKind = "delete"
	ToolKindMove    ToolKind = "move"
	ToolKindExecute ToolKind = "execute"
	ToolKindFetch   ToolKind = "fetch"
	ToolKindThink   ToolKind = "think"
	ToolKindOther   ToolKind = "other"
)

// ToolStatus is a tool call's status.
type ToolStatus string

// Tool call statuses.
const (
	ToolPending    ToolStatus = "pending"
	ToolInProgress ToolStatus = "in_progress"
	ToolCompleted  ToolStatus = "completed"
	ToolFailed     ToolStatus = "failed"
)

// ToolCall shows a tool call in the editor.
type ToolCall struct {
	SessionUpdate tagToolCall       `json:"sessionUpdate"`
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title"`
	Kind          ToolKind          `json:"kind,omitempty"`
	Status        ToolStatus        `json:"status,omitempty"`
	Content       []ToolCallContent `json:"content,omitempty"`
	Locations     []Location        `json:"locations,omitempty"`
	RawInput      json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput     json.RawMessage   `json:"rawOutput,omitempty"`
	Meta          *ToolMeta         `json:"_meta,omitempty"`
}

// ToolCallUpdate changes a tool call shown: only the fields set.
type ToolCallUpdate struct {
	SessionUpdate tagToolCallUpdate `json:"sessionUpdate"`
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title,omitempty"`
	Kind          ToolKind          `json:"kind,omitempty"`
	Status        ToolStatus        `json:"status,omitempty"`
	Content       []ToolCallContent `json:"content,omitempty"`
	Locations     []Location        `json:"locations,omitempty"`
	RawInput      json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput     json.RawMessage   `json:"rawOutput,omitempty"`
	Meta          *ToolMeta         `json:"_meta,omitempty"`
}

// UsageUpdate is the context window's use.
type UsageUpdate struct {
	SessionUpdate tagUsageUpdate `json:"sessionUpdate"`
	Used          int64          `json:"used"`
	Size          int64          `json:"size"`
	Cost          *Cost          `json:"cost,omitempty"`
}

// Cost is an amount of money.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// SessionInfoUpdate changes the session's title or time.
type SessionInfoUpdate struct {
	SessionUpdate tagSessionInfoUpdate `json:"sessionUpdate"`
	Title         string               `json:"title,omitempty"`
	UpdatedAt     string               `json:"updatedAt,omitempty"`
}

func (AgentMessageChunk) isUpdate() {}
func (AgentThoughtChunk) isUpdate() {}
func (UserMessageChunk) isUpdate()  {}
func (ToolCall) isUpdate()          {}
func (ToolCallUpdate) isUpdate()    {}
func (UsageUpdate) isUpdate()       {}
func (SessionInfoUpdate) isUpdate() {}
func (Notice) isUpdate()            {}
