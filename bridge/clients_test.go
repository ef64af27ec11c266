package bridge

// ACP as clients speak it now (SPEC §14): each feature with the client
// capability that gates it and without (a client that advertises nothing
// sees what it saw before), every message checked against the schema by
// the test client.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// noticesCaps is what a client that draws notices advertises.
var noticesCaps = map[string]any{"session": map[string]any{"notices": map[string]any{}}}

// initCaps initializes with clientCapabilities caps.
func (s *testShim) initCaps(t *testing.T, caps map[string]any) {
	t.Helper()
	m := s.Call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "zed", "title": "Zed", "version": "1"},
		"clientCapabilities": caps})
	if m.Error != nil {
		t.Fatalf("initialize: %v", m.Error)
	}
}

// noticesOf is the notices among updates, as "severity: title".
func noticesOf(ups []acptest.Update) []string {
	var out []string
	for _, u := range ups {
		if u.Kind() != "notice" {
			continue
		}
		var n struct {
			Severity string `json:"severity"`
			Title    string `json:"title"`
		}
		_ = json.Unmarshal(u.Update, &n)
		out = append(out, n.Severity+": "+n.Title)
	}
	return out
}

// said reports whether an update of kind carries text with sub.
func said(ups []acptest.Update, kind, sub string) bool {
	for _, u := range ups {
		if u.Kind() == kind && strings.Contains(u.Text(), sub) {
			return true
		}
	}
	return false
}

// mcpServer is one stdio MCP server as an editor offers it.
var mcpServer = map[string]any{"name": "fs", "command": "/usr/bin/mcp-fs", "args": []any{}, "env": []any{}}

