package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

// startBinShim runs the built binary as the editor's agent against url,
// driven by a test client that validates every line against the ACP
// schema; args are added to the command line. Its stderr is the log.
func startBinShim(t *testing.T, url string, h acptest.Handler, args ...string) *testShim {
	t.Helper()
	cmd := exec.Command(shimBinary(t), append([]string{"--url", url, "--state-dir", t.TempDir(), "--config-dir", t.TempDir(),
		"--keyring", "off", "--log-level", "debug"}, args...)...)
	cmd.Env = append(os.Environ(), "SHIM_URL=", "SHIM_TOKEN=", "SHIM_TOKEN_FILE=")
	buf := &strings.Builder{}
	sink := logSink{mu: make(chan struct{}, 1), buf: buf}
	cmd.Stderr = sink
	inW, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &testShim{stdin: inW, done: make(chan struct{}), logs: buf, sink: sink}
	go func() { _ = cmd.Wait(); close(s.done) }()
	s.Client = acptest.NewClient(t, outR, inW, h)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("shim did not stop after stdin closed")
		}
	})
	return s
}

// hostile is server text with what would act on the person's screen or
// make a dialog say one thing and show another: ESC sequences (a window
// title, a clipboard write), BEL, C1 CSI, DEL, a carriage return, a
// right-to-left override and an isolate; plus a tab and a line break,
// which a title must not keep.
const hostile = "Deploy\x1b]0;pwned\x07 \x1b]52;c;cm0gLXJm\x07 \u009b2J\x7f now\r\u202etxt.exe\u2066\tok\nsecond line"

// unsafe is every character of hostile that no text of shim's may keep;
// lineBreaks what a title may not keep besides.
const (
	unsafe     = "\x1b\x07\u009b\x7f\r\u202e\u2066"
	lineBreaks = "\n\t"
)

// hostileStream is TestServerTextInShimsWords's agent: hostile text in a
// progress note, tool calls, an approval, a form (its field named key)
// and the answer.
func hostileStream(t *testing.T, f *fakeAgent, key string) func(w *sseWriter, c rpcCall) {
	return func(w *sseWriter, c rpcCall) {
		switch len(f.callsOf("SendStreamingMessage")) {
		case 1:
			w.task("t1", "TASK_STATE_SUBMITTED")
			w.status("t1", "TASK_STATE_WORKING", map[string]any{"role": "ROLE_AGENT", "messageId": "note-1", "parts": []any{textPart(hostile)}})
			toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "started", "args": mustJSON(t, map[string]any{"command": hostile})})
			toolFrame(w, map[string]any{"toolCallId": "c2", "name": hostile, "phase": "started", "args": `{"x": 1}`})
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Approve?"),
				hitlPart(map[string]any{"kind": "approval", "title": hostile, "detail": hostile, "project": "p"})))
		case 2:
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Settings?"), hitlPart(map[string]any{
				"kind": "form", "title": hostile, "description": hostile,
				"steps": []any{map[string]any{"schema": map[string]any{"type": "object",
					"properties": map[string]any{key: map[string]any{"type": "string", "title": hostile, "description": hostile}},
					"required":   []any{key}}}},
			})))
		default:
			w.artifact("t1", "a1", "answer: "+hostile, false)
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
	}
}

