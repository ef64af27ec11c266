package toolview

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestLocations(t *testing.T) {
	tests := []struct {
		tool string
		raw  string
		want []Location
	}{
		{"read_file", ``, nil},
		{"read_file", `{"project": "protoAgent", "path": "server/a2a.py", "offset": 30, "limit": 20}`, []Location{{"/repo/server/a2a.py", 30}}},
		{"read_file", `{"project": "protoAgent", "path": "README.md", "offset": 3.0}`, []Location{{"/repo/README.md", 3}}},
		{"read_file", `{"project": "protoAgent", "path": "README.md", "offset": 0}`, []Location{{"/repo/README.md", 0}}},
		{"read_file", `{"project": "protoAgent", "path": "README.md", "offset": -4}`, []Location{{"/repo/README.md", 0}}},
		{"read_file", `{"project": "protoAgent", "path": "a.go", "offset": 3`, []Location{{"/repo/a.go", 0}}},
		{"read_file", `{"path": "a.go"}`, []Location{{"/cwd/a.go", 0}}},
		{"read_file", `{"project": "protoAgent", "path": "/repo/sub/a.go"}`, []Location{{"/repo/sub/a.go", 0}}},
		// refused: climbing out, absolute elsewhere, a sibling sharing the prefix, unknown project, NUL
		{"read_file", `{"project": "protoAgent", "path": "../etc/passwd"}`, nil},
		{"read_file", `{"project": "protoAgent", "path": "sub/../../etc/passwd"}`, nil},
		{"read_file", `{"project": "protoAgent", "path": "/etc/passwd", "offset": 1}`, nil},
		{"read_file", `{"project": "protoAgent", "path": "/repo-other/a.go"}`, nil},
		{"read_file", `{"path": "../../etc/passwd"}`, nil},
		{"read_file", `{"project": "nope", "path": "a.go"}`, nil},
		{"read_file", `{"project": "protoAgent", "path": "a\u0000b"}`, nil},
		{"list_dir", `{"project": "protoAgent", "path": "server"}`, []Location{{"/repo/server", 0}}},
		{"list_dir", `{"project": "protoAgent"}`, []Location{{"/repo", 0}}},
		{"list_dir", `{"project": "protoAgent", "path": ".."}`, nil},
		{"write_file", `{"project": "protoAgent", "path": "docs/x.md", "content": "# Title\nlong body that never clo`, []Location{{"/repo/docs/x.md", 0}}},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old": "x", "new": "y"}`, []Location{{"/repo/a.go", 0}}},
		{"delete_file", `{"path": "tmp/a.txt"}`, []Location{{"/cwd/tmp/a.txt", 0}}},
		{"move_file", `{"project": "protoAgent", "path": "a.go", "dest": "old/a.go"}`, []Location{{"/repo/a.go", 0}, {"/repo/old/a.go", 0}}},
		{"move_file", `{"project": "protoAgent", "path": "a.go", "to": "../../outside.go"}`, []Location{{"/repo/a.go", 0}}},
		{"move_file", `{"project": "protoAgent", "path": "a.go", "new_path": "./a.go"}`, []Location{{"/repo/a.go", 0}}},
		{"search_files", `{"project": "protoAgent", "query": "x", "path": "server"}`, []Location{{"/repo/server", 0}}},
		{"search_files", `{"project": "protoAgent", "query": "x", "path": "."}`, nil},
		{"search_files", `{"project": "protoAgent", "query": "x"}`, nil},
		{"grep", `{"pattern": "x", "path": "cmd/main.go"}`, []Location{{"/cwd/cmd/main.go", 0}}},
		{"run_command", `{"project": "protoAgent", "command": "cat a.go", "path": "a.go"}`, nil},
		{"mcp__fs__read", `{"project": "protoAgent", "path": "a.go"}`, nil},
	}
	for _, tt := range tests {
		got := Locations(tt.tool, ParseArgs(tt.raw), newFakeResolver())
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Locations(%q, %s) = %v, want %v", tt.tool, tt.raw, got, tt.want)
		}
		if got := Locations(tt.tool, ParseArgs(tt.raw), refuseAll{}); got != nil {
			t.Errorf("Locations(%q, %s) with no roots = %v", tt.tool, tt.raw, got)
		}
	}
}