// TestNotices: what shim says about itself reaches a client that
// advertised session.notices as a notice (title and severity), and no
// longer as answer text or a thought; a client without the capability
// gets no notice at all and exactly what it got before.
func TestNotices(t *testing.T) {
	type scenario struct {
		name  string
		run   func(t *testing.T, caps map[string]any) []acptest.Update
		title string // the notice, with the capability
		old   string // "kind text" a client without it sees, "" for nothing
	}
	scenarios := []scenario{
		{"busy elsewhere", func(t *testing.T, caps map[string]any) []acptest.Update {
			api := newOpAPI()
			f := withOperator(t, api)
			answering(f, "Live answer.")
			s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { setBusyPoll(o, fastPoll) }, nil)
			s.initCaps(t, caps)
			id := s.resumeSession(t, "chat-elsewhere-1", "/w")
			api.mu.Lock()
			api.summary = busyFor(2, "TASK_STATE_COMPLETED")
			api.mu.Unlock()
			stopReason(t, s.prompt(t, id, "Next"))
			return s.Updates(id)
		}, "info: Waiting: this chat is busy in another window", "agent_thought_chunk busy in another window"},
		{"progress note", func(t *testing.T, caps map[string]any) []acptest.Update {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_SUBMITTED")
				w.status("t1", "TASK_STATE_WORKING", map[string]any{"role": "ROLE_AGENT", "messageId": "n1", "parts": []any{textPart("Searching the code…")}})
				w.artifact("t1", "a1", "Found it.", false)
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			s := startShim(t, f.url, nil, nil)
			s.initCaps(t, caps)
			id := s.newSession(t, "/w")
			stopReason(t, s.prompt(t, id, "find it"))
			if got := answer(s.Updates(id), "agent_message_chunk"); got != "Found it." {
				t.Errorf("answer %q", got)
			}
			return s.Updates(id)
		}, "info: Searching the code…", "agent_thought_chunk Searching the code…"},
		{"approvals not skipped", func(t *testing.T, caps map[string]any) []acptest.Update {
			f := modeAgent(t)
			s := startShim(t, f.url, nil, (&permissions{}).handler)
			s.initCaps(t, caps)
			id := s.newSession(t, "/tmp")
			if m := s.Call("session/set_mode", map[string]any{"sessionId": id, "modeId": "allow-commands"}); m.Error != nil {
				t.Fatal(m.Error)
			}
			stopReason(t, s.prompt(t, id, "run cmd"))
			return s.Updates(id)
		}, "warning: This agent asks before every command", "agent_message_chunk asks before every command"},
		{"MCP servers not forwarded, once per session", func(t *testing.T, caps map[string]any) []acptest.Update {
			f := newFake(t)
			answering(f, "ok")
			s := startShim(t, f.url, nil, nil)
			s.initCaps(t, caps)
			m := s.Call("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{mcpServer}})
			if m.Error != nil {
				t.Fatal(m.Error)
			}
			var r struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(m.Result, &r)
			// Again on resume: said once per session all the same.
			if m := s.Call("session/resume", map[string]any{"sessionId": r.SessionID, "cwd": "/w", "mcpServers": []any{mcpServer}}); m.Error != nil {
				t.Fatal(m.Error)
			}
			// The prompt's updates come after whatever the session had
			// queued before it.
			stopReason(t, s.prompt(t, r.SessionID, "hi"))
			ups := s.Updates(r.SessionID)
			if n := len(noticesOf(ups)); n > 1 {
				t.Errorf("%d notices, want one per session", n)
			}
			return ups
		}, "info: The agent does not use your editor's MCP tools", ""},
		{"earlier turns not shown", func(t *testing.T, caps map[string]any) []acptest.Update {
			const id = "chat-zed-7-n"
			f := &fakeAgent{t: t, name: "Fake Agent"}
			f.url = startFake(t, &endlessPages{f: f, ctx: id})
			s := startShimLoading(t, f.url, nil, nil, 4<<20)
			s.initCaps(t, caps)
			if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
				t.Fatalf("load: %v", m.Error)
			}
			return s.Updates(id)
		}, "info: Earlier turns not shown", "agent_message_chunk (earlier turns not shown)"},
		{"stream dropped, reconnecting", func(t *testing.T, caps map[string]any) []acptest.Update {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_WORKING")
				w.artifact("t1", "a1", "Half", false)
				// The stream ends here, before the task does.
			}
			f.subscribe = func(w *sseWriter, c rpcCall) {
				w.artifact("t1", "a1", " and the rest.", true)
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			s := startShim(t, f.url, nil, nil)
			s.initCaps(t, caps)
			id := s.newSession(t, "/w")
			stopReason(t, s.prompt(t, id, "go"))
			if got := answer(s.Updates(id), "agent_message_chunk"); got != "Half and the rest." {
				t.Errorf("answer %q", got)
			}
			return s.Updates(id)
		}, "warning: Connection to the agent lost: reconnecting", ""},
		{"token renewed", func(t *testing.T, caps map[string]any) []acptest.Update {
			return renewalTurn(t, caps, true)
		}, "info: Your sign-in to the agent was renewed", ""},
		{"renewal refused", func(t *testing.T, caps map[string]any) []acptest.Update {
			return renewalTurn(t, caps, false)
		}, "warning: Your sign-in to the agent could not be renewed", ""},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			oldKind, oldText, _ := strings.Cut(sc.old, " ")
			ups := sc.run(t, noticesCaps)
			if got := noticesOf(ups); !slices.Contains(got, sc.title) {
				t.Errorf("with notices: %q, want %q", got, sc.title)
			}
			if sc.old != "" && said(ups, oldKind, oldText) {
				t.Errorf("with notices, still said as %s", sc.old)
			}
			ups = sc.run(t, map[string]any{})
			if got := noticesOf(ups); len(got) != 0 {
				t.Errorf("a client without notices got %q", got)
			}
			if sc.old != "" && !said(ups, oldKind, oldText) {
				t.Errorf("without notices, not said as %s", sc.old)
			}
		})
	}
}

