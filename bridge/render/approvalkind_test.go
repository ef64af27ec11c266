package render

import (
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// TestApprovalKind: what an approval asks about is read from its title's
// words, each on its own: a delete before a command, "command" or
// "shell" alone a command, anything else other (SPEC §6, §18).
func TestApprovalKind(t *testing.T) {
	for title, want := range map[string]acp.ToolKind{
		"Approve shell command?":         acp.ToolKindExecute,
		"Run this command?":              acp.ToolKindExecute,
		"Open a shell?":                  acp.ToolKindExecute,
		"Approve permanent file delete?": acp.ToolKindDelete,
		"Delete by shell command?":       acp.ToolKindDelete,
		"Send the email?":                acp.ToolKindOther,
		"":                               acp.ToolKindOther,
	} {
		if got := ApprovalKind(&a2a.Hitl{Title: title}); got != want {
			t.Errorf("ApprovalKind(%q) = %q, want %q", title, got, want)
		}
	}
}
