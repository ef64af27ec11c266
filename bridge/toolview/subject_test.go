package toolview

import (
	"testing"

	"github.com/shimdev/shim/acp"
)

// TestSameSubject: a park's command names the call of that command (its
// first line, as titled), a park's file the call on that file (in the
// same project when both name one); nothing else matches.
func TestSameSubject(t *testing.T) {
	for _, tt := range []struct {
		kind acp.ToolKind
		a, b string
		want bool
	}{
		{acp.ToolKindExecute, `{"command":"npm test"}`, `{"command":"npm test"}`, true},
		{acp.ToolKindExecute, `{"command":"npm test"}`, `{"cmd":"  npm test\nnpm run lint"}`, true},
		{acp.ToolKindExecute, `{"command":"rm -rf build"}`, `{"cmd":"ls"}`, false},
		{acp.ToolKindExecute, `{}`, `{}`, false},
		{acp.ToolKindDelete, `{"path":"old.txt","project":"p"}`, `{"project":"p","path":"old.txt"}`, true},
		{acp.ToolKindDelete, `{"path":"old.txt"}`, `{"project":"p","path":"old.txt"}`, true},
		{acp.ToolKindDelete, `{"path":"old.txt","project":"p"}`, `{"project":"q","path":"old.txt"}`, false},
		{acp.ToolKindDelete, `{"path":"old.txt"}`, `{"path":"new.txt"}`, false},
		{acp.ToolKindDelete, `{}`, `{"path":""}`, false},
	} {
		if got := SameSubject(tt.kind, ParseArgs(tt.a), ParseArgs(tt.b)); got != tt.want {
			t.Errorf("SameSubject(%s, %s, %s) = %v, want %v", tt.kind, tt.a, tt.b, got, tt.want)
		}
	}
}