// renewalTurn runs a prompt whose calls renew the OAuth token (renewed:
// the token URL gives a new one, else it refuses from the prompt on), and
// returns the session's updates.
func renewalTurn(t *testing.T, caps map[string]any, renewed bool) []acptest.Update {
	var issued atomic.Int64
	var refuse atomic.Bool
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if issued.Add(1); refuse.Load() {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		// A token that expires at once: every call renews it.
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("fresh-access-%08d", issued.Load()),
			"refresh_token": "fresh-refresh-0123456789", "token_type": "Bearer", "expires_in": 1})
	}))
	t.Cleanup(as.Close)
	f := newFake(t)
	answering(f, "ok")
	s := startShim(t, f.url, func(_ *Options, c *a2aclient.Config) {
		c.OAuth = &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789", RefreshToken: "old-refresh-0123456789",
			Expiry: time.Now().Add(-time.Minute), TokenURL: as.URL + "/token", ClientID: "cli"}}
	}, nil)
	s.initCaps(t, caps)
	id := s.newSession(t, "/w")
	refuse.Store(!renewed)
	m := s.prompt(t, id, "hi")
	if renewed {
		stopReason(t, m)
	} else if m.Error == nil || m.Error.Code != -32000 {
		t.Errorf("a refused renewal: %v, want -32000", m.Error)
	}
	ups := s.Updates(id)
	for _, u := range ups {
		if strings.Contains(string(u.Update), "refresh-0123456789") {
			t.Errorf("a refresh token reached the editor: %s", u.Update)
		}
	}
	return ups
}

// TestMessageIDs: every chunk carries a messageId, one per A2A artifact
// (made unique with its task's id) or message (its own), the same for
// each chunk of it, and the same live and when the thread is loaded
// again; with or without any capability.
func TestMessageIDs(t *testing.T) {
	for _, caps := range []map[string]any{{}, noticesCaps} {
		dir := t.TempDir()
		ix := threads.Open(dir, nil)
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			w.status("t1", "TASK_STATE_WORKING", map[string]any{"role": "ROLE_AGENT", "messageId": "think-1",
				"parts": []any{map[string]any{"text": "Weighing it.", "metadata": map[string]any{"adk_thought": true}}}})
			w.artifact("t1", "a1", "Hello", true)
			w.artifact("t1", "a1", ", world", true)
			w.artifact("t1", "a2", "Second.", false)
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
		var id string
		f.getTask = func(c rpcCall) any {
			return map[string]any{"id": "t1", "contextId": id, "status": map[string]any{"state": "TASK_STATE_COMPLETED", "timestamp": "2026-12-01T10:00:00Z"},
				"history": []any{map[string]any{"role": "ROLE_USER", "messageId": "u-1", "parts": []any{textPart("hi")}}},
				"artifacts": []any{map[string]any{"artifactId": "a1", "parts": []any{textPart("Hello, world")}},
					map[string]any{"artifactId": "a2", "parts": []any{textPart("Second.")}}}}
		}
		s := startShim(t, f.url, withIndex(ix, "k", nil), nil)
		s.initCaps(t, caps)
		id = s.newSession(t, "/w")
		stopReason(t, s.prompt(t, id, "hi"))
		// (Chunks of one message queued together may merge into one.)
		live := slices.Compact(chunkIDs(t, s.Updates(id)))
		if want := "agent_thought_chunk think-1|agent_message_chunk t1/a1|agent_message_chunk t1/a2"; strings.Join(live, "|") != want {
			t.Errorf("live chunks\n%s\nwant\n%s", strings.Join(live, "|"), want)
		}

		s2 := startShim(t, f.url, withIndex(ix, "k", nil), nil)
		s2.initCaps(t, caps)
		if m := s2.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
			t.Fatal(m.Error)
		}
		replayed := chunkIDs(t, s2.Updates(id))
		if want := "user_message_chunk u-1|agent_message_chunk t1/a1|agent_message_chunk t1/a2"; strings.Join(replayed, "|") != want {
			t.Errorf("replayed chunks\n%s\nwant\n%s", strings.Join(replayed, "|"), want)
		}
	}
}

// chunkIDs is "kind messageId" of every chunk; a chunk without one fails.
func chunkIDs(t *testing.T, ups []acptest.Update) []string {
	t.Helper()
	var out []string
	for _, u := range ups {
		switch u.Kind() {
		case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
			var c struct {
				MessageID string `json:"messageId"`
			}
			_ = json.Unmarshal(u.Update, &c)
			if c.MessageID == "" {
				t.Errorf("a chunk without a messageId: %s", u.Update)
			}
			out = append(out, u.Kind()+" "+c.MessageID)
		}
	}
	return out
}

