package toolview

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/shimdev/shim/acp"
)

var fuzzTools = []string{
	"read_file", "list_dir", "list_projects", "search_files", "find_files", "grep",
	"write_file", "edit_file", "delete_file", "move_file", "run_command", "bash", "shell",
	"fetch", "web_fetch", "task", "think", "mcp__github__create_issue",
}

// FuzzParseArgs feeds arbitrary args and result text through everything in
// the package. It checks that nothing panics; that every location and diff
// path is one the Resolver returned (and none at all when it refuses
// everything); that a whole object reads the same through the tolerant
// scanner as through encoding/json; and that every cut of a whole object
// recovers only values the whole one has, with a command's title that is the
// tool name or the whole one's.
func FuzzParseArgs(f *testing.F) {
	f.Add(uint8(0), `{"project": "protoAgent", "path": "server/a2a.py", "offset": 30, "limit": 20}`, "")
	f.Add(uint8(9), `{"project": "protoAgent", "path": "a.go", "dest": "../../x"}`, "")
	f.Add(uint8(3), `{"project": "protoAgent", "query": "x"}`, "server/a2a.py:42: x\n../e.py:1: y\n")
	f.Fuzz(func(t *testing.T, which uint8, raw, result string) {
		tool := fuzzTools[int(which)%len(fuzzTools)]
		a := ParseArgs(raw)
		if a.Complete && a.Fields == nil {
			t.Fatal("Complete with nil Fields")
		}
		fuzzAgreesWithJSON(t, raw, a)
		_ = Kind(tool)
		_ = ChildTitle(Title(tool, a, Hints{}))
		_ = CutResult(result)
		fuzzLocations(t, tool, a, result)
		if !a.Complete {
			return
		}
		fuzzCuts(t, tool, raw, a)
	})
}

// fuzzAgreesWithJSON: Complete is encoding/json's verdict, and the
// fields its values (the text here is far below bigValue).
func fuzzAgreesWithJSON(t *testing.T, raw string, a Args) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var whole any
	isObject := false
	if dec.Decode(&whole) == nil {
		if _, err := dec.Token(); err == io.EOF {
			_, isObject = whole.(map[string]any)
		}
	}
	if a.Complete != isObject || (isObject && !reflect.DeepEqual(whole, a.Fields)) {
		t.Fatalf("Complete %v with %#v; encoding/json read %#v", a.Complete, a.Fields, whole)
	}
}

// fuzzLocations: every location and diff path is one the Resolver
// returned, inside a root, and none at all when it refuses everything.
func fuzzLocations(t *testing.T, tool string, a Args, result string) {
	r := newFakeResolver()
	locs := Locations(tool, a, r)
	locs = append(locs, SearchLocations(result, a.String("project"), r)...)
	if d, ok := Diff(tool, a, r); ok {
		locs = append(locs, Location{Path: d.Path})
	}
	for _, l := range locs {
		if !r.returned[l.Path] {
			t.Fatalf("location %q was never returned by the resolver", l.Path)
		}
		if l.Path != "/repo" && l.Path != "/cwd" && !strings.HasPrefix(l.Path, "/repo/") && !strings.HasPrefix(l.Path, "/cwd/") {
			t.Fatalf("location %q is outside every root", l.Path)
		}
		if l.Line < 0 {
			t.Fatalf("negative line %d", l.Line)
		}
	}
	if n := len(SearchLocations(result, "", r)); n > maxSearchLocations {
		t.Fatalf("%d search locations", n)
	}
	if l := Locations(tool, a, refuseAll{}); l != nil {
		t.Fatalf("locations without roots: %v", l)
	}
	if l := SearchLocations(result, "", refuseAll{}); l != nil {
		t.Fatalf("search locations without roots: %v", l)
	}
	if _, ok := Diff(tool, a, refuseAll{}); ok {
		t.Fatal("diff without roots")
	}
}

// fuzzCuts: a whole object reads the same through the scanner as through
// encoding/json, and every cut of it recovers only what the whole one
// says, with a command's title that is the tool name or the whole one's.
func fuzzCuts(t *testing.T, tool, raw string, a Args) {
	ms, cut, _ := scanObjectInto(nil, raw)
	scanned := map[string]any{}
	count := map[string]int{}
	for _, m := range ms {
		scanned[m.key] = m.val
		count[m.key]++
	}
	if cut != nil || !reflect.DeepEqual(scanned, a.Fields) {
		t.Fatalf("scanner read %#v (cut %v), encoding/json %#v", scanned, cut, a.Fields)
	}
	full := Title(tool, a, Hints{})
	_, hasCmd := a.Fields["command"]
	_, hasAltCmd := a.Fields["cmd"]
	step := 1 + len(raw)/200
	for i := 0; i < len(raw); i += step {
		p := ParseArgs(raw[:i])
		for k, v := range p.Fields {
			if count[k] == 1 && !reflect.DeepEqual(v, a.Fields[k]) {
				t.Fatalf("cut at %d: %q = %#v, whole %#v", i, k, v, a.Fields[k])
			}
		}
		if Kind(tool) == acp.ToolKindExecute && hasCmd && !hasAltCmd && count["command"] == 1 {
			if got := Title(tool, p, Hints{}); got != tool && got != full {
				t.Fatalf("cut at %d: title %q, whole %q", i, got, full)
			}
		}
	}
}
