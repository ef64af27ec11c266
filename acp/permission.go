package acp

import "encoding/json"

// PermissionOptionKind is how the client presents an option.
type PermissionOptionKind string

// Option kinds.
const (
	AllowOnce   PermissionOptionKind = "allow_once"
	AllowAlways PermissionOptionKind = "allow_always"
	RejectOnce  PermissionOptionKind = "reject_once"
)

// PermissionOption is one answer the person can pick.
type PermissionOption struct {
	OptionID string               `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
}

// RequestPermissionParams is session/request_permission's params.
type RequestPermissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  PermissionToolCall `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// PermissionToolCall is the ToolCallUpdate a permission request names.
type PermissionToolCall struct {
	ToolCallID string            `json:"toolCallId"`
	Title      string            `json:"title,omitempty"`
	Kind       ToolKind          `json:"kind,omitempty"`
	Content    []ToolCallContent `json:"content,omitempty"`
	Locations  []Location        `json:"locations,omitempty"`
	RawInput   json.RawMessage   `json:"rawInput,omitempty"`
}

// OutcomeSelected is the outcome of a request answered with an option
// (anything else, "cancelled" included, is no answer).
const OutcomeSelected = "selected"

// RequestPermissionResponse is the client's answer.
type RequestPermissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}