// TestSetModel: session/set_model (older clients) sets the model option
// as set_config_option would: answered {}, the next message carries the
// model, the picker hears of it; a model not in --models, or none offered,
// is -32602.
func TestSetModel(t *testing.T) {
	f := newFake(t)
	answering(f, "ok")
	s := startShim(t, f.url, withModels("gpt-x", "claude-y"), nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if m := s.Call("session/set_model", map[string]any{"sessionId": id, "modelId": "claude-y"}); m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("set_model: %v %s", m.Error, m.Result)
	}
	stopReason(t, s.prompt(t, id, "one"))
	if m := s.Call("session/set_model", map[string]any{"sessionId": id, "modelId": "default"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	stopReason(t, s.prompt(t, id, "two"))
	want := []string{`task=<nil> text="one" meta={"model":"claude-y"}`, `task=<nil> text="two" meta=null`}
	if got := resumes(f); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var values []string
	for _, u := range s.Updates(id) {
		if u.Kind() == "config_option_update" {
			var v struct {
				ConfigOptions []struct {
					ID           string `json:"id"`
					CurrentValue string `json:"currentValue"`
				} `json:"configOptions"`
			}
			_ = json.Unmarshal(u.Update, &v)
			values = append(values, v.ConfigOptions[1].ID+"="+v.ConfigOptions[1].CurrentValue)
		}
	}
	if strings.Join(values, " ") != "model=claude-y model=default" {
		t.Errorf("config_option_update after set_model: %v", values)
	}
	for _, bad := range []map[string]any{{"sessionId": id, "modelId": "gpt-z"}, {"sessionId": "nope", "modelId": "gpt-x"}, {"sessionId": id}} {
		if m := s.Call("session/set_model", bad); m.Error == nil || m.Error.Code != -32602 {
			t.Errorf("%v: %v", bad, m.Error)
		}
	}
	s2 := startShim(t, f.url, nil, nil)
	s2.init(t)
	id2 := s2.newSession(t, "/tmp")
	if m := s2.Call("session/set_model", map[string]any{"sessionId": id2, "modelId": "gpt-x"}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("set_model without --models: %v", m.Error)
	}
}

// locates reports whether an update of the session id links path.
func locates(t *testing.T, s *testShim, id, path string) bool {
	for _, u := range decodeUpdates(t, s.Updates(id)) {
		for _, l := range u.Locations {
			if l.Path == path {
				return true
			}
		}
	}
	return false
}

// dirsListedIn is the additionalDirectories session/list gives the
// session id under cwd.
func dirsListedIn(t *testing.T, s *testShim, cwd, id string) any {
	t.Helper()
	for _, row := range listSessions(t, s, cwd) {
		if row["sessionId"] == id {
			return row["additionalDirectories"]
		}
	}
	t.Fatalf("%s not listed", id)
	return nil
}

// TestAdditionalDirectories: additionalDirectories on session/new are
// roots like the cwd (an absolute path the agent names in one links), kept
// in the thread index and listed back; a non-empty list on load replaces
// the thread's, an empty one keeps it; a relative one is -32602 on new,
// load and resume. Without them nothing changes.
func TestAdditionalDirectories(t *testing.T) {
	base := t.TempDir()
	first, second := filepath.Join(base, "first"), filepath.Join(base, "second")
	for _, d := range []string{first, second} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	readIn := filepath.Join(second, "lib.go")
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		toolFrameTask(w, "t1", map[string]any{"toolCallId": "c1", "name": "read_file", "phase": "completed",
			"args": `{"path": "` + readIn + `"}`, "result": "package lib"})
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	ix := threads.Open(t.TempDir(), nil)
	s := startShim(t, f.url, withIndex(ix, "k", nil), nil)
	s.init(t)
	located := func(id string) bool { return locates(t, s, id, readIn) }

	plain := s.newSession(t, first)
	stopReason(t, s.prompt(t, plain, "read it"))
	if located(plain) {
		t.Errorf("a path outside the cwd linked with no additional directory")
	}

	m := s.Call("session/new", map[string]any{"cwd": first, "additionalDirectories": []any{second}, "mcpServers": []any{}})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Result, &r)
	id := r.SessionID
	stopReason(t, s.prompt(t, id, "read it"))
	if !located(id) {
		t.Errorf("a path in an additional directory did not link: %s", transcript(decodeUpdates(t, s.Updates(id))))
	}

	dirsListed := func(id string) any { return dirsListedIn(t, s, first, id) }
	if got := dirsListed(id); !jsonEqual(got, []any{second}) {
		t.Errorf("listed %v, want [%s]", got, second)
	}
	if got := dirsListed(plain); got != nil {
		t.Errorf("a session with none listed %v", got)
	}
	e, _, _ := ix.Get("k", id)
	if !slices.Equal(e.AdditionalDirectories, []string{second}) {
		t.Errorf("index %v", e.AdditionalDirectories)
	}

	// load: an empty list keeps the thread's, a non-empty one replaces it.
	f.getTask = func(c rpcCall) any { return taskResult("t1", id, "TASK_STATE_COMPLETED", "done", "") }
	if m := s.Call("session/load", loadArgs(id, first)); m.Error != nil {
		t.Fatal(m.Error)
	}
	if got := dirsListed(id); !jsonEqual(got, []any{second}) {
		t.Errorf("after a load with none: %v", got)
	}
	other := filepath.Join(base, "other")
	if m := s.Call("session/load", map[string]any{"sessionId": id, "cwd": first, "additionalDirectories": []any{other}, "mcpServers": []any{}}); m.Error != nil {
		t.Fatal(m.Error)
	}
	if got := dirsListed(id); !jsonEqual(got, []any{other}) {
		t.Errorf("after a load with [%s]: %v", other, got)
	}

	for _, method := range []string{"session/new", "session/load", "session/resume"} {
		args := map[string]any{"sessionId": id, "cwd": first, "additionalDirectories": []any{second, "rel/dir"}, "mcpServers": []any{}}
		if m := s.Call(method, args); m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "rel/dir") {
			t.Errorf("%s with a relative directory: %v", method, m.Error)
		}
	}
	if got := dirsListed(id); !jsonEqual(got, []any{other}) {
		t.Errorf("a refused load changed the list: %v", got)
	}
}

