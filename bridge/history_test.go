package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// opAPI is a scripted operator API (protoagent-wire §3) for the history
// tests: session list, busy signal, turns, hand-off claim and roots.
type opAPI struct {
	mu       sync.Mutex
	sessions []map[string]any
	turns    map[string][]any
	// summary answers GET /api/chat/sessions/{id}: status and body; nil
	// answers 404.
	summary func(id string) (int, any)
	// claim answers POST /api/editor/handoff/claim; nil answers 404.
	claim func(cwd string) (int, any)
	roots map[string]string
	hits  []string
	// turnsDelay holds each /turns answer, to see the fetches overlap.
	turnsDelay  time.Duration
	inflight    int
	maxInflight int
}

func newOpAPI() *opAPI { return &opAPI{turns: map[string][]any{}} }

func (a *opAPI) count(prefix string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, h := range a.hits {
		if strings.HasPrefix(h, prefix) {
			n++
		}
	}
	return n
}

func (a *opAPI) setTurns(id string, turns ...any) {
	a.mu.Lock()
	a.turns[id] = turns
	a.mu.Unlock()
}

func (a *opAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.hits = append(a.hits, r.Method+" "+r.URL.Path)
	a.mu.Unlock()
	reply := func(status int, body any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if body != nil {
			_ = json.NewEncoder(w).Encode(body)
		}
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && p == "/api/chat/sessions":
		a.mu.Lock()
		rows := a.sessions
		a.mu.Unlock()
		if rows == nil {
			http.NotFound(w, r)
			return
		}
		reply(200, map[string]any{"sessions": rows})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/api/chat/sessions/") && strings.HasSuffix(p, "/turns"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/api/chat/sessions/"), "/turns")
		a.mu.Lock()
		a.inflight++
		a.maxInflight = max(a.maxInflight, a.inflight)
		turns, delay := a.turns[id], a.turnsDelay
		a.mu.Unlock()
		if delay > 0 {
			time.Sleep(delay)
		}
		a.mu.Lock()
		a.inflight--
		a.mu.Unlock()
		if turns == nil {
			turns = []any{}
		}
		reply(200, map[string]any{"turns": turns})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/api/chat/sessions/"):
		a.mu.Lock()
		f := a.summary
		a.mu.Unlock()
		if f == nil {
			reply(404, map[string]any{"detail": map[string]any{"code": "not_found"}})
			return
		}
		reply(f(strings.TrimPrefix(p, "/api/chat/sessions/")))
	case r.Method == http.MethodPost && p == "/api/editor/handoff/claim":
		var body struct {
			CWD string `json:"cwd"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		a.mu.Lock()
		f := a.claim
		a.mu.Unlock()
		if f == nil {
			http.NotFound(w, r)
			return
		}
		status, res := f(body.CWD)
		if status == http.StatusNoContent {
			w.WriteHeader(status)
			return
		}
		reply(status, res)
	case r.Method == http.MethodGet && p == "/api/fs/roots" && a.roots != nil:
		reply(200, map[string]any{"roots": a.roots})
	default:
		http.NotFound(w, r)
	}
}

// Turn and message builders in the operator API's shapes.

func userMsg(s string) map[string]any {
	return map[string]any{"role": "ROLE_USER", "parts": []any{textPart(s)}}
}

func resumeMsg(s string) map[string]any {
	m := userMsg(s)
	m["metadata"] = map[string]any{"hitl_resume": true}
	return m
}

func toolMsg(id, name, phase, args, result string) map[string]any {
	ev := map[string]any{"toolCallId": id, "name": name, "phase": phase}
	if args != "" {
		ev["args"] = args
	}
	if result != "" {
		ev["result"] = result
	}
	return map[string]any{"role": "ROLE_AGENT", "parts": []any{}, "metadata": map[string]any{a2a.ExtToolCall: ev}}
}

func steerMsg(id, text string) map[string]any {
	return agentMsg(map[string]any{"data": map[string]any{"items": []any{map[string]any{"id": id, "text": text}}},
		"metadata": map[string]any{"mimeType": a2a.MimeSteerConsumed}})
}

func hitlMsg(payload map[string]any) map[string]any {
	return agentMsg(map[string]any{"data": payload, "metadata": map[string]any{"mimeType": a2a.MimeHitl}})
}

func opTurn(taskID, state, text string, status map[string]any, answer string, history ...any) map[string]any {
	st := map[string]any{"state": state}
	for k, v := range status {
		st[k] = v
	}
	arts := []any{}
	if answer != "" {
		arts = append(arts, map[string]any{"artifactId": taskID + "-answer", "parts": []any{textPart(answer)}})
	}
	return map[string]any{"task_id": taskID, "state": state, "last_updated": "2026-09-24T10:00:00", "text": text,
		"status": st, "artifacts": arts, "history": history}
}

// withOperator starts a fake A2A server whose /api/ paths are api.
func withOperator(t *testing.T, api *opAPI) *fakeAgent {
	f := newFake(t)
	f.operator = api
	return f
}

// answering makes the fake answer every turn with text.
func answering(f *fakeAgent, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("live-1", "TASK_STATE_SUBMITTED")
		w.artifact("live-1", "a1", text, false)
		w.status("live-1", "TASK_STATE_COMPLETED", nil)
	}
}

func withIndex(ix *threads.Index, key string, more func(*Options)) func(*Options, *a2aclient.Config) {
	return func(o *Options, _ *a2aclient.Config) {
		o.Index, o.ServerKey = ix, key
		if more != nil {
			more(o)
		}
	}
}

func listSessions(t *testing.T, s *testShim, cwd string) []map[string]any {
	t.Helper()
	m := s.Call("session/list", map[string]any{"cwd": cwd})
	if m.Error != nil {
		t.Fatalf("session/list: %v", m.Error)
	}
	var r struct {
		Sessions []map[string]any `json:"sessions"`
	}
	_ = json.Unmarshal(m.Result, &r)
	return r.Sessions
}

func loadArgs(id, cwd string) map[string]any {
	return map[string]any{"sessionId": id, "cwd": cwd, "mcpServers": []any{}}
}

// update is a session/update as the tests read it.
type update struct {
	Kind       string `json:"sessionUpdate"`
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	ToolKind   string `json:"kind"`
	Status     string `json:"status"`
	Content    json.RawMessage
	Locations  []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	} `json:"locations"`
	RawInput map[string]any `json:"rawInput"`
	Text     string
}

func decodeUpdates(t *testing.T, ups []acptest.Update) []update {
	t.Helper()
	out := make([]update, 0, len(ups))
	for _, u := range ups {
		if u.Kind() == "available_commands_update" {
			// The session's commands follow every new, load and resume
			// (TestCommands* pin them); a replay is the rest.
			continue
		}
		var d update
		if err := json.Unmarshal(u.Update, &d); err != nil {
			t.Fatalf("update %s: %v", u.Update, err)
		}
		var raw struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(u.Update, &raw)
		d.Content = raw.Content
		d.Text = u.Text()
		out = append(out, d)
	}
	return out
}

// transcript renders updates one per line: kind and text or tool title.
func transcript(ups []update) string {
	var b strings.Builder
	for _, u := range ups {
		switch u.Kind {
		case "tool_call", "tool_call_update":
			b.WriteString(u.Kind + " " + u.ToolCallID + " " + u.Title + " [" + u.Status + "]\n")
		default:
			b.WriteString(u.Kind + " " + u.Text + "\n")
		}
	}
	return b.String()
}

// responseIndex is the position of the response to the request with the
// given JSON-RPC id among the messages.
func responseIndex(ms []acptest.Message, id string) int {
	for i, m := range ms {
		if m.Method == "" && string(m.ID) == id {
			return i
		}
	}
	return -1
}

// settled waits until the response to request id is in the message log
// (Wait returns as soon as it is read, before it is logged).
func settled(t *testing.T, s *testShim, id string) []acptest.Message {
	t.Helper()
	s.WaitFor("response "+id, func(ms []acptest.Message) bool { return responseIndex(ms, id) >= 0 })
	return s.Messages()
}

// updateIndexes lists the positions of the updates of session sid.
func updateIndexes(ms []acptest.Message, sid string) []int {
	var out []int
	for i, m := range ms {
		if m.Method != "session/update" {
			continue
		}
		var u acptest.Update
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID == sid && u.Kind() != "available_commands_update" {
			out = append(out, i)
		}
	}
	return out
}

const preambleFor = "[Context: the user is talking to you from Zed opened on your project `p` (/work/p). Paths you read or search there are shown to them in the editor.]\n\n"

// TestListOperator: session/list from the operator API: cwd filtering
// (rows with no recorded cwd listed under the asked one), titles from the
// server, the index, or the first user message fetched from /turns and
// written back; updatedAt in RFC 3339 with a zone, keeping the server's
// precision (microseconds, milliseconds, none); --threads-only.
func TestListOperator(t *testing.T) {
	for _, only := range []bool{false, true} {
		t.Run(map[bool]string{false: "all", true: "threads-only"}[only], func(t *testing.T) {
			api := newOpAPI()
			api.sessions = []map[string]any{
				{"session_id": "chat-zed-1-aaa", "last_updated": "2026-09-24T10:22:10.986764", "turn_count": 3},
				{"session_id": "chat-zed-2-bbb", "last_updated": "2026-09-24T10:00:00", "turn_count": 1},
				{"session_id": "chat-zed-3-ccc", "last_updated": "2026-09-24T09:30:00.120", "turn_count": 1},
				{"session_id": "chat-9-x", "title": "Server title", "last_updated": "2026-09-24T09:00:00.500+02:00", "turn_count": 3},
				{"session_id": "chat-zed-4-ddd", "last_updated": "2026-09-23T08:00:00", "turn_count": 1},
			}
			api.setTurns("chat-zed-3-ccc", opTurn("t0", "TASK_STATE_COMPLETED", "ok", nil, "ok",
				resumeMsg("approved"), userMsg(preambleFor+"Read the README")))
			api.setTurns("chat-zed-4-ddd", opTurn("t0", "TASK_STATE_COMPLETED", "ok", nil, "ok", userMsg("  Fix   the\n bug  ")))
			api.setTurns("chat-9-x", opTurn("t0", "TASK_STATE_COMPLETED", "ok", nil, "ok", userMsg("not asked")))
			f := withOperator(t, api)
			ix := threads.Open(t.TempDir(), nil)
			key := f.url
			must(t, ix.Update(key, "chat-zed-1-aaa", func(e *threads.Entry) { e.CWD, e.Title = "/work/p", "Index title" }))
			must(t, ix.Update(key, "chat-zed-2-bbb", func(e *threads.Entry) { e.CWD, e.Title = "/other", "Elsewhere" }))
			must(t, ix.Update(key, "chat-zed-3-ccc", func(e *threads.Entry) { e.CWD = "/work/p" }))
			s := startShim(t, f.url, withIndex(ix, key, func(o *Options) { o.ThreadsOnly = only }), nil)
			s.init(t)
			got := listSessions(t, s, "/work/p")
			want := []map[string]any{
				{"sessionId": "chat-zed-1-aaa", "cwd": "/work/p", "title": "Index title", "updatedAt": "2026-09-24T10:22:10.986764Z"},
				{"sessionId": "chat-zed-3-ccc", "cwd": "/work/p", "title": "Read the README", "updatedAt": "2026-09-24T09:30:00.120Z"},
				{"sessionId": "chat-9-x", "cwd": "/work/p", "title": "Server title", "updatedAt": "2026-09-24T07:00:00.500Z"},
				{"sessionId": "chat-zed-4-ddd", "cwd": "/work/p", "title": "Fix the bug", "updatedAt": "2026-09-23T08:00:00Z"},
			}
			if only {
				want = slices.Delete(want, 2, 3)
			}
			if !jsonEqual(got, want) {
				t.Errorf("sessions:\n got %v\nwant %v", got, want)
			}
			for id, title := range map[string]string{"chat-zed-3-ccc": "Read the README", "chat-zed-4-ddd": "Fix the bug"} {
				e, ok, err := ix.Get(key, id)
				if err != nil || !ok || e.Title != title {
					t.Errorf("index %s: %+v %v %v, want the fetched title written back", id, e, ok, err)
				}
			}
			if n := api.count("GET /api/chat/sessions/chat-zed-1-aaa/turns"); n != 0 {
				t.Errorf("a titled thread's turns were fetched %d times", n)
			}
			// Titles written back are not fetched again.
			before := api.count("GET /api/chat/sessions/chat-zed-3-ccc/turns")
			listSessions(t, s, "/work/p")
			if n := api.count("GET /api/chat/sessions/chat-zed-3-ccc/turns"); n != before {
				t.Errorf("the title was fetched again")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	ja, _ = json.Marshal(va)
	jb, _ = json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// TestListTitleFetchBounded: missing titles are fetched at most 4 at a time.
func TestListTitleFetchBounded(t *testing.T) {
	api := newOpAPI()
	api.turnsDelay = 30 * time.Millisecond
	for i := range 12 {
		id := "chat-zed-" + string(rune('a'+i))
		api.sessions = append(api.sessions, map[string]any{"session_id": id, "last_updated": "2026-09-24T10:00:00"})
		api.setTurns(id, opTurn("t0", "TASK_STATE_COMPLETED", "", nil, "", userMsg("question "+id)))
	}
	f := withOperator(t, api)
	s := startShim(t, f.url, withIndex(threads.Open(t.TempDir(), nil), f.url, nil), nil)
	s.init(t)
	got := listSessions(t, s, "/w")
	if len(got) != 12 {
		t.Fatalf("%d sessions", len(got))
	}
	for _, r := range got {
		if r["title"] != "question "+r["sessionId"].(string) {
			t.Errorf("row %v", r)
		}
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.maxInflight > 4 || api.maxInflight < 1 {
		t.Errorf("%d title fetches at once, want at most 4", api.maxInflight)
	}
}

// TestListIndex: without the operator API the index of this URL is
// listed; a missing title comes from the first recorded task's history.
func TestListIndex(t *testing.T) {
	f := newFake(t)
	f.getTask = func(c rpcCall) any {
		if c.Params["id"] != "t-c" {
			return &rpcErr{Code: -32001, Message: "Task not found"}
		}
		task := taskResult("t-c", "chat-zed-3-ccc", "TASK_STATE_COMPLETED", "sure", "")
		task["history"] = []any{userMsg(preambleFor + "Explain the\tparser")}
		return task
	}
	ix := threads.Open(t.TempDir(), nil)
	key := f.url
	must(t, ix.Update(key, "chat-zed-1-aaa", func(e *threads.Entry) {
		e.CWD, e.Title, e.UpdatedAt = "/work/p", "First", time.Date(2026, 9, 24, 12, 0, 0, 0, time.FixedZone("CEST", 7200))
	}))
	must(t, ix.Update(key, "chat-zed-2-bbb", func(e *threads.Entry) { e.CWD, e.Title = "/other", "Other" }))
	must(t, ix.Update(key, "chat-zed-3-ccc", func(e *threads.Entry) {
		e.TaskIDs, e.UpdatedAt = []string{"t-c"}, time.Date(2026, 9, 23, 0, 0, 0, 0, time.UTC)
	}))
	must(t, ix.Update(key, "chat-vim-4-ddd", func(e *threads.Entry) {
		e.Title, e.UpdatedAt = "From vim", time.Date(2026, 9, 22, 0, 0, 0, 0, time.UTC)
	}))
	must(t, ix.Update("https://elsewhere", "chat-zed-5", func(e *threads.Entry) { e.Title = "Another server" }))
	for _, only := range []bool{false, true} {
		s := startShim(t, f.url, withIndex(ix, key, func(o *Options) { o.ThreadsOnly = only }), nil)
		s.init(t)
		got := listSessions(t, s, "/work/p")
		want := []map[string]any{
			{"sessionId": "chat-zed-1-aaa", "cwd": "/work/p", "title": "First", "updatedAt": "2026-09-24T10:00:00Z"},
			{"sessionId": "chat-zed-3-ccc", "cwd": "/work/p", "title": "Explain the parser", "updatedAt": "2026-09-23T00:00:00Z"},
		}
		if !only {
			want = append(want, map[string]any{"sessionId": "chat-vim-4-ddd", "cwd": "/work/p", "title": "From vim", "updatedAt": "2026-09-22T00:00:00Z"})
		}
		if !jsonEqual(got, want) {
			t.Errorf("threads-only %v:\n got %v\nwant %v", only, got, want)
		}
	}
	if e, _, _ := ix.Get(key, "chat-zed-3-ccc"); e.Title != "Explain the parser" {
		t.Errorf("title not written back: %+v", e)
	}
	// The title came from a GetTask with the whole history (no historyLength).
	var fetched bool
	for _, c := range f.callsOf("GetTask") {
		if c.Params["id"] == "t-c" {
			_, limited := c.Params["historyLength"]
			fetched = !limited
		}
	}
	if !fetched {
		t.Errorf("GetTask calls %v", f.callsOf("GetTask"))
	}
}

// TestHistoryNoURL: list and load with no URL configured answer -32000
// with data.reason.
func TestHistoryNoURL(t *testing.T) {
	s := startShim(t, "", nil, nil)
	s.init(t)
	for _, c := range []struct {
		method string
		params any
	}{{"session/list", map[string]any{}}, {"session/load", loadArgs("chat-zed-1", "/w")}} {
		m := s.Call(c.method, c.params)
		if m.Error == nil || m.Error.Code != -32000 {
			t.Fatalf("%s: %+v", c.method, m)
		}
		var d struct {
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(m.Error.Data, &d)
		if d.Reason == "" {
			t.Errorf("%s: no data.reason: %s", c.method, m.Error.Data)
		}
	}
}

// wireTurns is the /turns example of protoagent-wire §3.3: a completed
// turn with a tool call, a steer and an approval resume, then a parked
// form.
func wireTurns() []any {
	return []any{
		opTurn("t0", "TASK_STATE_COMPLETED", "It says hello.", nil, "It says hello.",
			userMsg(preambleFor+"Read the README"),
			toolMsg("c1", "read_file", "started", "", ""),
			toolMsg("c1", "read_file", "started", `{"project": "p", "path": "README.md", "offset": 3}`, ""),
			toolMsg("c1", "read_file", "completed", "", "hello"),
			steerMsg("zed-1", "Just the README"),
			resumeMsg("approved"),
		),
		opTurn("t1", "TASK_STATE_INPUT_REQUIRED", "Before I deploy:", map[string]any{"message": hitlMsg(map[string]any{
			"kind": "form", "question": "Which environment should I deploy to?",
			"steps": []any{map[string]any{"schema": map[string]any{"properties": map[string]any{
				"env": map[string]any{"title": "Environment", "enum": []any{"staging", "prod"}}}, "required": []any{"env"}}}},
		})}, "", userMsg("Deploy it")),
	}
}

// checkParkAnswered: the next prompt of the loaded thread id answers its
// parked task t1 on the same context, with no preamble; the prompt after
// it is a fresh message.
func checkParkAnswered(t *testing.T, s *testShim, f *fakeAgent, id string) {
	t.Helper()
	if got := stopReason(t, s.prompt(t, id, "staging")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	calls := f.callsOf("SendStreamingMessage")
	if len(calls) != 1 {
		t.Fatalf("%d sends", len(calls))
	}
	m := calls[0].message()
	meta, _ := m["metadata"].(map[string]any)
	if calls[0].contextID() != id || m["taskId"] != "t1" || meta["hitl_resume"] != true || calls[0].text() != "staging" {
		t.Errorf("the park's answer: %v", m)
	}
	stopReason(t, s.prompt(t, id, "and then?"))
	calls = f.callsOf("SendStreamingMessage")
	if m := calls[1].message(); calls[1].contextID() != id || m["taskId"] != nil || calls[1].text() != "and then?" {
		t.Errorf("the next message: %v", m)
	}
}

// TestLoadReplaysTurns: session/load replays /turns (SPEC §4.5) before
// answering: the user's text without the preamble, the tool call once as
// a completed tool_call with title, kind, location, content and input,
// the steer, the answer, the parked form's question; resume messages are
// skipped. The next prompt answers the park on the same context with no
// preamble; a second load shows nothing twice.
func TestLoadReplaysTurns(t *testing.T) {
	root := t.TempDir()
	api := newOpAPI()
	api.roots = map[string]string{"p": root}
	const id = "chat-zed-1790245307144-28c0e1"
	api.setTurns(id, wireTurns()...)
	f := withOperator(t, api)
	answering(f, "Deployed.")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	ch, rid := s.Start("session/load", loadArgs(id, root))
	if m := s.Wait(ch, "load"); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	ms := settled(t, s, rid)
	resp := responseIndex(ms, rid)
	for _, i := range updateIndexes(ms, id) {
		if i > resp {
			t.Errorf("update %s after the load response", ms[i].Raw)
		}
	}
	ups := decodeUpdates(t, s.Updates(id))
	want := "user_message_chunk Read the README\n" +
		"tool_call replay-c1 Read p/README.md (from line 3) [completed]\n" +
		"user_message_chunk Just the README\n" +
		"agent_message_chunk It says hello.\n" +
		"user_message_chunk Deploy it\n" +
		"agent_message_chunk Before I deploy:\n" +
		"agent_message_chunk \n\n**Input needed:** Which environment should I deploy to?\n- Environment (required): one of staging, prod\n\n" +
		"(This is a form in the agent's console; reply here in words, or answer it there.)\n"
	if got := transcript(ups); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
	tc := ups[1]
	if tc.ToolKind != "read" || len(tc.Locations) != 1 || tc.Locations[0].Path != filepath.Join(root, "README.md") || tc.Locations[0].Line != 3 ||
		tc.RawInput["path"] != "README.md" || !strings.Contains(string(tc.Content), `"text":"hello"`) {
		t.Errorf("tool call %+v content %s", tc, tc.Content)
	}

	checkParkAnswered(t, s, f, id)

	// Loading again shows no turn twice.
	n := len(s.Updates(id))
	if m := s.Call("session/load", loadArgs(id, root)); m.Error != nil {
		t.Fatalf("second load: %v", m.Error)
	}
	if extra := decodeUpdates(t, s.Updates(id)[n:]); len(extra) != 0 {
		t.Errorf("a second load replayed %d updates: %s", len(extra), transcript(extra))
	}
}

// TestLoadTurnStates: a failed turn shows its ⚠️ line, a running one its
// text and "(still running elsewhere…)" with its open tool in progress;
// an unknown thread is -32002, and so is a foreign thread with
// --threads-only.
func TestLoadTurnStates(t *testing.T) {
	api := newOpAPI()
	const id = "chat-zed-2-x"
	api.setTurns(id,
		opTurn("t0", "TASK_STATE_FAILED", "", map[string]any{"message": agentMsg(textPart(
			"Error code: 429 - {'error': {'type': 'usage_limit_reached', 'message': 'The usage limit has been reached'}}"))}, "",
			userMsg("Do it")),
		opTurn("t1", "TASK_STATE_WORKING", "Half way", nil, "",
			userMsg("Go on"), toolMsg("c9", "run_command", "started", `{"command": "make test"}`, "")),
	)
	api.setTurns("chat-other-1", opTurn("t0", "TASK_STATE_COMPLETED", "x", nil, "x", userMsg("x")))
	f := withOperator(t, api)
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.ThreadsOnly = true }, nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	want := "user_message_chunk Do it\n" +
		"agent_message_chunk ⚠️ Fake Agent error: The usage limit has been reached (HTTP 429, usage_limit_reached)\n" +
		"user_message_chunk Go on\n" +
		"tool_call replay-c9 make test [in_progress]\n" +
		"agent_message_chunk Half way\n" +
		"agent_message_chunk \n\n(still running elsewhere…)\n"
	if got := transcript(decodeUpdates(t, s.Updates(id))); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
	for _, unknown := range []string{"chat-zed-nothing", "chat-other-1"} {
		m := s.Call("session/load", loadArgs(unknown, "/w"))
		if m.Error == nil || m.Error.Code != -32002 {
			t.Errorf("load %s: %+v", unknown, m)
		}
		if len(s.Updates(unknown)) != 0 {
			t.Errorf("updates for %s", unknown)
		}
		if p := s.prompt(t, unknown, "hi"); p.Error == nil || p.Error.Code != -32602 {
			t.Errorf("a thread that failed to load was registered: %+v", p)
		}
	}
}

// TestResume: session/resume replays nothing; a pending park is announced
// after the response, and the next prompt answers it.
func TestResume(t *testing.T) {
	api := newOpAPI()
	const id = "chat-zed-3-r"
	api.setTurns(id,
		opTurn("t0", "TASK_STATE_COMPLETED", "Hi.", nil, "Hi.", userMsg("Hello")),
		opTurn("t1", "TASK_STATE_INPUT_REQUIRED", "", map[string]any{"message": hitlMsg(map[string]any{"question": "Which branch?"})}, "", userMsg("Merge it")),
	)
	f := withOperator(t, api)
	answering(f, "Merged.")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	ch, rid := s.Start("session/resume", loadArgs(id, "/w"))
	if m := s.Wait(ch, "resume"); m.Error != nil {
		t.Fatalf("resume: %v", m.Error)
	}
	s.WaitFor("the park announced", func(ms []acptest.Message) bool { return len(updateIndexes(ms, id)) > 0 })
	ms := settled(t, s, rid)
	resp := responseIndex(ms, rid)
	for _, i := range updateIndexes(ms, id) {
		if i < resp {
			t.Errorf("update before the resume response: %s", ms[i].Raw)
		}
	}
	if got := transcript(decodeUpdates(t, s.Updates(id))); got != "agent_message_chunk **Input needed:** Which branch?\n" {
		t.Errorf("after resume:\n%s", got)
	}
	stopReason(t, s.prompt(t, id, "main"))
	m := f.callsOf("SendStreamingMessage")[0].message()
	if m["taskId"] != "t1" || m["contextId"] != id {
		t.Errorf("the park's answer: %v", m)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); !strings.HasSuffix(got, "Merged.") || strings.Contains(got, "Hi.") {
		t.Errorf("text %q", got)
	}
}

// TestClose: session/close forgets the session: a prompt after it is
// -32602, and so is closing it again.
func TestClose(t *testing.T) {
	f := newFake(t)
	answering(f, "ok")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/w")
	stopReason(t, s.prompt(t, id, "hi"))
	if m := s.Call("session/close", map[string]any{"sessionId": id}); m.Error != nil {
		t.Fatalf("close: %v", m.Error)
	}
	if m := s.prompt(t, id, "again"); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("prompt after close: %+v", m)
	}
	if m := s.Call("session/close", map[string]any{"sessionId": id}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("second close: %+v", m)
	}
	if n := len(f.callsOf("SendStreamingMessage")); n != 1 {
		t.Errorf("%d sends", n)
	}
}

// fastPoll is the busy poll of the tests: every 10 ms.
const fastPoll = 10 * time.Millisecond

// busyFor answers the busy signal: active for the first n polls (always
// when n < 0), then idle with lastState.
func busyFor(n int, lastState string) func(string) (int, any) {
	var mu sync.Mutex
	calls := 0
	return func(id string) (int, any) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		active := n < 0 || calls <= n
		return 200, map[string]any{"session_id": id, "active": active, "turn_count": 1, "last_updated": "2026-09-25T02:57:17.607684+00:00", "last_state": lastState}
	}
}

// TestBusyWait: a prompt on a chat busy elsewhere says so, polls until it
// is idle, shows the turn that finished meanwhile (and nothing shown
// before), then sends.
func TestBusyWait(t *testing.T) {
	api := newOpAPI()
	const id = "chat-zed-4-b"
	t0 := opTurn("t0", "TASK_STATE_COMPLETED", "Yes.", nil, "Yes.", userMsg("First question"))
	api.setTurns(id, t0)
	f := withOperator(t, api)
	answering(f, "Live answer.")
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { setBusyPoll(o, fastPoll) }, nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	n := len(s.Updates(id))
	api.mu.Lock()
	api.summary = busyFor(3, "TASK_STATE_COMPLETED")
	api.mu.Unlock()
	api.setTurns(id, t0, opTurn("t-else", "TASK_STATE_COMPLETED", "Nothing.", nil, "Nothing.", userMsg("What changed?")))
	if got := stopReason(t, s.prompt(t, id, "Next")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	ups := decodeUpdates(t, s.Updates(id)[n:])
	got := transcript(ups)
	if !strings.HasPrefix(got, "agent_thought_chunk ") || !strings.Contains(ups[0].Text, "busy in another window") {
		t.Errorf("no busy notice first:\n%s", got)
	}
	if rest := got[strings.Index(got, "\n")+1:]; rest != "user_message_chunk What changed?\nagent_message_chunk Nothing.\nagent_message_chunk Live answer.\n" {
		t.Errorf("after the wait:\n%s", rest)
	}
	if c := api.count("GET /api/chat/sessions/" + id); c < 4 {
		t.Errorf("%d busy polls, want 4", c)
	}
	if calls := f.callsOf("SendStreamingMessage"); len(calls) != 1 || calls[0].text() != "Next" {
		t.Errorf("sends %v", calls)
	}
	// The next turn shows neither the live turn nor the others again.
	api.mu.Lock()
	api.summary = busyFor(1, "TASK_STATE_COMPLETED")
	api.mu.Unlock()
	api.setTurns(id, t0, opTurn("t-else", "TASK_STATE_COMPLETED", "Nothing.", nil, "Nothing.", userMsg("What changed?")),
		opTurn("live-1", "TASK_STATE_COMPLETED", "Live answer.", nil, "Live answer.", userMsg("Next")))
	n = len(s.Updates(id))
	stopReason(t, s.prompt(t, id, "Again"))
	if got := transcript(decodeUpdates(t, s.Updates(id)[n:])); strings.Contains(got, "user_message_chunk") {
		t.Errorf("a turn shown before was shown again:\n%s", got)
	}
}

// TestBusyTimeout: a chat that stays busy fails the prompt after
// --busy-timeout with -32603 state busy, and nothing reaches A2A.
func TestBusyTimeout(t *testing.T) {
	api := newOpAPI()
	api.summary = busyFor(-1, "TASK_STATE_WORKING")
	f := withOperator(t, api)
	answering(f, "never")
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) {
		o.BusyTimeout = 300 * time.Millisecond
		setBusyPoll(o, fastPoll)
	}, nil)
	s.init(t)
	id := s.resumeSession(t, "chat-elsewhere-1", "/w")
	m := s.prompt(t, id, "hi")
	d := errData(t, m)
	if m.Error.Code != -32603 || d["state"] != "busy" {
		t.Errorf("error %+v", m.Error)
	}
	if n := len(f.callsOf("SendStreamingMessage")) + len(f.callsOf("CancelTask")); n != 0 {
		t.Errorf("%d A2A calls", n)
	}
}

// TestBusyCancel: a cancel while waiting answers cancelled and sends
// nothing (no message, no CancelTask), with or without a grace window.
func TestBusyCancel(t *testing.T) {
	busyCancel(t, func(s *testShim, id string, ch chan acptest.Message, _ string) {
		s.Notify("session/cancel", map[string]any{"sessionId": id})
		if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
			t.Fatalf("stop %q", got)
		}
	})
}

// busyCancel runs, with no grace window and with one, a prompt that waits
// for a chat busy elsewhere, ends it with cancel (which checks its answer),
// frees the chat, and checks that the next prompt runs and that nothing
// but it was sent (no message of the first, no CancelTask).
func busyCancel(t *testing.T, cancel func(s *testShim, id string, ch chan acptest.Message, reqID string)) {
	for _, grace := range []time.Duration{0, 10 * time.Second} {
		t.Run(grace.String(), func(t *testing.T) {
			api := newOpAPI()
			api.summary = busyFor(-1, "TASK_STATE_WORKING")
			f := withOperator(t, api)
			answering(f, "answer")
			s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SteerGrace = grace; setBusyPoll(o, fastPoll) }, nil)
			s.init(t)
			id := s.resumeSession(t, "chat-elsewhere-1", "/w")
			ch, reqID := s.Start("session/prompt", promptArgs(id, "first"))
			s.WaitFor("the busy notice", func(ms []acptest.Message) bool {
				return slices.ContainsFunc(ms, func(m acptest.Message) bool { return strings.Contains(string(m.Raw), "busy in another window") })
			})
			cancel(s, id, ch, reqID)
			api.mu.Lock()
			api.summary = busyFor(0, "TASK_STATE_COMPLETED")
			api.mu.Unlock()
			if got := stopReason(t, s.prompt(t, id, "second")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if calls := f.callsOf("SendStreamingMessage"); len(calls) != 1 || calls[0].text() != "second" {
				t.Errorf("sends: %v", calls)
			}
			if n := len(f.callsOf("CancelTask")); n != 0 {
				t.Errorf("%d CancelTask", n)
			}
		})
	}
}

// TestBusyRouteAbsent: 405 or 404 on the busy route means do not wait, and
// N turns do not cost N GETs. A 405, or a 404 from a server whose sessions
// list is absent too, is asked once (by session/new, beside the sessions
// list: SPEC §19); a 404 for a session the listing server does not know is
// asked twice, then again once a listing names it.
func TestBusyRouteAbsent(t *testing.T) {
	const turns = 5
	for _, tc := range []struct {
		name        string
		status      int
		list        bool
		busy, list0 int // GETs of the busy route and of the sessions list
	}{
		{"405", 405, false, 1, 1}, // the list is asked beside it, off the prompts' path (SPEC §19)
		{"404 no API", 404, false, 1, 1},
		{"404 unknown session", 404, true, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newOpAPI()
			api.summary = func(string) (int, any) { return tc.status, map[string]any{"detail": "no"} }
			if tc.list {
				api.sessions = []map[string]any{}
			}
			f := withOperator(t, api)
			answering(f, "fine")
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/w")
			for i := range turns {
				stopReason(t, s.prompt(t, id, fmt.Sprint("turn ", i)))
			}
			if got := answer(s.Updates(id), "agent_thought_chunk"); got != "" {
				t.Errorf("thought %q", got)
			}
			if n := api.count("GET /api/chat/sessions/" + id); n != tc.busy {
				t.Errorf("%d busy checks in %d turns, want %d", n, turns, tc.busy)
			}
			if n := api.count("GET /api/chat/sessions") - api.count("GET /api/chat/sessions/"); n != tc.list0 {
				t.Errorf("%d session-list GETs, want %d", n, tc.list0)
			}
			if !tc.list {
				return
			}
			// Listed by the server: its busy signal is asked for again.
			api.mu.Lock()
			api.sessions = []map[string]any{{"session_id": id, "title": "t", "last_updated": "2026-09-25T02:57:17Z"}}
			api.mu.Unlock()
			if m := s.Call("session/list", map[string]any{}); m.Error != nil {
				t.Fatalf("list: %v", m.Error)
			}
			stopReason(t, s.prompt(t, id, "after the listing"))
			if n := api.count("GET /api/chat/sessions/" + id); n != tc.busy+1 {
				t.Errorf("%d busy checks after the listing, want %d", n, tc.busy+1)
			}
		})
	}
}

// TestStalePark: a loaded park the server reports answered elsewhere
// (last_state not input-required) is not answered again: the next prompt
// is a new message. Still parked: it is answered.
func TestStalePark(t *testing.T) {
	for _, tc := range []struct {
		state string
		task  any
	}{{"TASK_STATE_COMPLETED", nil}, {"TASK_STATE_INPUT_REQUIRED", "t1"}, {"", "t1"}} {
		t.Run(tc.state, func(t *testing.T) {
			api := newOpAPI()
			const id = "chat-zed-5-p"
			api.setTurns(id, wireTurns()...)
			api.summary = busyFor(0, tc.state)
			f := withOperator(t, api)
			answering(f, "ok")
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
				t.Fatalf("load: %v", m.Error)
			}
			stopReason(t, s.prompt(t, id, "staging"))
			m := f.callsOf("SendStreamingMessage")[0].message()
			if m["taskId"] != tc.task {
				t.Errorf("taskId %v, want %v (%v)", m["taskId"], tc.task, m)
			}
			if meta, _ := m["metadata"].(map[string]any); (meta["hitl_resume"] == true) != (tc.task != nil) {
				t.Errorf("metadata %v", meta)
			}
		})
	}
}

var handoffIDRE = regexp.MustCompile(`^handoff-[0-9a-f]{6}$`)

// TestHandoffClaim: session/new claims the console's hand-off: the
// session id is the claimed one, the response comes before any update
// for it, then its turns and an "Open" card at the console's file; the
// next prompt continues that context with no preamble.
func TestHandoffClaim(t *testing.T) {
	root := t.TempDir()
	api := newOpAPI()
	api.roots = map[string]string{"rehearsal": root}
	const id = "chat-1790294944966-qkf93w"
	var claimedCWD string
	api.claim = func(cwd string) (int, any) {
		claimedCWD = cwd
		return 200, map[string]any{"session_id": id, "project": "rehearsal", "path": "src/agent.ts", "line": 42, "title": "Early-stop bug"}
	}
	api.setTurns(id, opTurn("t0", "TASK_STATE_COMPLETED", "It stops early.", nil, "It stops early.", userMsg("Why does it stop?")))
	f := withOperator(t, api)
	answering(f, "Fixed.")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	ch, rid := s.Start("session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
	m := s.Wait(ch, "session/new")
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if m.Error != nil || r.SessionID != id {
		t.Fatalf("session/new: %s %v", m.Result, m.Error)
	}
	if claimedCWD != root {
		t.Errorf("claimed with cwd %q", claimedCWD)
	}
	s.WaitFor("the Open card", func(ms []acptest.Message) bool {
		return slices.ContainsFunc(ms, func(m acptest.Message) bool { return strings.Contains(string(m.Raw), "handoff-") })
	})
	ms := settled(t, s, rid)
	resp := responseIndex(ms, rid)
	idx := updateIndexes(ms, id)
	if resp < 0 || len(idx) == 0 || idx[0] < resp {
		t.Errorf("an update came before the response that introduced the session (response %d, updates %v)", resp, idx)
	}
	ups := decodeUpdates(t, s.Updates(id))
	got := transcript(ups)
	want := "user_message_chunk Why does it stop?\nagent_message_chunk It stops early.\nsession_info_update \n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("replay:\n%s", got)
	}
	card := ups[len(ups)-1]
	if card.Kind != "tool_call" || !handoffIDRE.MatchString(card.ToolCallID) || card.Title != "Open src/agent.ts" || card.ToolKind != "read" ||
		card.Status != "completed" || len(card.Locations) != 1 || card.Locations[0].Path != filepath.Join(root, "src/agent.ts") || card.Locations[0].Line != 42 {
		t.Errorf("card %+v", card)
	}
	stopReason(t, s.prompt(t, id, "go on"))
	call := f.callsOf("SendStreamingMessage")[0]
	if call.contextID() != id || call.text() != "go on" {
		t.Errorf("the next message: %v", call.message())
	}
}

// TestHandoffNone: no hand-off (204, 404, a server error) is a fresh
// minted session; 404 is not asked again.
func TestHandoffNone(t *testing.T) {
	for _, status := range []int{204, 404, 500} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			api := newOpAPI()
			api.claim = func(string) (int, any) { return status, map[string]any{"detail": "x"} }
			f := withOperator(t, api)
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			for range 2 {
				if id := s.newSession(t, "/w"); !strings.HasPrefix(id, "chat-zed-") {
					t.Errorf("session %q", id)
				}
			}
			want := 2
			if status == 404 {
				want = 1
			}
			if n := api.count("POST /api/editor/handoff/claim"); n != want {
				t.Errorf("%d claims, want %d", n, want)
			}
		})
	}
}

// listTasksFake wraps a fake A2A server to answer ListTasks.
type listTasksFake struct {
	f     *fakeAgent
	tasks []any
	mu    sync.Mutex
	asked []map[string]any
}

func (l *listTasksFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/a2a" {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Method == "ListTasks" {
			l.mu.Lock()
			l.asked = append(l.asked, req.Params)
			l.mu.Unlock()
			writeRPC(w, req.ID, map[string]any{"tasks": l.tasks, "nextPageToken": "", "pageSize": 100, "totalSize": len(l.tasks)}, nil)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	l.f.ServeHTTP(w, r)
}

// TestLoadListTasks: with no operator API and nothing recorded in the
// index, a 1.0 server's ListTasks {contextId} gives the history (newest
// first on the wire, replayed oldest first).
func TestLoadListTasks(t *testing.T) {
	const id = "chat-zed-6-l"
	f := &fakeAgent{t: t, name: "Fake Agent"}
	task := func(tid, user, ans string) map[string]any {
		tk := taskResult(tid, id, "TASK_STATE_COMPLETED", ans, "")
		tk["history"] = []any{userMsg(user)}
		return tk
	}
	lf := &listTasksFake{f: f, tasks: []any{task("t2", "Second", "Two."), task("t1", "First", "One.")}}
	f.url = startFake(t, lf)
	s := startShim(t, f.url, withIndex(threads.Open(t.TempDir(), nil), f.url, nil), nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	want := "user_message_chunk First\nagent_message_chunk One.\nuser_message_chunk Second\nagent_message_chunk Two.\n"
	if got := transcript(decodeUpdates(t, s.Updates(id))); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if len(lf.asked) != 1 || lf.asked[0]["contextId"] != id {
		t.Errorf("ListTasks %v", lf.asked)
	}
}

// TestLoadByStatusTime: turns are replayed oldest first by their status
// timestamp, whatever order the server lists them in (SPEC §4.5).
func TestLoadByStatusTime(t *testing.T) {
	const id = "chat-zed-6-ts"
	f := &fakeAgent{t: t, name: "Fake Agent"}
	task := func(tid, user, ans, at string) map[string]any {
		tk := taskResult(tid, id, "TASK_STATE_COMPLETED", ans, "")
		tk["history"] = []any{userMsg(user)}
		tk["status"].(map[string]any)["timestamp"] = at
		return tk
	}
	lf := &listTasksFake{f: f, tasks: []any{
		task("t2", "Second", "Two.", "2026-11-30T10:00:02.500Z"),
		task("t3", "Third", "Three.", "2026-11-30T10:00:03Z"),
		task("t1", "First", "One.", "2026-11-30T11:00:01+01:00"),
	}}
	f.url = startFake(t, lf)
	s := startShim(t, f.url, withIndex(threads.Open(t.TempDir(), nil), f.url, nil), nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	want := "user_message_chunk First\nagent_message_chunk One.\nuser_message_chunk Second\nagent_message_chunk Two.\n" +
		"user_message_chunk Third\nagent_message_chunk Three.\n"
	if got := transcript(decodeUpdates(t, s.Updates(id))); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
}

// TestRealServerLoad: against the a2a-go v2 server, with no operator API:
// a thread made in one shim process is loaded in another from the same
// index, its history read back with GetTask; the index holds cwd, title,
// updatedAt and task ids; the next prompt continues the same context with
// no preamble.
func TestRealServerLoad(t *testing.T) {
	for _, dialect := range []string{"1.0", "0.3"} {
		t.Run(dialect, func(t *testing.T) {
			url := startAgent(t, agent.Options{Name: "Go Agent", Dialect: dialect})
			root := t.TempDir()
			ix := threads.Open(t.TempDir(), nil)
			opts := withIndex(ix, url, func(o *Options) {
				o.RootOverrides = []roots.Root{{Name: "proj", Path: root}}
			})
			s1 := startShim(t, url, opts, nil)
			s1.init(t)
			id := s1.newSession(t, root)
			stopReason(t, s1.prompt(t, id, "use the tool"))
			stopReason(t, s1.prompt(t, id, "and the default answer"))
			e, ok, err := ix.Get(url, id)
			if err != nil || !ok || e.CWD != root || e.Title != "use the tool" || e.UpdatedAt.IsZero() || len(e.TaskIDs) != 2 {
				t.Fatalf("index entry %+v %v %v", e, ok, err)
			}

			s2 := startShim(t, url, opts, nil)
			s2.init(t)
			if m := s2.Call("session/load", loadArgs(id, root)); m.Error != nil {
				t.Fatalf("load: %v", m.Error)
			}
			ups := decodeUpdates(t, s2.Updates(id))
			// The working status messages the history holds are the
			// thoughts the live turns showed (SPEC §18).
			want := "user_message_chunk use the tool\n" +
				"agent_thought_chunk Reading the README first.\n" +
				"tool_call replay-c1 Read README.md (lines 1–20) [completed]\n" +
				"agent_message_chunk The README says it is a demo project.\n" +
				"user_message_chunk and the default answer\n" +
				"agent_thought_chunk Thinking about: and the default answer\n" +
				"agent_message_chunk You asked: and the default answer\nHere is a streamed answer in several chunks.\n"
			if got := transcript(ups); got != want {
				t.Fatalf("replay:\n%s\nwant:\n%s", got, want)
			}
			if live := answer(s1.Updates(id), "agent_thought_chunk"); live != "Reading the README first.Thinking about: and the default answer" {
				t.Errorf("the live turns' thoughts %q", live)
			}
			tc := ups[2]
			if tc.ToolKind != "read" || len(tc.Locations) != 1 || tc.Locations[0].Path != filepath.Join(root, "README.md") ||
				tc.Locations[0].Line != 1 || !strings.Contains(string(tc.Content), "A demo project.") {
				t.Errorf("tool call %+v %s", tc, tc.Content)
			}
			n := len(s2.Updates(id))
			stopReason(t, s2.prompt(t, id, "next one"))
			if got := answer(s2.Updates(id)[n:], "agent_message_chunk"); got != "You asked: next one\nHere is a streamed answer in several chunks." {
				t.Errorf("answer after load %q (a preamble or another context?)", got)
			}
			if e, _, _ := ix.Get(url, id); len(e.TaskIDs) != 3 {
				t.Errorf("the prompt after load did not continue the thread: %+v", e)
			}
		})
	}
}

// TestRelativeCWD: a cwd that is not absolute is invalid params, in
// session/new (where it is required) and in load, resume and list where
// one is given; nothing reaches the server for it.
func TestRelativeCWD(t *testing.T) {
	f := newFake(t)
	answering(f, "ok")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"session/new", map[string]any{"cwd": "work/p", "mcpServers": []any{}}},
		{"session/new", map[string]any{"cwd": "./p", "mcpServers": []any{}}},
		{"session/new", map[string]any{"cwd": "", "mcpServers": []any{}}},
		{"session/load", loadArgs("chat-zed-1-aaa", "p")},
		{"session/resume", loadArgs("chat-zed-1-aaa", "../p")},
		{"session/list", map[string]any{"cwd": "p"}},
	} {
		m := s.Call(c.method, c.params)
		if m.Error == nil || m.Error.Code != -32602 {
			t.Errorf("%s %v: %s", c.method, c.params, m.Raw)
		}
	}
	if n := len(f.callsOf("GetTask")); n != 0 {
		t.Errorf("%d GetTask calls for invalid params", n)
	}
	if m := s.Call("session/list", map[string]any{}); m.Error != nil {
		t.Errorf("session/list with no cwd: %v", m.Error)
	}
	if id := s.newSession(t, "/work/p"); id == "" {
		t.Error("an absolute cwd was refused")
	}
}
