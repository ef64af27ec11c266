package toolview

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeResolver knows two roots: project "protoAgent" at /repo and the
// session cwd (project "") at /cwd. It refuses unknown projects, paths that
// leave their root (.., absolute elsewhere, a prefix sibling like
// /repo-other) and NUL bytes, and remembers every path it returned.
type fakeResolver struct {
	roots    map[string]string
	returned map[string]bool
}

func newFakeResolver() *fakeResolver {
	return &fakeResolver{
		roots:    map[string]string{"protoAgent": "/repo", "": "/cwd"},
		returned: map[string]bool{},
	}
}

func (f *fakeResolver) Resolve(project, p string) (string, bool) {
	root, ok := f.roots[project]
	if !ok || strings.IndexByte(p, 0) >= 0 {
		return "", false
	}
	c := filepath.Join(root, p)
	if filepath.IsAbs(p) {
		c = filepath.Clean(p)
	}
	if c != root && !strings.HasPrefix(c, root+"/") {
		return "", false
	}
	f.returned[c] = true
	return c, true
}

// refuseAll is a Resolver that knows no root (an agent on another machine).
type refuseAll struct{}

func (refuseAll) Resolve(string, string) (string, bool) { return "", false }

func num(s string) json.Number { return json.Number(s) }

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		complete bool
		fields   map[string]any
	}{
		{"empty", "", false, nil},
		{"blank", " \n\t", false, nil},
		{"complete", `{"project": "protoAgent", "path": "server/a2a.py", "offset": 30, "limit": 20}`, true,
			map[string]any{"project": "protoAgent", "path": "server/a2a.py", "offset": num("30"), "limit": num("20")}},
		{"complete empty object", `{}`, true, map[string]any{}},
		{"complete nested", `{"path": "a", "edits": [{"old": "x", "new": "y"}]}`, true,
			map[string]any{"path": "a", "edits": []any{map[string]any{"old": "x", "new": "y"}}}},
		{"cut mid-string", `{"project": "protoAgent", "path": "docs/x.md", "content": "# Title\nlong body that never clo`, false,
			map[string]any{"project": "protoAgent", "path": "docs/x.md"}},
		{"cut mid-number", `{"project": "protoAgent", "path": "a.go", "offset": 3`, false,
			map[string]any{"project": "protoAgent", "path": "a.go"}},
		{"number then cut", `{"path": "a.go", "offset": 3, "limit": 2`, false,
			map[string]any{"path": "a.go", "offset": num("3")}},
		{"cut after comma", `{"path": "a.go", "offset": 30,`, false,
			map[string]any{"path": "a.go", "offset": num("30")}},
		{"cut in a key", `{"path": "a.go", "offs`, false, map[string]any{"path": "a.go"}},
		{"cut before colon", `{"path": "a.go", "offset"`, false, map[string]any{"path": "a.go"}},
		{"cut in an escape", `{"path": "a\"b.go", "command": "echo \"hi\" && ls \`, false, map[string]any{"path": `a"b.go`}},
		{"cut in a \\u escape", `{"query": "caf\u00e9", "path": "x\u00`, false, map[string]any{"query": "café"}},
		{"escaped quotes and newlines in a command", `{"command": "echo \"a \\\"b\\\"\"\nls", "project": "p"`, false,
			map[string]any{"command": "echo \"a \\\"b\\\"\"\nls", "project": "p"}},
		{"keys in any order", `{"limit": 5, "offset": 2, "path": "z.go", "project": "q", "content": "…`, false,
			map[string]any{"limit": num("5"), "offset": num("2"), "path": "z.go", "project": "q"}},
		{"compact spacing", `{"project":"p","path":"a","new_path":"b","content":"x`, false,
			map[string]any{"project": "p", "path": "a", "new_path": "b"}},
		{"pretty spacing", "{\n\t\"project\" :\t\"p\" ,\r\n  \"destination\" : \"d\",\n  \"cmd\": \"ls", false,
			map[string]any{"project": "p", "destination": "d"}},
		{"nested keys are not top-level", `{"meta": {"path": "inner"}, "to": "t", "x": {"path": "cut`, false,
			map[string]any{"meta": map[string]any{"path": "inner"}, "to": "t"}},
		{"complete values before the cut", `{"dest": "d", "n": null, "b": true, "f": 1.5e2, "l": [1, "]"], "c": "x`, false,
			map[string]any{"dest": "d", "n": nil, "b": true, "f": num("1.5e2"), "l": []any{num("1"), "]"}}},
		{"repeated key, last wins", `{"path": "a", "path": "b", "x": "`, false, map[string]any{"path": "b"}},
		{"trailing garbage", `{"path": "a"} junk`, false, map[string]any{"path": "a"}},
		{"list", `["project", "p"]`, false, nil},
		{"string", `"{\"path\": \"a\"}"`, false, nil},
		{"null", `null`, false, nil},
		{"number", `42`, false, nil},
		{"garbage", `project=p path=a`, false, nil},
		{"python repr", `{'project': 'p'}`, false, nil},
		{"syntax error stops", `{"path": "a", oops, "project": "p"`, false, map[string]any{"path": "a"}},
		{"bad literal stops", `{"path": "a", "b": tru, "project": "p"`, false, map[string]any{"path": "a"}},
		{"lone brace", `{`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ParseArgs(tt.raw)
			if a.Raw != tt.raw {
				t.Errorf("Raw = %q", a.Raw)
			}
			if a.Complete != tt.complete {
				t.Errorf("Complete = %v, want %v", a.Complete, tt.complete)
			}
			if len(a.Fields) != 0 || len(tt.fields) != 0 || tt.complete {
				if !reflect.DeepEqual(a.Fields, tt.fields) {
					t.Errorf("Fields = %#v\nwant %#v", a.Fields, tt.fields)
				}
			}
		})
	}
}

func TestArgsStringInt(t *testing.T) {
	a := Args{Fields: map[string]any{
		"s": "text", "n": num("30"), "nf": num("30.0"), "frac": num("2.5"),
		"f": 18234.0, "fbig": 1e300, "str": " 7 ", "bad": "x", "i": 3, "i64": int64(4), "b": true,
	}}
	for _, tt := range []struct {
		key    string
		str    string
		n      int
		intsOK bool
	}{
		{"s", "text", 0, false},
		{"n", "30", 30, true},
		{"nf", "30.0", 30, true},
		{"frac", "2.5", 0, false},
		{"f", "", 18234, true},
		{"fbig", "", 0, false},
		{"str", " 7 ", 7, true},
		{"bad", "x", 0, false},
		{"i", "", 3, true},
		{"i64", "", 4, true},
		{"b", "", 0, false},
		{"absent", "", 0, false},
	} {
		if got := a.String(tt.key); got != tt.str {
			t.Errorf("String(%q) = %q, want %q", tt.key, got, tt.str)
		}
		if n, ok := a.Int(tt.key); n != tt.n || ok != tt.intsOK {
			t.Errorf("Int(%q) = %d, %v, want %d, %v", tt.key, n, ok, tt.n, tt.intsOK)
		}
	}
	var zero Args
	if zero.String("path") != "" {
		t.Error("zero Args has a path")
	}
	if _, ok := zero.Int("offset"); ok {
		t.Error("zero Args has an offset")
	}
}