// TestAdditionalDirectoriesInPreamble: the preamble of a minted session
// in a known project names its additional directories, a known project by
// name.
func TestAdditionalDirectoriesInPreamble(t *testing.T) {
	f := newFake(t)
	answering(f, "ok")
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) {
		o.RootOverrides = []roots.Root{{Name: "app", Path: "/src/app"}, {Name: "lib", Path: "/src/lib"}}
	}, nil)
	s.init(t)
	for _, tc := range []struct {
		dirs []any
		want string
	}{
		{nil, "opened on your project `app` (/src/app). Paths"},
		{[]any{"/src/lib"}, "opened on your project `app` (/src/app) and the folder `lib` (/src/lib). Paths"},
		{[]any{"/src/lib", "/data/x", "/data/y"}, "opened on your project `app` (/src/app) and the folders `lib` (/src/lib), /data/x and /data/y. Paths"},
	} {
		args := map[string]any{"cwd": "/src/app", "mcpServers": []any{}}
		if tc.dirs != nil {
			args["additionalDirectories"] = tc.dirs
		}
		m := s.Call("session/new", args)
		if m.Error != nil {
			t.Fatal(m.Error)
		}
		var r struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Result, &r)
		stopReason(t, s.prompt(t, r.SessionID, "hello"))
		calls := f.callsOf("SendStreamingMessage")
		if got := calls[len(calls)-1].text(); !strings.Contains(got, tc.want) {
			t.Errorf("dirs %v: preamble\n%s\nwant it to hold\n%s", tc.dirs, got, tc.want)
		}
	}
}