func TestSearchLocations(t *testing.T) {
	result := strings.Join([]string{
		"server/a2a.py:42: SendStreamingMessage",
		"server/a2a.py-43- context line",
		"--",
		"graph/x.py:9:3: col form",
		"server/a2a.py:42: same hit again",
		"server/a2a.py:50: another line of the same file",
		"../escape.py:1: refused",
		"/etc/passwd:1: refused",
		"no line number: here",
		"trailing.py:12",
		"zero.py:0: not a line",
		" spaced.py:3: leading space",
		":5: no path",
		"(no matches)",
		"… (more matches; narrow the search)",
	}, "\n")
	want := []Location{{"/repo/server/a2a.py", 42}, {"/repo/graph/x.py", 9}, {"/repo/server/a2a.py", 50}}
	if got := SearchLocations(result, "protoAgent", newFakeResolver()); !reflect.DeepEqual(got, want) {
		t.Errorf("SearchLocations = %v\nwant %v", got, want)
	}
	if got := SearchLocations(result, "nope", newFakeResolver()); got != nil {
		t.Errorf("unknown project: %v", got)
	}
	if got := SearchLocations(result, "protoAgent", refuseAll{}); got != nil {
		t.Errorf("no roots: %v", got)
	}

	var many strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&many, "f%d.go:%d: hit\n", i, i)
	}
	got := SearchLocations(many.String(), "", newFakeResolver())
	if len(got) != 20 {
		t.Fatalf("%d locations, want 20", len(got))
	}
	if got[0] != (Location{"/cwd/f1.go", 1}) || got[19] != (Location{"/cwd/f20.go", 20}) {
		t.Errorf("first and last = %v, %v", got[0], got[19])
	}
}

func TestDiff(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		tool string
		raw  string
		want FileDiff
		ok   bool
	}{
		{"write_file", `{"project": "protoAgent", "path": "docs/x.md", "content": "# Title\nbody\n"}`, FileDiff{"/repo/docs/x.md", nil, "# Title\nbody\n"}, true},
		{"write_file", `{"path": "empty.txt", "content": ""}`, FileDiff{"/cwd/empty.txt", nil, ""}, true},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old_string": "x := 1", "new_string": "x := 2"}`, FileDiff{"/repo/a.go", str("x := 1"), "x := 2"}, true},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old_text": "a", "new_text": ""}`, FileDiff{"/repo/a.go", str("a"), ""}, true},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old": "a", "new": "b"}`, FileDiff{"/repo/a.go", str("a"), "b"}, true},
		// cut args: never a diff, the content is not the file's
		{"write_file", `{"project": "protoAgent", "path": "docs/x.md", "content": "# Title\nlong body that never clo`, FileDiff{}, false},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old_string": "x", "new_string": "y"`, FileDiff{}, false},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old_string": "x", "new_string": "y`, FileDiff{}, false},
		// refused or unknown paths, wrong shapes, other tools
		{"write_file", `{"project": "protoAgent", "path": "../x.md", "content": "x"}`, FileDiff{}, false},
		{"write_file", `{"project": "nope", "path": "x.md", "content": "x"}`, FileDiff{}, false},
		{"write_file", `{"project": "protoAgent", "content": "x"}`, FileDiff{}, false},
		{"write_file", `{"project": "protoAgent", "path": "x.md"}`, FileDiff{}, false},
		{"write_file", `{"project": "protoAgent", "path": "x.md", "content": 3}`, FileDiff{}, false},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "old_string": "x"}`, FileDiff{}, false},
		{"edit_file", `{"project": "protoAgent", "path": "a.go", "edits": [{"old": "x", "new": "y"}]}`, FileDiff{}, false},
		{"read_file", `{"project": "protoAgent", "path": "a.go"}`, FileDiff{}, false},
		{"mcp__fs__write", `{"project": "protoAgent", "path": "a.go", "content": "x"}`, FileDiff{}, false},
	}
	for _, tt := range tests {
		got, ok := Diff(tt.tool, ParseArgs(tt.raw), newFakeResolver())
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Diff(%q, %s) = %+v, %v, want %+v, %v", tt.tool, tt.raw, got, ok, tt.want, tt.ok)
		}
		if _, ok := Diff(tt.tool, ParseArgs(tt.raw), refuseAll{}); ok {
			t.Errorf("Diff(%q, %s) with no roots is ok", tt.tool, tt.raw)
		}
	}
}
