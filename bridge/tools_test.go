package bridge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"time"

	"github.com/shimdev/shim/threads"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/roots"
)

const toolExt = "https://proto-labs.ai/a2a/ext/tool-call-v1"

// toolFrame writes a working status whose message metadata carries one
// tool-call-v1 payload (the real server's frames have no parts).
func toolFrame(w *sseWriter, payload map[string]any) {
	w.status("t1", "TASK_STATE_WORKING", map[string]any{"role": "ROLE_AGENT", "messageId": "m",
		"metadata": map[string]any{toolExt: payload}})
}

// toolUpdates decodes the tool updates of a session.
func toolUpdates(t *testing.T, ups []acptest.Update) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, u := range ups {
		if k := u.Kind(); k == "tool_call" || k == "tool_call_update" {
			var m map[string]any
			if err := json.Unmarshal(u.Update, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

// rootsAPI serves /api/fs/roots with one project and counts the calls.
func rootsAPI(root string, calls *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/fs/roots" {
			calls.Add(1)
			json.NewEncoder(w).Encode(map[string]any{"roots": map[string]any{"p": root}})
			return
		}
		http.NotFound(w, r)
	})
}

func runTools(t *testing.T, root string, frames func(w *sseWriter)) (*fakeAgent, []map[string]any, *atomic.Int32) {
	t.Helper()
	f := newFake(t)
	var calls atomic.Int32
	f.operator = rootsAPI(root, &calls)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		frames(w)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, root)
	if got := stopReason(t, s.prompt(t, id, "go")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	return f, toolUpdates(t, s.Updates(id)), &calls
}

func TestToolCards(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("x", 4100)
	_, ups, _ := runTools(t, root, func(w *sseWriter) {
		// The double announce: early with empty args, then the full args.
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "read_file", "phase": "started", "args": ""})
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "read_file", "phase": "started",
			"args": `{"project": "p", "path": "src/a.go", "offset": 30, "limit": 20}`})
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "read_file", "phase": "completed", "result": "package a"})
		// An end with no start opens the card first.
		toolFrame(w, map[string]any{"toolCallId": "c2", "name": "run_command", "phase": "completed", "result": long})
		// A failed call uses result, else error.
		toolFrame(w, map[string]any{"toolCallId": "c3", "name": "run_command", "phase": "started", "args": `{"command": "npm test\nnpm run lint"}`})
		toolFrame(w, map[string]any{"toolCallId": "c3", "name": "run_command", "phase": "failed", "result": "Error: exit 2", "error": "Error: exit 2"})
		// A subagent's call.
		toolFrame(w, map[string]any{"toolCallId": "c4", "name": "grep", "phase": "started", "args": `{"project":"p","query":"TODO"}`, "parentToolCallId": "task9"})
		toolFrame(w, map[string]any{"toolCallId": "c4", "name": "grep", "phase": "completed",
			"result": "src/a.go:3: TODO one\nsrc/b.go:10:2: TODO two\n../../etc/passwd:1: root\nnot a hit"})
		// Args cut at 800 characters mid-string: no diff, still a title and a location.
		toolFrame(w, map[string]any{"toolCallId": "c5", "name": "write_file", "phase": "started",
			"args": `{"project": "p", "path": "docs/x.md", "content": "# Title\nlong body that never clo`})
		toolFrame(w, map[string]any{"toolCallId": "c5", "name": "write_file", "phase": "completed", "result": "wrote 900 bytes"})
		// Complete write args: a diff.
		toolFrame(w, map[string]any{"toolCallId": "c6", "name": "edit_file", "phase": "started",
			"args": `{"project": "p", "path": "b.txt", "old_string": "one", "new_string": "two"}`})
		toolFrame(w, map[string]any{"toolCallId": "c6", "name": "edit_file", "phase": "completed", "result": "ok"})
		// A path that leaves the root gets no location. The server never
		// ends the call: the completed turn does.
		toolFrame(w, map[string]any{"toolCallId": "c7", "name": "read_file", "phase": "started", "args": `{"project": "p", "path": "../outside.txt"}`})
	})
	got := describeTools(ups, root)
	want := strings.Join([]string{
		`tool_call c1 title="read_file" kind=read status=in_progress`,
		`tool_call_update c1 title="Read p/src/a.go (lines 30–49)" kind=read locations=[ROOT/src/a.go:30] rawInput=map[limit:20 offset:30 path:src/a.go project:p]`,
		`tool_call_update c1 status=completed content=["package a"] rawOutput="package a"`,
		`tool_call c2 title="run_command" kind=execute status=in_progress`,
		`tool_call_update c2 status=completed content=[4002 chars ending "x\n…"]`,
		`tool_call c3 title="npm test" kind=execute status=in_progress rawInput=map[command:npm test` + "\n" + `npm run lint]`,
		`tool_call_update c3 status=failed content=["Error: exit 2"]`,
		`tool_call c4 title="↳ Search p for 'TODO'" kind=search status=in_progress rawInput=map[project:p query:TODO]`,
		`tool_call_update c4 status=completed content=["src/a.go:3: TODO one\nsrc/b.go:10:2: TODO two\n../../etc/passwd:1: root\nnot a hit"] locations=[ROOT/src/a.go:3 ROOT/src/b.go:10] rawOutput=…`,
		`tool_call c5 title="Write p/docs/x.md" kind=edit status=in_progress locations=[ROOT/docs/x.md] rawInput=map[path:docs/x.md project:p]`,
		`tool_call_update c5 status=completed content=["wrote 900 bytes"] rawOutput="wrote 900 bytes"`,
		`tool_call c6 title="Edit p/b.txt" kind=edit status=in_progress locations=[ROOT/b.txt] rawInput=map[new_string:two old_string:one path:b.txt project:p]`,
		`tool_call_update c6 status=completed content=[diff ROOT/b.txt "one"→"two" "ok"] rawOutput="ok"`,
		`tool_call c7 title="Read p/../outside.txt" kind=read status=in_progress rawInput=map[path:../outside.txt project:p]`,
		`tool_call_update c7 status=completed`,
	}, "\n")
	if got != want {
		t.Errorf("tool updates:\n%s\n--- want\n%s", got, want)
	}
}