// TestServerTextInShimsWords: a scripted agent puts hostile text in a
// progress note, a tool call's name and command, an approval's title and
// detail, and a form's title, description and fields; what the built
// binary writes as its own words (the notice, the tool call titles, the
// permission dialog's title, the form's message and its fields' titles
// and descriptions) has none of the control characters or bidirectional
// overrides, titles are one line, the visible text is kept, a field's key
// is kept as sent, and the answer keeps every character as the agent
// wrote it (SPEC §15).
func TestServerTextInShimsWords(t *testing.T) {
	key := "target\x1b[0m\u202e"
	f := newFake(t)
	f.stream = hostileStream(t, f, key)
	var mu sync.Mutex
	var perms, forms []map[string]any
	handler := func(method string, params json.RawMessage) (any, *acptest.RPCError) {
		var m map[string]any
		_ = json.Unmarshal(params, &m)
		mu.Lock()
		defer mu.Unlock()
		switch method {
		case "session/request_permission":
			perms = append(perms, m)
			return selected("approve")
		case "elicitation/create":
			forms = append(forms, m)
			return map[string]any{"action": "accept", "content": map[string]any{key: "prod"}}, nil
		}
		return nil, &acptest.RPCError{Code: -32601, Message: "no"}
	}
	s := startBinShim(t, f.url, handler)
	s.initCaps(t, map[string]any{"session": map[string]any{"notices": map[string]any{}}, "elicitation": map[string]any{"form": map[string]any{}}})
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "go")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}

	// checks says what of text shim wrote in its own words holds what it
	// may not; line: text is a title.
	checks := 0
	check := func(what string, text any, line bool) {
		t.Helper()
		checks++
		s, _ := text.(string)
		bad := unsafe
		if line {
			bad += lineBreaks
		}
		if i := strings.IndexAny(s, bad); i >= 0 {
			t.Errorf("%s holds %q: %q", what, []rune(s[i:])[0], s)
		}
		if !strings.Contains(s, "Deploy]0;pwned") {
			t.Errorf("%s lost the visible text: %q", what, s)
		}
	}
	var notices, titles int
	for _, u := range s.Updates(id) {
		var m map[string]any
		if err := json.Unmarshal(u.Update, &m); err != nil {
			t.Fatal(err)
		}
		switch u.Kind() {
		case "notice":
			notices++
			check("a notice's title", m["title"], true)
			check("a notice's description", m["description"], false)
		case "tool_call", "tool_call_update":
			if _, ok := m["title"]; ok {
				titles++
				check("a tool call's title", m["title"], true)
			}
		}
	}
	if notices != 1 || titles < 3 {
		t.Errorf("%d notices and %d tool call titles, want the progress note and the two calls' and the approval's titles", notices, titles)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(perms) != 1 || len(forms) != 1 {
		t.Fatalf("asked %d permissions and %d forms, want 1 and 1", len(perms), len(forms))
	}
	check("the permission dialog's title", perms[0]["toolCall"].(map[string]any)["title"], true)
	check("the form's message", forms[0]["message"], false)
	props := forms[0]["requestedSchema"].(map[string]any)["properties"].(map[string]any)
	field, ok := props[key].(map[string]any)
	if !ok || len(props) != 1 {
		t.Fatalf("the form's field keys changed: %v", props)
	}
	check("a form field's title", field["title"], true)
	check("a form field's description", field["description"], false)
	if checks != 2*notices+titles+4 {
		t.Errorf("%d checks", checks)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "answer: "+hostile {
		t.Errorf("the answer was changed: %q, want %q", got, "answer: "+hostile)
	}
}

// TestServerTitlesInShimsWords: a thread's title from the server (listed,
// or named by a console hand-off), the path a hand-off points at, and the
// agent's name from its card (the start of shim's error messages) reach
// the editor, through the built binary, on one line without control
// characters or bidirectional overrides (SPEC §15).
func TestServerTitlesInShimsWords(t *testing.T) {
	root := t.TempDir()
	api := newOpAPI()
	api.roots = map[string]string{"p": root}
	const listed, claimed = "chat-9-x", "chat-1790294944966-qkf93w"
	api.sessions = []map[string]any{{"session_id": listed, "title": hostile, "last_updated": "2026-09-24T09:00:00", "turn_count": 1}}
	api.claim = func(string) (int, any) {
		return 200, map[string]any{"session_id": claimed, "project": "p", "path": "src/" + hostile + ".ts", "title": hostile}
	}
	f := withOperator(t, api)
	f.name = hostile
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.status("t1", "TASK_STATE_FAILED", agentMsg(textPart("it broke")))
	}
	s := startBinShim(t, f.url, nil)
	s.init(t)

	line := func(what, s string) {
		t.Helper()
		if i := strings.IndexAny(s, unsafe+lineBreaks); i >= 0 {
			t.Errorf("%s holds %q: %q", what, []rune(s[i:])[0], s)
		}
		if !strings.Contains(s, "Deploy]0;pwned") {
			t.Errorf("%s lost the visible text: %q", what, s)
		}
	}
	got := listSessions(t, s, root)
	if len(got) != 1 || got[0]["sessionId"] != listed {
		t.Fatalf("listed %v", got)
	}
	line("a listed thread's title", fmt.Sprint(got[0]["title"]))

	m := s.Call("session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
	if m.Error != nil || !strings.Contains(string(m.Result), claimed) {
		t.Fatalf("session/new did not claim the hand-off: %s %v", m.Result, m.Error)
	}
	s.WaitFor("the Open card", func(ms []acptest.Message) bool {
		return slices.ContainsFunc(ms, func(m acptest.Message) bool { return strings.Contains(string(m.Raw), `"handoff-`) })
	})
	var named, open int
	for _, u := range decodeUpdates(t, s.Updates(claimed)) {
		switch {
		case u.Kind == "session_info_update" && u.Title != "":
			named++
			line("the thread's name from the hand-off", u.Title)
		case u.Kind == "tool_call" && strings.HasPrefix(u.ToolCallID, "handoff-"):
			open++
			line("the hand-off's Open card", u.Title)
		}
	}
	if named != 1 || open != 1 {
		t.Errorf("%d names and %d Open cards, want one each", named, open)
	}

	m = s.prompt(t, claimed, "go")
	if m.Error == nil {
		t.Fatalf("the failed turn answered %s", m.Result)
	}
	agent, _, _ := strings.Cut(m.Error.Message, ": it broke")
	line("the agent's name in an error", agent)
}

// TestSignInNamesTheAgentInShimsWords: the agent's name stored with a
// sign-in (its card's, when the sign-in was made) names the editor's
// sign-in method on one line without control characters or bidirectional
// overrides (SPEC §15).
func TestSignInNamesTheAgentInShimsWords(t *testing.T) {
	si := &SignIn{Offer: func() (string, bool) { return hostile, true },
		Run: func(context.Context, func(url, code string)) error { return nil }}
	s := startShim(t, newFake(t).url, func(o *Options, _ *a2aclient.Config) { o.SignIn = si }, nil)
	var names []string
	for _, m := range authMethods(t, s, urlCaps) {
		if m["id"] == signInMethod {
			names = append(names, fmt.Sprint(m["name"]), fmt.Sprint(m["description"]))
		}
	}
	if len(names) != 2 {
		t.Fatalf("no sign-in method offered: %v", names)
	}
	for _, n := range names {
		if i := strings.IndexAny(n, unsafe+lineBreaks); i >= 0 {
			t.Errorf("the sign-in method holds %q: %q", []rune(n[i:])[0], n)
		}
		if !strings.Contains(n, "Deploy]0;pwned") {
			t.Errorf("the sign-in method lost the agent's name: %q", n)
		}
	}
}
