package toolview

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKindAndTitle(t *testing.T) {
	long := strings.Repeat("x", 100)
	wide := strings.Repeat("é", 100)
	tests := []struct {
		tool   string
		raw    string
		parent bool // the call has a parentToolCallId
		kind   string
		title  string
	}{
		// read
		{"read_file", ``, false, "read", "read_file"},
		{"read_file", `{"project": "protoAgent", "path": "server/a2a.py", "offset": 30, "limit": 20}`, false, "read", "Read protoAgent/server/a2a.py (lines 30–49)"},
		{"read_file", `{"project": "p", "path": "README.md", "offset": 3.0}`, false, "read", "Read p/README.md (from line 3)"},
		{"read_file", `{"path": "README.md", "offset": "5", "limit": 1}`, false, "read", "Read README.md (lines 5–5)"},
		{"read_file", `{"path": "README.md", "limit": 20}`, false, "read", "Read README.md"},
		{"read_file", `{"path": "README.md", "offset": 0, "limit": 20}`, false, "read", "Read README.md"},
		{"read_file", `{"path": "README.md", "offset": 7, "limit": 0}`, false, "read", "Read README.md (from line 7)"},
		{"read_file", `{"project": "protoAgent", "path": "a.go", "offset": 3`, false, "read", "Read protoAgent/a.go"},
		{"read_file", `{"project": "protoAgent", "path": "/abs/a.go"}`, false, "read", "Read /abs/a.go"},
		{"read_file", `{"project": "protoAgent", "pa`, false, "read", "read_file"},
		{"read_file", `{"project": "protoAgent", "path": "server/a2a.py", "offset": 30, "limit": 20}`, true, "read", "↳ Read protoAgent/server/a2a.py (lines 30–49)"},
		{"read_file", ``, true, "read", "↳ read_file"},
		{"list_dir", `{"project": "protoAgent", "path": "server"}`, false, "read", "List protoAgent/server"},
		{"list_dir", `{"path": "server"}`, false, "read", "List server"},
		{"list_dir", `{"project": "protoAgent"}`, false, "read", "List protoAgent"},
		{"list_dir", `{"project": "protoAgent", "path": "."}`, false, "read", "List protoAgent"},
		{"list_dir", `{"project": "protoAgent", "path": "ser`, false, "read", "list_dir"},
		{"list_projects", `{}`, false, "read", "list_projects"},
		{"list_projects", ``, false, "read", "list_projects"},
		// search
		{"search_files", ``, false, "search", "search_files"},
		{"search_files", `{"project": "protoAgent", "query": "SendStreamingMessage", "path": "."}`, false, "search", "Search protoAgent for 'SendStreamingMessage'"},
		{"search_files", `{"query": "TODO"}`, false, "search", "Search for 'TODO'"},
		{"search_files", `{"project": "protoAgent", "query": "a very long query that was cu`, false, "search", "search_files"},
		{"find_files", `{"project": "protoAgent", "pattern": "**/*.go"}`, false, "search", "Search protoAgent for '**/*.go'"},
		{"grep", `{"pattern": "func main", "path": "cmd"}`, false, "search", "Search for 'func main'"},
		{"grep", `{"pattern": "x"}`, true, "search", "↳ Search for 'x'"},
		// edit, delete, move
		{"write_file", `{"project": "protoAgent", "path": "docs/x.md", "content": "# Title\nlong body that never clo`, false, "edit", "Write protoAgent/docs/x.md"},
		{"write_file", `{"path": "notes.txt", "content": ""}`, false, "edit", "Write notes.txt"},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old": "x", "new": "y"}`, false, "edit", "Edit protoAgent/a.go"},
		{"edit_file", `{"path": "a.go", "old_string": "x`, false, "edit", "Edit a.go"},
		{"delete_file", `{"project": "protoAgent", "path": "tmp/a.txt"}`, false, "delete", "Delete protoAgent/tmp/a.txt"},
		{"delete_file", `{"path": "a.txt"}`, false, "delete", "Delete a.txt"},
		{"move_file", `{"project": "protoAgent", "path": "a.go", "dest": "b.go"}`, false, "move", "Move protoAgent/a.go to b.go"},
		{"move_file", `{"path": "a.go", "destination": "old/a.go"}`, false, "move", "Move a.go to old/a.go"},
		{"move_file", `{"path": "a.go", "new_path": "b.go"}`, false, "move", "Move a.go to b.go"},
		{"move_file", `{"to": "b.go", "path": "a.go"}`, false, "move", "Move a.go to b.go"},
		{"move_file", `{"project": "protoAgent", "path": "a.go", "dest": "very/long/pa`, false, "move", "Move protoAgent/a.go"},
		// plans (SPEC §11.5)
		{"write_todos", `{"todos": []}`, false, "think", "Update plan"},
		{"TodoWrite", ``, false, "think", "Update plan"},
		{"update_plan", `{"plan": [{"step": "a", "status": "pending"}]}`, true, "think", "↳ Update plan"},
		{"todo_write", `{"todos": [`, false, "think", "Update plan"},
		{"update_todos", `{}`, false, "think", "Update plan"},
		{"manage_todo_list", `{}`, false, "think", "Update plan"},
		{"todowrite", `{}`, false, "other", "todowrite"},
		// execute
		{"run_command", ``, false, "execute", "run_command"},
		{"run_command", `{"project": "protoAgent", "command": "go test ./..."}`, false, "execute", "go test ./..."},
		{"run_command", `{"command": "\n  cd server && go test ./...  \n go vet ./...\n"}`, false, "execute", "cd server && go test ./..."},
		{"run_command", `{"command": "` + long + `\nsecond line"}`, false, "execute", long[:80] + "…"},
		{"run_command", `{"command": "` + wide + `"}`, false, "execute", strings.Repeat("é", 80) + "…"},
		{"run_command", `{"command": "echo \"it's \\\"quoted\\\"\" | grep -c x"}`, false, "execute", `echo "it's \"quoted\"" | grep -c x`},
		{"run_command", `{"project": "protoAgent", "command": "cat > a.txt <<EOF\nline one\nline two that is cut`, false, "execute", "cat > a.txt <<EOF"},
		{"run_command", `{"command": "` + long + ` and more, cut`, false, "execute", long[:80] + "…"},
		{"run_command", `{"command": "` + long[:80] + `"}`, false, "execute", long[:80]},
		{"run_command", `{"command": "` + long[:81], false, "execute", "run_command"},
		{"run_command", `{"command": "` + long[:82], false, "execute", long[:80] + "…"},
		{"run_command", `{"command": "short but cut`, false, "execute", "run_command"},
		{"run_command", `{"command": "go test\`, false, "execute", "run_command"},
		{"run_command", `{"command": "ls"}`, true, "execute", "↳ ls"},
		{"bash", `{"cmd": "make -j8 all"}`, false, "execute", "make -j8 all"},
		{"shell", `{"command": ["ls", "-la", "/tmp"]}`, false, "execute", "ls -la /tmp"},
		{"shell", `{"command": ""}`, false, "execute", "shell"},
		// fetch, think, other
		{"fetch", `{"url": "https://example.com"}`, false, "fetch", "fetch"},
		{"web_fetch", `{"url": "https://example.com"}`, false, "fetch", "web_fetch"},
		{"task", `{"description": "audit", "subagent_type": "reviewer"}`, false, "think", "task"},
		{"think", `{"thought": "hmm"}`, false, "think", "think"},
		{"mcp__github__create_issue", `{"project": "protoAgent", "path": "x", "title": "bug"}`, false, "other", "mcp__github__create_issue"},
		{"mcp__github__create_issue", `{"title": "bug"}`, true, "other", "↳ mcp__github__create_issue"},
		{"execute_code", `{"command": "print(1)"}`, false, "other", "execute_code"},
		{"Read_File", `{"path": "a"}`, false, "other", "Read_File"},
	}
	for _, tt := range tests {
		a := ParseArgs(tt.raw)
		if got := Kind(tt.tool); got != tt.kind {
			t.Errorf("Kind(%q) = %q, want %q", tt.tool, got, tt.kind)
		}
		got := Title(tt.tool, a, Hints{})
		if tt.parent {
			got = ChildTitle(got)
		}
		if got != tt.title {
			t.Errorf("Title(%q, %s) = %q, want %q", tt.tool, tt.raw, got, tt.title)
		}
	}
}

func TestChildTitleOnce(t *testing.T) {
	if got := ChildTitle(ChildTitle("Read a")); got != "↳ Read a" {
		t.Errorf("ChildTitle twice = %q", got)
	}
}

func TestCutResult(t *testing.T) {
	ascii := strings.Repeat("a", 4000)
	wide := strings.Repeat("é", 4000)
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"short", "server/a2a.py:42: x\n", "server/a2a.py:42: x\n"},
		{"exactly 4000", ascii, ascii},
		{"4001", ascii + "b", ascii + "\n…"},
		{"runes not bytes", wide, wide},
		{"4001 runes", wide + "ü", wide + "\n…"},
	} {
		got := CutResult(tt.in)
		if got != tt.want {
			t.Errorf("%s: CutResult = %d runes %.20q…, want %d runes", tt.name, utf8.RuneCountInString(got), got, utf8.RuneCountInString(tt.want))
		}
	}
}