// describeTools renders tool updates as stable lines.
func describeTools(ups []map[string]any, root string) string {
	var lines []string
	for _, u := range ups {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", u["sessionUpdate"], u["toolCallId"])
		if v, ok := u["title"]; ok {
			fmt.Fprintf(&b, " title=%q", v)
		}
		if v, ok := u["kind"]; ok {
			fmt.Fprintf(&b, " kind=%s", v)
		}
		if v, ok := u["status"]; ok {
			fmt.Fprintf(&b, " status=%s", v)
		}
		if cs, ok := u["content"].([]any); ok {
			var parts []string
			for _, c := range cs {
				cm := c.(map[string]any)
				switch cm["type"] {
				case "diff":
					parts = append(parts, fmt.Sprintf("diff %s %q→%q", strings.Replace(cm["path"].(string), root, "ROOT", 1), cm["oldText"], cm["newText"]))
				default:
					txt := cm["content"].(map[string]any)["text"].(string)
					if len(txt) > 200 {
						parts = append(parts, fmt.Sprintf("%d chars ending %q", len([]rune(txt)), string([]rune(txt)[len([]rune(txt))-3:])))
					} else {
						parts = append(parts, fmt.Sprintf("%q", txt))
					}
				}
			}
			fmt.Fprintf(&b, " content=[%s]", strings.Join(parts, " "))
		}
		if ls, ok := u["locations"].([]any); ok {
			var parts []string
			for _, l := range ls {
				lm := l.(map[string]any)
				p := strings.Replace(lm["path"].(string), root, "ROOT", 1)
				if line, ok := lm["line"]; ok {
					p += fmt.Sprintf(":%v", line)
				}
				parts = append(parts, p)
			}
			fmt.Fprintf(&b, " locations=[%s]", strings.Join(parts, " "))
		}
		if v, ok := u["rawInput"]; ok {
			s := fmt.Sprint(v)
			if len(s) > 70 {
				s = "…"
			}
			fmt.Fprintf(&b, " rawInput=%s", s)
		}
		if v, ok := u["rawOutput"]; ok {
			s := v.(string)
			switch {
			case len(s) > 1000:
				fmt.Fprintf(&b, " rawOutput=%d chars", len(s))
			case len(s) > 40:
				b.WriteString(" rawOutput=…")
			default:
				fmt.Fprintf(&b, " rawOutput=%q", s)
			}
		}
		lines = append(lines, b.String())
	}
	return strings.Join(lines, "\n")
}

