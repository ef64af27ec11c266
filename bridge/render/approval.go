package render

// An approval's views: the tool call it asks about when it names an open
// one, else a pending view of its own, ended when it was answered.

import (
	"encoding/json"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/termsafe"
)

// OpenCall is an open (not ended) tool call as an approval sees it.
type OpenCall struct {
	Kind     acp.ToolKind
	RawInput json.RawMessage
}

// ApprovalView is the pending view of an approval that names no open call;
// its title (the server's) on one line, without control characters or
// bidirectional overrides (SPEC §15).
func ApprovalView(id, title string, kind acp.ToolKind, rawInput json.RawMessage) acp.Update {
	return acp.ToolCall{ToolCallID: id, Title: termsafe.Line(title), Kind: kind, Status: acp.ToolPending, RawInput: rawInput}
}

// ApprovalEnd ends an approval's own view: completed when it was approved,
// else failed.
func ApprovalEnd(id string, approved bool) acp.Update {
	status := acp.ToolFailed
	if approved {
		status = acp.ToolCompleted
	}
	return acp.ToolCallUpdate{ToolCallID: id, Status: status}
}