// traceLog records the traceparent and tracestate of every request to
// the handler it wraps, by "METHOD path" (an A2A call by its method).
type traceLog struct {
	next http.Handler
	mu   sync.Mutex
	seen []string
}

func (h *traceLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.URL.Path+" traceparent="+r.Header.Get("traceparent")+" tracestate="+r.Header.Get("tracestate"))
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *traceLog) lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen)
}

// TestTraceContext: _meta.traceparent and tracestate on a request become
// the traceparent and tracestate headers of every A2A request it causes:
// the sign-in probe of session/new, a prompt's stream, its reattach, its
// read-back and its CancelTask, the operator API's calls, a load's history
// reads, a listing's; a request without them (or with a traceparent that
// is not valid) causes requests without them.
func TestTraceContext(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const ts = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
	traced := map[string]any{"traceparent": tp, "tracestate": ts}
	with := func(args map[string]any, meta map[string]any) map[string]any {
		if meta != nil {
			args["_meta"] = meta
		}
		return args
	}
	for _, tc := range []struct {
		name string
		meta map[string]any
		want string // the headers every A2A request carries
	}{
		{"traced", traced, "traceparent=" + tp + " tracestate=" + ts},
		{"untraced", nil, "traceparent= tracestate="},
		{"not a valid traceparent", map[string]any{"traceparent": "00-zz-00f067aa0ba902b7-01", "tracestate": ts}, "traceparent= tracestate="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newOpAPI()
			api.sessions = []map[string]any{}
			f := withOperator(t, api)
			ops := &traceLog{next: api}
			f.operator = ops
			block := make(chan struct{})
			t.Cleanup(func() { close(block) })
			var streams atomic.Int64
			f.stream = func(w *sseWriter, c rpcCall) {
				if streams.Add(1) == 1 {
					// The first turn's stream drops: reattached, then read back.
					w.task("t1", "TASK_STATE_WORKING")
					return
				}
				w.task("t2", "TASK_STATE_WORKING")
				<-block
			}
			f.subscribe = func(w *sseWriter, c rpcCall) {}
			f.getTask = func(c rpcCall) any { return taskResult("t1", "x", "TASK_STATE_COMPLETED", "done", "") }
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			m := s.Call("session/new", with(map[string]any{"cwd": "/w", "mcpServers": []any{}}, tc.meta))
			if m.Error != nil {
				t.Fatal(m.Error)
			}
			var r struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(m.Result, &r)
			id := r.SessionID
			stopReason(t, s.Call("session/prompt", with(promptArgs(id, "one"), tc.meta)))
			ch, _ := s.Start("session/prompt", with(promptArgs(id, "two"), tc.meta))
			waitCalls(t, f, "SendStreamingMessage", 2)
			s.Notify("session/cancel", map[string]any{"sessionId": id})
			stopReason(t, s.Wait(ch, "prompt"))
			waitCalls(t, f, "CancelTask", 1)
			if m := s.Call("session/load", with(loadArgs(id, "/w"), tc.meta)); m.Error != nil {
				t.Fatal(m.Error)
			}
			if m := s.Call("session/list", with(map[string]any{"cwd": "/w"}, tc.meta)); m.Error != nil {
				t.Fatal(m.Error)
			}
			var methods []string
			check := func(what, headers string) {
				methods = append(methods, what)
				if headers != tc.want {
					t.Errorf("%s: %s, want %s", what, headers, tc.want)
				}
			}
			f.mu.Lock()
			calls := slices.Clone(f.calls)
			f.mu.Unlock()
			for _, c := range calls {
				check(c.Method, "traceparent="+c.Header.Get("traceparent")+" tracestate="+c.Header.Get("tracestate"))
			}
			for _, l := range ops.lines() {
				what, headers, _ := strings.Cut(l, " traceparent=")
				check(what, "traceparent="+headers)
			}
			for _, must := range []string{"GetTask", "SendStreamingMessage", "SubscribeToTask", "CancelTask", "GET /api/chat/sessions"} {
				if !slices.Contains(methods, must) {
					t.Errorf("no %s among the calls checked: %v", must, methods)
				}
			}
		})
	}
}