// TestRootsDiscovery: roots come from /api/fs/roots, else /api/config +
// /api/projects (first wins, ~ expanded); a list_projects result teaches
// new roots; an unknown project reloads the map at most once per 30 s.
func TestRootsDiscovery(t *testing.T) {
	home, _ := os.UserHomeDir()
	t.Run("config then projects", func(t *testing.T) {
		root := t.TempDir()
		f := newFake(t)
		f.operator = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/api/config":
				json.NewEncoder(w).Encode(map[string]any{"config": map[string]any{"filesystem": map[string]any{
					"projects": []any{map[string]any{"name": "p", "path": root, "write": true}}}}})
			case "/api/projects":
				json.NewEncoder(w).Encode(map[string]any{"projects": []any{
					map[string]any{"name": "p", "path": "/elsewhere"}, map[string]any{"name": "h", "path": "~/proj-h"}}})
			default:
				http.NotFound(w, r)
			}
		})
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			toolFrame(w, map[string]any{"toolCallId": "a", "name": "read_file", "phase": "started", "args": `{"project": "p", "path": "x.go"}`})
			toolFrame(w, map[string]any{"toolCallId": "b", "name": "read_file", "phase": "started", "args": `{"project": "h", "path": "y.go"}`})
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
		got := locationsOf(t, f, "/nowhere")
		want := []string{filepath.Join(root, "x.go"), filepath.Join(home, "proj-h", "y.go")}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("locations %v, want %v", got, want)
		}
	})
	t.Run("learned from list_projects", func(t *testing.T) {
		learned := t.TempDir()
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			toolFrame(w, map[string]any{"toolCallId": "a", "name": "list_projects", "phase": "completed", "result": "- q [rw] " + learned + "\n"})
			toolFrame(w, map[string]any{"toolCallId": "b", "name": "read_file", "phase": "started", "args": `{"project": "q", "path": "z.go"}`})
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
		if got := locationsOf(t, f, "/nowhere"); fmt.Sprint(got) != fmt.Sprint([]string{filepath.Join(learned, "z.go")}) {
			t.Errorf("locations %v", got)
		}
	})
	t.Run("reload once per unknown name", func(t *testing.T) {
		root := t.TempDir()
		f := newFake(t)
		var calls atomic.Int32
		f.operator = rootsAPI(root, &calls)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			for i, p := range []string{"zzz", "zzz", "p", "zzz"} {
				toolFrame(w, map[string]any{"toolCallId": fmt.Sprint(i), "name": "read_file", "phase": "started",
					"args": fmt.Sprintf(`{"project": %q, "path": "f.go"}`, p)})
			}
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
		if got := locationsOf(t, f, root); fmt.Sprint(got) != fmt.Sprint([]string{filepath.Join(root, "f.go")}) {
			t.Errorf("locations %v", got)
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("want the first load and one reload, got %d calls to /api/fs/roots", n)
		}
	})
}

// locationsOf runs one prompt and returns every location path emitted.
func locationsOf(t *testing.T, f *fakeAgent, cwd string) []string {
	t.Helper()
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, cwd)
	if got := stopReason(t, s.prompt(t, id, "go")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	var out []string
	for _, u := range toolUpdates(t, s.Updates(id)) {
		ls, _ := u["locations"].([]any)
		for _, l := range ls {
			out = append(out, l.(map[string]any)["path"].(string))
		}
	}
	return out
}

