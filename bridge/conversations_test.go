package bridge

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
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

// withID gives a history message its messageId.
func withID(m map[string]any, id string) map[string]any {
	m["messageId"] = id
	return m
}

// TestLoadKeepsWhatWasSaid: a loaded thread shows, in order, what the live
// turns showed (SPEC §18, amending §4.5): a park's question and the user's
// answer; a form answered in the editor as its values' field: value lines;
// an approval as the call's card with its outcome (completed when
// approved, failed with "Denied" when denied, a card of its own when it
// named no call), never as the user's words; the thoughts the history
// holds (working status messages, reasoning parts). A resume whose park
// the history does not hold is skipped.
func TestLoadKeepsWhatWasSaid(t *testing.T) {
	f := newFake(t)
	reasoning := agentMsg(map[string]any{"data": map[string]any{"text": "The user wants a merge."}, "metadata": map[string]any{"mimeType": a2a.MimeReasoning}})
	tasks := map[string]map[string]any{}
	turn := func(task, answer string, history ...any) {
		tt := taskResult(task, "", "TASK_STATE_COMPLETED", answer, "")
		tt["history"] = history
		tasks[task] = tt
	}
	turn("t-question", "Merged main.",
		withID(userMsg("Merge it"), "u1"),
		withID(reasoning, "r1"),
		withID(hitlMsg(map[string]any{"kind": "question", "question": "Which branch?"}), "p1"),
		withID(resumeMsg("main"), "u2"),
		withID(agentMsg(textPart("Merging main…")), "w1"),
	)
	turn("t-approved", "Built.",
		withID(userMsg("Build it"), "u3"),
		withID(toolMsg("c1", "run_command", "started", `{"command": "make build"}`, ""), "m1"),
		withID(hitlMsg(map[string]any{"kind": "approval", "title": "Approve shell command?", "detail": "make build"}), "p2"),
		withID(resumeMsg("approved"), "u4"),
		withID(toolMsg("c1", "run_command", "completed", "", "ok"), "m2"),
	)
	turn("t-denied", "I did not delete it.",
		withID(userMsg("Clean up"), "u5"),
		withID(toolMsg("c2", "run_command", "started", `{"command": "rm -rf build"}`, ""), "m3"),
		withID(hitlMsg(map[string]any{"kind": "approval", "title": "Approve shell command?", "detail": "rm -rf build"}), "p3"),
		withID(resumeMsg("denied"), "u6"),
		withID(hitlMsg(map[string]any{"kind": "approval", "title": "Approve shell command?", "detail": "git clean -fdx\nruns via: /bin/sh -c"}), "p4"),
		withID(resumeMsg("denied"), "u7"),
	)
	turn("t-form", "Deployed to staging.",
		withID(userMsg("Deploy"), "u8"),
		withID(hitlMsg(map[string]any{"kind": "form", "title": "Where to?",
			"steps": []any{map[string]any{"schema": map[string]any{"properties": map[string]any{
				"env": map[string]any{"title": "Environment", "enum": []any{"staging", "prod"}}}}}}}), "p5"),
		withID(resumeMsg(`{"env":"staging","replicas":2}`), "u9"),
		withID(resumeMsg("approved"), "u10"),
	)
	order := []string{"t-question", "t-approved", "t-denied", "t-form"}
	f.getTask = func(c rpcCall) any {
		if tt, ok := tasks[c.Params["id"].(string)]; ok {
			return tt
		}
		return &rpcErr{Code: -32001, Message: "Task not found"}
	}
	ix := threads.Open(t.TempDir(), nil)
	const id = "chat-zed-1-kept"
	must(t, ix.Update(f.url, id, func(e *threads.Entry) { e.CWD, e.Title, e.TaskIDs = "/w", "Merge it", order }))
	s := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	ups := decodeUpdates(t, s.Updates(id))
	want := "user_message_chunk Merge it\n" +
		"agent_thought_chunk The user wants a merge.\n" +
		"agent_message_chunk **Input needed:** Which branch?\n" +
		"user_message_chunk main\n" +
		"agent_thought_chunk Merging main…\n" +
		"agent_message_chunk Merged main.\n" +
		"user_message_chunk Build it\n" +
		"tool_call replay-c1 make build [completed]\n" +
		"agent_message_chunk Built.\n" +
		"user_message_chunk Clean up\n" +
		"tool_call replay-c2 rm -rf build [failed]\n" +
		"tool_call replay-approval git clean -fdx [failed]\n" +
		"agent_message_chunk I did not delete it.\n" +
		"user_message_chunk Deploy\n" +
		"agent_message_chunk **Input needed:** Where to?\n- Environment: one of staging, prod\n" +
		"user_message_chunk env: staging\nreplicas: 2\n" +
		"agent_message_chunk Deployed to staging.\n"
	if got := transcript(ups); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
	for _, u := range ups {
		switch u.ToolCallID {
		case "replay-c2":
			if !strings.Contains(string(u.Content), `"Denied"`) || u.ToolKind != "execute" {
				t.Errorf("the denied call's card: %+v %s", u, u.Content)
			}
		case "replay-approval":
			if !strings.Contains(string(u.Content), `"Denied"`) || u.ToolKind != "execute" || u.RawInput["detail"] != "git clean -fdx\nruns via: /bin/sh -c" {
				t.Errorf("the denied approval's own card: %+v %s", u, u.Content)
			}
		case "replay-c1":
			if strings.Contains(string(u.Content), "Denied") {
				t.Errorf("the approved call's card says Denied: %s", u.Content)
			}
		}
		if u.Kind == "user_message_chunk" && (u.Text == "approved" || u.Text == "denied") {
			t.Errorf("an approval shown as the user's words: %q", u.Text)
		}
	}
}
