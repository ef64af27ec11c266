package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/threads"
)

// TestInitializeNative: initialize advertises delete beside list, resume
// and close, and the steering extension in _meta.
func TestInitializeNative(t *testing.T) {
	s := startShim(t, "", nil, nil)
	m := s.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var r struct {
		AgentCapabilities struct {
			SessionCapabilities map[string]any `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(r.AgentCapabilities.SessionCapabilities); string(b) != `{"additionalDirectories":{},"close":{},"delete":{},"list":{},"resume":{}}` {
		t.Errorf("sessionCapabilities %s", b)
	}
	if b, _ := json.Marshal(r.Meta); string(b) != `{"steering":{"supported":true}}` {
		t.Errorf("_meta %s", b)
	}
}

func steerArgs(id, text string) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": text}},
		"_meta": map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}}
}

func steerOutcome(t *testing.T, m acptest.Message) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("_session/steering: %v", m.Error)
	}
	var r struct {
		Outcome string `json:"outcome"`
	}
	_ = json.Unmarshal(m.Result, &r)
	return r.Outcome
}

// TestNativeSteerInjected: a steer while a turn runs is posted to the
// server's queue and rides the running turn: marker where the agent read
// it, one A2A message, no cancel.
func TestNativeSteerInjected(t *testing.T) {
	f := newFake(t)
	api := newSteerAPI()
	f.operator = api
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Part one.", false)
		var body map[string]string
		select {
		case body = <-api.posts:
		case <-time.After(20 * time.Second):
			return
		}
		steerConsumed(w, "t1", body["id"], body["text"])
		w.artifact("t1", "a1", " Part two.", true)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	prompt, _ := s.Start("session/prompt", promptArgs(id, "look at A"))
	waitText(t, s, "Part one.")
	if got := steerOutcome(t, s.Call("_session/steering", steerArgs(id, "look at B too"))); got != "injected" {
		t.Fatalf("outcome %q", got)
	}
	if got := stopReason(t, s.Wait(prompt, "the prompt")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Part one.\n\n↪ steering: look at B too\n\n Part two." {
		t.Errorf("text %q", got)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.posted) != 1 || api.posted[0]["text"] != "look at B too" || !steerIDRE.MatchString(api.posted[0]["id"]) {
		t.Errorf("posts %v", api.posted)
	}
	if n := len(f.callsOf("SendStreamingMessage")); n != 1 {
		t.Errorf("%d A2A messages", n)
	}
	if n := len(f.callsOf("CancelTask")); n != 0 {
		t.Errorf("%d CancelTask", n)
	}
}

// TestNativeSteerPendingAtEnd: a steer the agent never read is DELETEd at
// the turn's end and run as the next turn of the same prompt.
func TestNativeSteerPendingAtEnd(t *testing.T) {
	f := newFake(t)
	api := newSteerAPI()
	api.removed = true
	f.operator = api
	f.stream = func(w *sseWriter, c rpcCall) {
		if c.text() == "and B" {
			w.task("t2", "TASK_STATE_SUBMITTED")
			w.artifact("t2", "b1", "B answer.", false)
			w.status("t2", "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "A answer.", false)
		select {
		case <-api.posts:
		case <-time.After(20 * time.Second):
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	prompt, _ := s.Start("session/prompt", promptArgs(id, "look at A"))
	waitText(t, s, "A answer.")
	if got := steerOutcome(t, s.Call("_session/steering", steerArgs(id, "and B"))); got != "injected" {
		t.Fatalf("outcome %q", got)
	}
	if got := stopReason(t, s.Wait(prompt, "the prompt")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "A answer.\n\nB answer." {
		t.Errorf("text %q", got)
	}
	calls := f.callsOf("SendStreamingMessage")
	if len(calls) != 2 || calls[1].message()["taskId"] != nil || calls[1].text() != "and B" {
		t.Fatalf("sends %v", resumes(f))
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.deleted) != 1 || api.deleted[0] != api.posted[0]["id"] {
		t.Errorf("deleted %v posted %v", api.deleted, api.posted)
	}
}

// TestNativeSteerNotInjected: no turn running → promptRequired, nothing
// sent; a running turn with no operator steer API, or a failing POST →
// failed, the turn going on unchanged; an unknown session → -32602.
func TestNativeSteerNotInjected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int // 0: no operator API
	}{{"no steer API", 0}, {"POST fails", 500}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			api := newSteerAPI()
			if tc.status != 0 {
				api.status = tc.status
				f.operator = api
			}
			release := make(chan struct{})
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_SUBMITTED")
				w.artifact("t1", "a1", "Working.", false)
				select {
				case <-release:
				case <-time.After(20 * time.Second):
				}
				w.artifact("t1", "a1", " Done.", true)
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := steerOutcome(t, s.Call("_session/steering", steerArgs(id, "idle steer"))); got != "promptRequired" {
				t.Errorf("idle: outcome %q", got)
			}
			if m := s.Call("_session/steering", steerArgs("chat-zed-nope", "x")); m.Error == nil || m.Error.Code != -32602 {
				t.Errorf("unknown session: %v", m.Error)
			}
			prompt, _ := s.Start("session/prompt", promptArgs(id, "go"))
			waitText(t, s, "Working.")
			if got := steerOutcome(t, s.Call("_session/steering", map[string]any{"sessionId": id,
				"prompt": []any{map[string]any{"type": "text", "text": "busy steer"}}})); got != "failed" {
				t.Errorf("running: outcome %q", got)
			}
			close(release)
			if got := stopReason(t, s.Wait(prompt, "the prompt")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != "Working. Done." {
				t.Errorf("text %q", got)
			}
			if got := steerOutcome(t, s.Call("_session/steering", steerArgs(id, "after"))); got != "promptRequired" {
				t.Errorf("after the turn: outcome %q", got)
			}
			if n := len(f.callsOf("SendStreamingMessage")); n != 1 {
				t.Errorf("%d A2A messages", n)
			}
			if n := len(f.callsOf("CancelTask")); n != 0 {
				t.Errorf("%d CancelTask", n)
			}
			api.mu.Lock()
			defer api.mu.Unlock()
			for _, p := range api.posted {
				if p["text"] != "busy steer" {
					t.Errorf("posted %v", p)
				}
			}
		})
	}
}

// TestSessionDelete: a deleted thread is marked in the index and never
// listed again, whatever the server lists; the remote thread is not
// touched; an unknown id succeeds.
func TestSessionDelete(t *testing.T) {
	for _, operator := range []bool{false, true} {
		t.Run(map[bool]string{false: "index", true: "operator"}[operator], func(t *testing.T) {
			var f *fakeAgent
			api := newOpAPI()
			if operator {
				api.sessions = []map[string]any{
					{"session_id": "chat-zed-1-aaa", "title": "Keep", "last_updated": "2026-09-24T10:00:00"},
					{"session_id": "chat-zed-2-bbb", "title": "Drop", "last_updated": "2026-09-24T09:00:00"},
					{"session_id": "chat-zed-9-srv", "title": "Server only", "last_updated": "2026-09-24T08:00:00"},
				}
				f = withOperator(t, api)
			} else {
				f = newFake(t)
			}
			dir := t.TempDir()
			ix := threads.Open(dir, nil)
			key := f.url
			must(t, ix.Update(key, "chat-zed-1-aaa", func(e *threads.Entry) { e.CWD, e.Title = "/w", "Keep" }))
			must(t, ix.Update(key, "chat-zed-2-bbb", func(e *threads.Entry) { e.CWD, e.Title = "/w", "Drop" }))
			s := startShim(t, f.url, withIndex(ix, key, nil), nil)
			s.init(t)
			before := 2
			if operator {
				before = 3
			}
			if got := len(listSessions(t, s, "/w")); got != before {
				t.Fatalf("listed %d before the delete", got)
			}
			for _, id := range []string{"chat-zed-2-bbb", "chat-zed-9-srv", "chat-zed-never-seen"} {
				if m := s.Call("session/delete", map[string]any{"sessionId": id}); m.Error != nil || string(m.Result) != "{}" {
					t.Fatalf("delete %s: %v %s", id, m.Error, m.Result)
				}
			}
			got := listSessions(t, s, "/w")
			if len(got) != 1 || got[0]["sessionId"] != "chat-zed-1-aaa" {
				t.Errorf("listed after the delete: %v", got)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "threads.json"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(raw), `"deleted": true`) + strings.Count(string(raw), `"deleted":true`); n != 3 {
				t.Errorf("want 3 entries marked deleted:\n%s", raw)
			}
			if e, _, _ := ix.Get(key, "chat-zed-1-aaa"); e.Deleted {
				t.Error("the other thread was marked")
			}
			if operator && api.count("DELETE") != 0 {
				t.Errorf("the remote thread was touched: %v", api.hits)
			}
			// A second process on the same index lists it no more either.
			s2 := startShim(t, f.url, withIndex(threads.Open(dir, nil), key, nil), nil)
			s2.init(t)
			if got := listSessions(t, s2, "/w"); len(got) != 1 {
				t.Errorf("another process lists %v", got)
			}
		})
	}
}