// TestPreamble: the first prompt of a minted session whose cwd lies in a
// known root carries the editor-context preamble; later prompts, a cwd
// outside every root and --no-preamble do not.
func TestPreamble(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name       string
		cwd        string
		noPreamble bool
		want       []string
	}{
		{"inside a root", filepath.Join(root, "sub"), false, []string{
			"[Context: the user is talking to you from Zed opened on your project `p` (" + root + "). Paths you read or search there are shown to them in the editor.]\n\nfirst",
			"second"}},
		{"outside every root", t.TempDir(), false, []string{"first", "second"}},
		{"disabled", root, true, []string{"first", "second"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			var calls atomic.Int32
			f.operator = rootsAPI(root, &calls)
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_SUBMITTED")
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.NoPreamble = tt.noPreamble }, nil)
			s.init(t)
			id := s.newSession(t, tt.cwd)
			s.prompt(t, id, "first")
			s.prompt(t, id, "second")
			var got []string
			for _, c := range f.callsOf("SendStreamingMessage") {
				got = append(got, c.text())
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("sent %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestRealServerTools: tool-call-v1 from the a2a-go v2 server becomes
// cards with kinds, titles and absolute locations.
func TestRealServerTools(t *testing.T) {
	root := t.TempDir()
	url := startAgent(t, agent.Options{Name: "Go Agent"})
	s := startShim(t, url, func(o *Options, _ *a2aclient.Config) {
		o.RootOverrides = []roots.Root{{Name: "demo", Path: root}}
	}, nil)
	s.init(t)
	id := s.newSession(t, root)
	if got := stopReason(t, s.prompt(t, id, "use the tool")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	got := describeTools(toolUpdates(t, s.Updates(id)), root)
	want := strings.Join([]string{
		`tool_call c1 title="read_file" kind=read status=in_progress`,
		`tool_call_update c1 title="Read README.md (lines 1–20)" kind=read locations=[ROOT/README.md:1] rawInput=map[limit:20 offset:1 path:README.md]`,
		`tool_call_update c1 status=completed content=["# Demo\nA demo project."] rawOutput="# Demo\nA demo project."`,
	}, "\n")
	if got != want {
		t.Errorf("tool updates:\n%s\n--- want\n%s", got, want)
	}
}

// TestADKTools: Google ADK function_call / function_response data parts
// become tool cards, and ADK thought texts thoughts.
func TestADKTools(t *testing.T) {
	root := t.TempDir()
	_, ups, _ := runTools(t, root, func(w *sseWriter) {
		w.status("t1", "TASK_STATE_WORKING", agentMsg(
			map[string]any{"text": "Let me look.", "metadata": map[string]any{"adk_thought": true}},
			map[string]any{"data": map[string]any{"id": "adk1", "name": "read_file", "args": map[string]any{"project": "p", "path": "a.go"}},
				"metadata": map[string]any{"adk_type": "function_call"}}))
		w.status("t1", "TASK_STATE_WORKING", agentMsg(
			map[string]any{"data": map[string]any{"id": "adk1", "name": "read_file", "response": map[string]any{"result": "package a"}},
				"metadata": map[string]any{"adk_type": "function_response"}}))
	})
	got := describeTools(ups, root)
	want := strings.Join([]string{
		`tool_call adk1 title="Read p/a.go" kind=read status=in_progress locations=[ROOT/a.go] rawInput=map[path:a.go project:p]`,
		`tool_call_update adk1 status=completed content=["package a"] rawOutput="package a"`,
	}, "\n")
	if got != want {
		t.Errorf("tool updates:\n%s\n--- want\n%s", got, want)
	}
}

// TestCwdLocationsWithoutRoots: with no root known (no --root, no roots
// API), an absolute path inside the session's cwd is still a location (a
// same-machine agent reports such paths); one that leaves the cwd (.., a
// symlink out, elsewhere) and a relative path to no file there are not
// (relative paths to files there: TestProjectFilesLinkWithoutRoots).
func TestCwdLocationsWithoutRoots(t *testing.T) {
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(cwd, "out")); err != nil {
		t.Fatal(err)
	}
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		for i, p := range []string{
			filepath.Join(cwd, "src", "a.go"),
			cwd + "/src/../../elsewhere.txt",
			filepath.Join(cwd, "out", "secret.txt"),
			filepath.Join(outside, "b.txt"),
			"src/a.go",
		} {
			args, _ := json.Marshal(map[string]any{"path": p, "offset": 3})
			toolFrame(w, map[string]any{"toolCallId": fmt.Sprintf("c%d", i+1), "name": "read_file", "phase": "started", "args": string(args)})
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, cwd)
	if got := stopReason(t, s.prompt(t, id, "go")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	var got []string
	for _, u := range toolUpdates(t, s.Updates(id)) {
		if u["sessionUpdate"] != "tool_call" {
			continue
		}
		ls, _ := u["locations"].([]any)
		var ps []string
		for _, l := range ls {
			lm := l.(map[string]any)
			ps = append(ps, fmt.Sprintf("%s:%v", strings.Replace(lm["path"].(string), cwd, "CWD", 1), lm["line"]))
		}
		got = append(got, fmt.Sprintf("%s=%v", u["toolCallId"], ps))
	}
	want := "[c1=[CWD/src/a.go:3] c2=[] c3=[] c4=[] c5=[]]"
	if fmt.Sprint(got) != want {
		t.Errorf("locations %v\nwant %s", got, want)
	}
}

// cardStatusBefore is the last status the updates give the card id among
// the messages before the response with respID ("" when none).
func cardStatusBefore(ms []acptest.Message, cardID, respID string) string {
	status := ""
	for _, m := range ms {
		if m.Method == "" && string(m.ID) == respID {
			break
		}
		if m.Method != "session/update" {
			continue
		}
		var u struct {
			Update struct {
				ToolCallID string `json:"toolCallId"`
				Status     string `json:"status"`
			} `json:"update"`
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.Update.ToolCallID == cardID && u.Update.Status != "" {
			status = u.Update.Status
		}
	}
	return status
}

// TestNoCardOutlivesItsTurn (SPEC §5): a card still open when the turn
// ends is settled before the prompt's answer: completed when the turn ends
// end_turn (completed, or parked on a question, or after an approval whose
// resume never ends the card), failed otherwise (failed, rejected, a lost
// stream that could not be read back); a turn cancelled after the grace
// window fails its cards too.
func TestNoCardOutlivesItsTurn(t *testing.T) {
	started := func(w *sseWriter) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "started", "args": `{"command": "npm test"}`})
		toolFrame(w, map[string]any{"toolCallId": "c2", "name": "read_file", "phase": "started", "args": `{"path": "a.go"}`})
		toolFrame(w, map[string]any{"toolCallId": "c2", "name": "read_file", "phase": "completed", "result": "package a"})
	}
	cases := []struct {
		name, stop, want string
		script           func(w *sseWriter, c rpcCall)
	}{
		{"approval", "end_turn", "completed", func(w *sseWriter, c rpcCall) {
			if tid, _ := c.message()["taskId"].(string); tid != "" {
				w.artifact(tid, "a1", "Ran the tests.", false)
				w.status(tid, "TASK_STATE_COMPLETED", nil)
				return
			}
			started(w)
			parkApproval(w, "t1", "Approve shell command?", "npm test")
		}},
		{"question", "end_turn", "completed", func(w *sseWriter, c rpcCall) {
			started(w)
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which suite?")))
		}},
		{"failed", "", "failed", func(w *sseWriter, c rpcCall) {
			started(w)
			w.status("t1", "TASK_STATE_FAILED", agentMsg(textPart("boom")))
		}},
		{"rejected", "refusal", "failed", func(w *sseWriter, c rpcCall) {
			started(w)
			w.status("t1", "TASK_STATE_REJECTED", agentMsg(textPart("no")))
		}},
		{"lost", "", "failed", func(w *sseWriter, c rpcCall) { started(w) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.stream = tc.script
			perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected("approve") }}}
			s := startShim(t, f.url, nil, perms.handler)
			s.init(t)
			id := s.newSession(t, "/tmp")
			ch, rid := s.Start("session/prompt", promptArgs(id, "run the tests"))
			res := s.Wait(ch, "prompt")
			if tc.stop == "" {
				if res.Error == nil {
					t.Fatalf("want an error, got %s", res.Result)
				}
			} else if got := stopReason(t, res); got != tc.stop {
				t.Fatalf("stop %q", got)
			}
			ms := s.Messages()
			if got := cardStatusBefore(ms, "c1", rid); got != tc.want {
				t.Errorf("c1 ended %q before the answer, want %q", got, tc.want)
			}
			if got := cardStatusBefore(ms, "c2", rid); got != "completed" {
				t.Errorf("c2 (ended by the server) %q", got)
			}
			n := 0
			for _, u := range toolUpdates(t, s.Updates(id)) {
				if u["toolCallId"] == "c2" && u["status"] != nil {
					n++
				}
			}
			if n != 2 {
				t.Errorf("a card the server ended was settled again: %d status updates for c2", n)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		f := newFake(t)
		release := make(chan struct{})
		defer close(release)
		f.stream = func(w *sseWriter, c rpcCall) {
			started(w)
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
		s := startShim(t, f.url, withGrace(0), nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		ch, _ := s.Start("session/prompt", promptArgs(id, "run the tests"))
		s.WaitFor("c2 completed", func(ms []acptest.Message) bool { return cardStatusBefore(ms, "c2", "none") == "completed" })
		cancelPrompt(t, s, id, ch)
		s.WaitFor("c1 failed", func(ms []acptest.Message) bool { return cardStatusBefore(ms, "c1", "none") == "failed" })
	})
}

// checkCodeCards: TestADKCodeExecution's two execute cards, their code
// as rawInput and their output as content; the transcript holds want.
func checkCodeCards(t *testing.T, ups []update, want string) {
	t.Helper()
	var cards []update
	for _, u := range ups {
		if u.Kind == "tool_call" {
			cards = append(cards, u)
		}
	}
	if len(cards) != 2 {
		t.Fatalf("%d cards: %s", len(cards), transcript(ups))
	}
	for i, src := range []string{"print(45)", "1/0"} {
		if c := cards[i]; c.ToolKind != "execute" || c.RawInput["code"] != src || c.RawInput["language"] != "PYTHON" {
			t.Errorf("card %d: %+v", i, c)
		}
	}
	if got := transcript(ups); !strings.Contains(got, want) {
		t.Errorf("transcript:\n%s\nwant it to hold:\n%s", got, want)
	}
	var contents []string
	for _, u := range ups {
		if strings.HasPrefix(u.Kind, "tool_call") && len(u.Content) > 0 {
			contents = append(contents, string(u.Content))
		}
	}
	if len(contents) != 2 || !strings.Contains(contents[0], `"text":"45\n"`) || !strings.Contains(contents[1], `"text":"ZeroDivisionError"`) {
		t.Errorf("contents %q", contents)
	}
}

// TestADKCodeExecution: Google ADK executable_code and
// code_execution_result parts (SPEC §12.6) are one execute card each: the
// code as rawInput, the output as content, completed or failed by the
// outcome; live and in replay.
func TestADKCodeExecution(t *testing.T) {
	code := func(src string) map[string]any {
		return map[string]any{"data": map[string]any{"code": src, "language": "PYTHON"}, "metadata": map[string]any{"adk_type": "executable_code"}}
	}
	result := func(outcome, output string) map[string]any {
		return map[string]any{"data": map[string]any{"outcome": outcome, "output": output}, "metadata": map[string]any{"adk_type": "code_execution_result"}}
	}
	msgs := []map[string]any{
		agentMsgID("e1", "Let me compute that."), agentMsgID("e2", ""), agentMsgID("e3", ""),
	}
	msgs[0]["parts"] = append(msgs[0]["parts"].([]any), code("print(45)"))
	msgs[1]["parts"] = []any{result("OUTCOME_OK", "45\n")}
	msgs[2]["parts"] = []any{code("1/0"), result("OUTCOME_FAILED", "ZeroDivisionError")}
	check := checkCodeCards

	t.Run("live", func(t *testing.T) {
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			for _, m := range msgs {
				w.status("t1", "TASK_STATE_WORKING", m)
			}
			w.artifact("t1", "a1", "It is 45.", false)
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
		s := startShim(t, f.url, nil, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		if got := stopReason(t, s.prompt(t, id, "sum")); got != "end_turn" {
			t.Fatalf("stop %q", got)
		}
		ups := decodeUpdates(t, s.Updates(id))
		var ids []string
		for _, u := range ups {
			if strings.HasPrefix(u.Kind, "tool_call") {
				ids = append(ids, u.ToolCallID)
			}
		}
		if len(ids) != 4 || ids[0] != ids[1] || ids[2] != ids[3] || ids[0] == ids[2] {
			t.Errorf("card ids %q", ids)
		}
		check(t, ups, "tool_call_update "+ids[1]+"  [completed]\n")
		check(t, ups, "tool_call_update "+ids[3]+"  [failed]\n")
	})
	t.Run("replay", func(t *testing.T) {
		const id = "chat-zed-8-c"
		f := &fakeAgent{t: t, name: "Fake Agent"}
		tk := taskResult("t1", id, "TASK_STATE_COMPLETED", "It is 45.", "")
		tk["history"] = []any{userMsg("sum"), msgs[0], msgs[1], msgs[2]}
		lf := &listTasksFake{f: f, tasks: []any{tk}}
		f.url = startFake(t, lf)
		s := startShim(t, f.url, withIndex(threads.Open(t.TempDir(), nil), f.url, nil), nil)
		s.init(t)
		if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
			t.Fatalf("load: %v", m.Error)
		}
		ups := decodeUpdates(t, s.Updates(id))
		check(t, ups, "code_execution [completed]\n")
		check(t, ups, "code_execution [failed]\n")
	})
}
