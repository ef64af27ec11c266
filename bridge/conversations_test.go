package bridge

import (
	"maps"
	"testing"
	"time"

	"github.com/shimdev/shim/threads"
)

// TestListConversationsOnly: a session that never got a prompt is not
// written to the thread index and not listed by session/list, nor is an
// entry an earlier release wrote for one (no title, no task); the session
// is written and listed, titled by its first message, once it got its
// first prompt (SPEC §18, amending §4.2 and §8).
func TestListConversationsOnly(t *testing.T) {
	f := newFake(t)
	answering(f, "Sure.")
	ix := threads.Open(t.TempDir(), nil)
	key := f.url
	// What an earlier release left: a chat opened and never prompted, and
	// a conversation.
	must(t, ix.Update(key, "chat-zed-1-empty", func(e *threads.Entry) {
		e.CWD, e.UpdatedAt = "/work/p", time.Date(2026, 9, 24, 12, 0, 0, 0, time.UTC)
	}))
	must(t, ix.Update(key, "chat-zed-0-old", func(e *threads.Entry) {
		e.CWD, e.Title, e.TaskIDs = "/work/p", "An old question", []string{"t-old"}
		e.UpdatedAt = time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	}))
	s := startShim(t, f.url, withIndex(ix, key, nil), nil)
	s.init(t)
	id := s.newSession(t, "/work/p")
	if _, ok, err := ix.Get(key, id); ok || err != nil {
		t.Errorf("session/new wrote the index: %v %v", ok, err)
	}
	got := listSessions(t, s, "/work/p")
	want := []map[string]any{{"sessionId": "chat-zed-0-old", "cwd": "/work/p", "title": "An old question", "updatedAt": "2026-09-23T12:00:00Z"}}
	if !jsonEqual(got, want) {
		t.Errorf("before the first prompt:\n got %v\nwant %v", got, want)
	}
	if got := stopReason(t, s.prompt(t, id, "What is in  the\nREADME?")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	e, ok, err := ix.Get(key, id)
	if !ok || err != nil || e.Title != "What is in the README?" || e.CWD != "/work/p" {
		t.Errorf("after the first prompt, the entry %+v %v %v", e, ok, err)
	}
	got = listSessions(t, s, "/work/p")
	if len(got) != 2 || got[0]["sessionId"] != id || got[0]["title"] != "What is in the README?" || got[1]["sessionId"] != "chat-zed-0-old" {
		t.Errorf("after the first prompt: %v", got)
	}
}

// TestListTitleNotTheID: a server that titles a thread by its id gives it
// no title: the thread's first user message is its title (SPEC §18).
func TestListTitleNotTheID(t *testing.T) {
	api := newOpAPI()
	const id = "chat-zed-1790245307144-28c0e1"
	api.sessions = []map[string]any{{"session_id": id, "title": id, "last_updated": "2026-09-24T10:00:00", "turn_count": 1}}
	api.setTurns(id, opTurn("t0", "TASK_STATE_COMPLETED", "ok", nil, "ok", userMsg("Why is the build red?")))
	f := withOperator(t, api)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	got := listSessions(t, s, "/w")
	if len(got) != 1 || got[0]["title"] != "Why is the build red?" {
		t.Errorf("sessions %v", got)
	}
}

// TestLoadFailedUnderPlaceholder: a turn that failed under a task id the
// server made up (Strands and BeeAI on @a2a-js/sdk 0.3.14) leaves the real
// task working for ever; the thread index keeps how the live turn ended,
// and a loaded thread (another process) shows that turn as its failure,
// not as still running (SPEC §16). A turn the index says nothing of that
// still runs is shown running.
func TestLoadFailedUnderPlaceholder(t *testing.T) {
	f := newFake(t)
	const limit = "Error code: 429 - {'error': {'type': 'usage_limit_reached', 'message': 'The usage limit has been reached'}}"
	f.stream = func(w *sseWriter, c rpcCall) {
		if c.text() == "Still going?" {
			// Its answer is not done when the thread is loaded.
			w.task("task-running", "TASK_STATE_WORKING")
			w.status("task-running", "TASK_STATE_COMPLETED", agentMsg(textPart("Yes.")))
			return
		}
		w.task("task-real", "TASK_STATE_WORKING")
		w.result(map[string]any{"statusUpdate": map[string]any{"taskId": "placeholder-1", "contextId": w.ctx, "final": true,
			"status": map[string]any{"state": "TASK_STATE_FAILED", "message": agentMsg(textPart(limit))}}})
	}
	f.getTask = func(c rpcCall) any {
		switch c.Params["id"] {
		case "task-real":
			task := taskResult("task-real", "", "TASK_STATE_WORKING", "", "")
			task["history"] = []any{userMsg("Break.")}
			return task
		case "task-running":
			task := taskResult("task-running", "", "TASK_STATE_WORKING", "", "")
			task["history"] = []any{userMsg("Still going?")}
			return task
		}
		return &rpcErr{Code: -32001, Message: "Task not found"}
	}
	ix := threads.Open(t.TempDir(), nil)
	s := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	s.init(t)
	id := s.newSession(t, "/w")
	if m := s.prompt(t, id, "Break."); m.Error == nil || m.Error.Code != -32603 {
		t.Fatalf("the failed turn answered %+v", m)
	}
	stopReason(t, s.prompt(t, id, "Still going?"))
	e, _, _ := ix.Get(f.url, id)
	if want := map[string]string{"task-real": "The usage limit has been reached (HTTP 429, usage_limit_reached)"}; !maps.Equal(e.Failures, want) {
		t.Errorf("the index keeps %v, want %v", e.Failures, want)
	}
	other := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	other.init(t)
	if m := other.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	want := "user_message_chunk Break.\n" +
		"agent_message_chunk ⚠️ Fake Agent error: The usage limit has been reached (HTTP 429, usage_limit_reached)\n" +
		"user_message_chunk Still going?\n" +
		"agent_message_chunk (still running elsewhere…)\n"
	if got := transcript(decodeUpdates(t, other.Updates(id))); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
}
