package toolview

import (
	"strings"
	"testing"

	"github.com/shimdev/shim/acp"
)

// TestTitleFromTheAgentsHints: a call whose name shim has no title for is
// titled by what the agent says of it (its kind, display text and
// subject), a row of agentRules each; the name's own title comes first.
// The Gemini CLI rows are those its profile's calls need (the first three
// are the titles of the captured read, shell and edit calls).
func TestTitleFromTheAgentsHints(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, tt := range []struct {
		name, raw string
		h         Hints
		want      string
	}{
		{"read_file", `{"file_path":"/home/dev/ws/hello.txt"}`, Hints{acp.ToolKindRead, "ReadFile", "/home/dev/ws/hello.txt"}, "Read /home/dev/ws/hello.txt"},
		{"run_shell_command", `{"command":"echo shell-was-run > shell-out.txt && cat shell-out.txt","description":"Write a marker file and print it"}`,
			Hints{acp.ToolKindExecute, "Shell", "echo shell-was-run > shell-out.txt && cat shell-out.txt"}, "echo shell-was-run > shell-out.txt && cat shell-out.txt"},
		{"replace", `{"file_path":"/home/dev/ws/a.txt","old_string":"a","new_string":"b"}`, Hints{acp.ToolKindEdit, "Edit", "/home/dev/ws/a.txt"}, "Edit /home/dev/ws/a.txt"},
		{"read_many_files", `{}`, Hints{acp.ToolKindRead, "ReadManyFiles", "/w"}, "Read /w"},
		{"list_directory", `{}`, Hints{acp.ToolKindRead, "ReadFolder", "/w/src"}, "List /w/src"},
		{"write_file", `{"file_path":"/w/n.txt"}`, Hints{acp.ToolKindEdit, "WriteFile", "/w/n.txt"}, "Write /w/n.txt"},
		{"glob", `{}`, Hints{acp.ToolKindSearch, "FindFiles", "*.go"}, "Search for '*.go'"},
		{"web_fetch", `{}`, Hints{acp.ToolKindFetch, "WebFetch", "summarise https://example.com"}, "WebFetch: summarise https://example.com"},
		{"web_fetch", `{}`, Hints{Kind: acp.ToolKindFetch, Subject: "https://example.com"}, "web_fetch: https://example.com"},
		// A command is its first line, cut at 80 characters then "…": the
		// one rule (SPEC §18: no "Run: ").
		{"run_shell_command", `{}`, Hints{acp.ToolKindExecute, "Shell", "make  \nmake test"}, "make"},
		{"run_shell_command", `{}`, Hints{acp.ToolKindExecute, "Shell", long}, strings.Repeat("é", 80) + "…"},
		// No rule the subject fills: the display text, else the name.
		{"save_memory", `{"fact":"x"}`, Hints{acp.ToolKindThink, "SaveMemory", "x"}, "SaveMemory"},
		{"replace", `{"x":1}`, Hints{Kind: acp.ToolKindEdit, Display: "Edit hello.txt"}, "Edit hello.txt"},
		{"mystery", `{"url":"https://example.com"}`, Hints{Kind: acp.ToolKindFetch, Display: "Fetch the page"}, "Fetch the page"},
		{"save_memory", `{}`, Hints{Kind: acp.ToolKindThink, Subject: "x"}, "save_memory"},
		{"find_things", `{}`, Hints{Kind: acp.ToolKindSearch}, "find_things"},
		// The name's title comes first; a name titled as itself (no
		// args yet) takes the hints.
		{"read_file", `{"path":"a.go"}`, Hints{acp.ToolKindRead, "ReadFile", "/w/b.go"}, "Read a.go"},
		{"write_todos", `{}`, Hints{acp.ToolKindOther, "WriteTodos", "x"}, "Update plan"},
		{"read_file", ``, Hints{acp.ToolKindRead, "ReadFile", "/w/b.go"}, "Read /w/b.go"},
	} {
		if got := Title(tt.name, ParseArgs(tt.raw), tt.h); got != tt.want {
			t.Errorf("Title(%q, %s, %+v) = %q, want %q", tt.name, tt.raw, tt.h, got, tt.want)
		}
	}
}
