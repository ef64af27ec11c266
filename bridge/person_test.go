package bridge

// What a person sees (SPEC §18): an empty prompt refused, files in the
// project linked with no setup.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyPromptRefused: a prompt with no content, or only whitespace
// text, answers -32602 "the prompt is empty" and reaches no agent: the
// agent's request log holds only the prompt with words sent after them.
func TestEmptyPromptRefused(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "You asked: "+c.text(), false)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	for _, prompt := range [][]any{
		{},
		{text("")},
		{text("  \n\t ")},
		{text(" "), text("\r\n")},
	} {
		res := s.Call("session/prompt", map[string]any{"sessionId": id, "prompt": prompt})
		if res.Error == nil || res.Error.Code != -32602 || res.Error.Message != "the prompt is empty" {
			t.Errorf("prompt %v: answered %+v %s, want -32602 \"the prompt is empty\"", prompt, res.Error, res.Result)
		}
	}
	// The session still works, and its first prompt with words is the
	// only message the agent got.
	if got := stopReason(t, s.prompt(t, id, "hello")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	sent := f.callsOf("SendStreamingMessage")
	if len(sent) != 1 || sent[0].text() != "hello" {
		var texts []string
		for _, c := range sent {
			texts = append(texts, c.text())
		}
		t.Errorf("the agent got %d messages %q, want only \"hello\"", len(sent), texts)
	}
	if n := len(f.callsOf("SendMessage")); n != 0 {
		t.Errorf("the agent got %d SendMessage", n)
	}
}

// TestEmptyPromptLeavesTheQuestion: an empty prompt does not answer the
// agent's question; the next prompt with words does, on its task.
func TestEmptyPromptLeavesTheQuestion(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		if tid, _ := c.message()["taskId"].(string); tid != "" {
			w.artifact(tid, "a1", "You answered: "+c.text(), false)
			w.status(tid, "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which branch?")))
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "deploy")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if res := s.prompt(t, id, " "); res.Error == nil || res.Error.Code != -32602 {
		t.Fatalf("an empty answer: %+v %s", res.Error, res.Result)
	}
	if got := stopReason(t, s.prompt(t, id, "main")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	sent := f.callsOf("SendStreamingMessage")
	if len(sent) != 2 {
		t.Fatalf("the agent got %d messages, want the prompt and its answer", len(sent))
	}
	if m := sent[1].message(); m["taskId"] != "t1" || sent[1].text() != "main" {
		t.Errorf("the answer %v", m)
	}
}

// TestProjectFilesLinkWithoutRoots: started with no --root and no roots
// from the agent, a relative path links to the file in the session's cwd,
// else in an additional directory (the cwd first), when it is there (a write's, an edit's
// or a move's destination: else where its folder is); a path that is not there,
// one with .. and one through a symlink out link nowhere, even when a
// file of that name exists where they lead (SPEC §18, amending §5).
func TestProjectFilesLinkWithoutRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd, extra, outside := filepath.Join(base, "proj"), filepath.Join(base, "extra"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(cwd, "docs"), extra, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(cwd, "README.md"), filepath.Join(extra, "README.md"), filepath.Join(extra, "notes.md"), filepath.Join(base, "x"), filepath.Join(outside, "secret.txt")} {
		if err := os.WriteFile(f, []byte("text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(cwd, "out")); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ name, args string }{
		{"read_file", `{"path": "README.md", "offset": 3}`},
		{"read_file", `{"path": "nope.md"}`},
		{"read_file", `{"path": "../x"}`},
		{"read_file", `{"path": "out/secret.txt"}`},
		{"read_file", `{"path": "notes.md"}`},
		{"write_file", `{"path": "docs/new.md", "content": "hi"}`},
		{"write_file", `{"path": "nodir/new.md", "content": "hi"}`},
		{"move_file", `{"path": "README.md", "destination": "docs/README.md"}`},
		{"edit_file", `{"path": "../x", "old_string": "text", "new_string": "new"}`},
		{"edit_file", `{"path": "notes.md", "old_string": "text", "new_string": "new"}`},
	}
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		for i, call := range calls {
			id := fmt.Sprintf("c%d", i+1)
			toolFrame(w, map[string]any{"toolCallId": id, "name": call.name, "phase": "started", "args": call.args})
			toolFrame(w, map[string]any{"toolCallId": id, "name": call.name, "phase": "completed", "result": "ok"})
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	m := s.Call("session/new", map[string]any{"cwd": cwd, "additionalDirectories": []any{extra}, "mcpServers": []any{}})
	if m.Error != nil {
		t.Fatalf("session/new: %v", m.Error)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if got := stopReason(t, s.prompt(t, r.SessionID, "go")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	var got []string
	for _, u := range toolUpdates(t, s.Updates(r.SessionID)) {
		var ps []string
		for _, l := range asList(u["locations"]) {
			lm := l.(map[string]any)
			ps = append(ps, fmt.Sprintf("%s:%v", strings.Replace(lm["path"].(string), base, "BASE", 1), lm["line"]))
		}
		for _, c := range asList(u["content"]) {
			if cm := c.(map[string]any); cm["type"] == "diff" {
				ps = append(ps, "diff "+strings.Replace(cm["path"].(string), base, "BASE", 1))
			}
		}
		if u["sessionUpdate"] == "tool_call" || len(ps) > 0 {
			got = append(got, fmt.Sprintf("%s=%v", u["toolCallId"], ps))
		}
	}
	want := strings.Join([]string{
		"c1=[BASE/proj/README.md:3]",
		"c2=[]",
		"c3=[]",
		"c4=[]",
		"c5=[BASE/extra/notes.md:<nil>]",
		"c6=[BASE/proj/docs/new.md:<nil>]",
		"c6=[diff BASE/proj/docs/new.md]",
		"c7=[]",
		"c8=[BASE/proj/README.md:<nil> BASE/proj/docs/README.md:<nil>]",
		"c9=[]",
		"c10=[BASE/extra/notes.md:<nil>]",
		"c10=[diff BASE/extra/notes.md]",
	}, "\n")
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("locations:\n%s\nwant\n%s", g, want)
	}
}

// asList is v as a JSON list (nil when it is none).
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
