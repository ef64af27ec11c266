package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/threads"
)

// Snapshot streamers (SPEC §12.4): agents that stream whole tasks whose
// status message grows as the answer is written.

// snap is a task snapshot: state, its status message (id and text, none
// when id is ""), its artifacts (id → text) and its history.
func snap(ctx, taskID, state, msgID, text string, history []any, arts ...[2]string) map[string]any {
	st := map[string]any{"state": state}
	if msgID != "" {
		st["message"] = agentMsgID(msgID, text)
	}
	tk := map[string]any{"id": taskID, "contextId": ctx, "status": st}
	if history != nil {
		tk["history"] = history
	}
	var as []any
	for _, a := range arts {
		as = append(as, map[string]any{"artifactId": a[0], "parts": []any{textPart(a[1])}})
	}
	if as != nil {
		tk["artifacts"] = as
	}
	return map[string]any{"task": tk}
}

func agentMsgID(id, text string) map[string]any {
	m := agentMsg(textPart(text))
	m["messageId"] = id
	return m
}

// answerChunks returns the texts of a session's agent_message_chunks.
func answerChunks(ups []acptest.Update) []string {
	var out []string
	for _, u := range ups {
		if u.Kind() == "agent_message_chunk" {
			out = append(out, u.Text())
		}
	}
	return out
}

// waitAnswer waits until the answer the editor has seen for id ends with
// want (the script then sends its next frame, so that chunks cannot merge).
func waitAnswer(s *testShim, id, want string) {
	s.WaitFor("answer "+want, func(ms []acptest.Message) bool {
		var b strings.Builder
		for _, m := range ms {
			var u acptest.Update
			if m.Method == "session/update" && json.Unmarshal(m.Params, &u) == nil && u.SessionID == id && u.Kind() == "agent_message_chunk" {
				b.WriteString(u.Text())
			}
		}
		return strings.HasSuffix(b.String(), want)
	})
}

// readsOf counts the SubscribeToTask and GetTask calls about task id.
func readsOf(f *fakeAgent, id string) int {
	n := 0
	for _, c := range append(f.callsOf("SubscribeToTask"), f.callsOf("GetTask")...) {
		if c.Params["id"] == id {
			n++
		}
	}
	return n
}

// TestSnapshotStream: growing status messages arrive as they grow, one
// chunk per snapshot, exactly once; a history message already shown (a
// working status update's, by messageId) is not shown again; the stream
// ends on a terminal snapshot with no reattach and no read-back.
func TestSnapshotStream(t *testing.T) {
	f := newFake(t)
	var s *testShim
	var id string
	user := userMsg("What is the answer?")
	f.stream = func(w *sseWriter, c rpcCall) {
		w.result(snap(w.ctx, "t1", "TASK_STATE_SUBMITTED", "", "", []any{user}))
		w.status("t1", "TASK_STATE_WORKING", agentMsgID("m1", "Looking it up"))
		hist := []any{user, agentMsgID("m1", "Looking it up")}
		w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "m2", "The ans", hist))
		waitAnswer(s, id, "The ans")
		w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "m2", "The answer is", hist))
		waitAnswer(s, id, "The answer is")
		// The last snapshot moves the grown message into the history.
		w.result(snap(w.ctx, "t1", "TASK_STATE_COMPLETED", "", "", append(slices.Clone(hist), agentMsgID("m2", "The answer is 42."))))
	}
	s = startShim(t, f.url, nil, nil)
	s.init(t)
	id = s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "What is the answer?")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	ups := s.Updates(id)
	if got, want := answerChunks(ups), []string{"The ans", "wer is", " 42."}; !slices.Equal(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
	if got := answer(ups, "agent_thought_chunk"); got != "Looking it up" {
		t.Errorf("thoughts %q", got)
	}
	if n := readsOf(f, "t1"); n != 0 {
		t.Errorf("%d reattaches or read-backs after a terminal snapshot", n)
	}
}

// TestSnapshotArtifacts: a snapshot's artifacts are shown as replaces
// (only the new suffix), and a completed status update after them adds
// nothing twice.
func TestSnapshotArtifacts(t *testing.T) {
	f := newFake(t)
	var s *testShim
	var id string
	f.stream = func(w *sseWriter, c rpcCall) {
		w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "", "", nil, [2]string{"a1", "Hello"}))
		waitAnswer(s, id, "Hello")
		w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "", "", nil, [2]string{"a1", "Hello, world"}))
		waitAnswer(s, id, "Hello, world")
		w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "", "", nil, [2]string{"a1", "Hello, world"}, [2]string{"a2", "Bye"}))
		w.status("t1", "TASK_STATE_COMPLETED", agentMsgID("m9", "Hello, world"))
	}
	s = startShim(t, f.url, nil, nil)
	s.init(t)
	id = s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got, want := answerChunks(s.Updates(id)), []string{"Hello", ", world", "\n\nBye"}; !slices.Equal(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
}

// TestSnapshotResumed: the first frame of a resumed task (the stale
// parked snapshot, with the last turn's answer and question) is not
// shown; the answer to the park then streams as snapshots of the same
// task, the old artifact unchanged in each.
func TestSnapshotResumed(t *testing.T) {
	f := newFake(t)
	var s *testShim
	var id string
	q := agentMsgID("q1", "Which city?")
	first := []any{userMsg("Capital?"), q}
	old := [2]string{"a1", "Old answer."}
	f.stream = func(w *sseWriter, c rpcCall) {
		if c.message()["taskId"] == nil {
			w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "", "", nil, old))
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", q)
			return
		}
		hist := append(slices.Clone(first), userMsg("France"))
		w.result(snap(w.ctx, "t1", "TASK_STATE_INPUT_REQUIRED", "q1", "Which city?", first, old))
		w.result(snap(w.ctx, "t1", "TASK_STATE_WORKING", "m2", "Par", hist, old))
		waitAnswer(s, id, "Par")
		w.result(snap(w.ctx, "t1", "TASK_STATE_COMPLETED", "m2", "Paris.", hist, old))
	}
	s = startShim(t, f.url, nil, nil)
	s.init(t)
	id = s.newSession(t, "/tmp")
	stopReason(t, s.prompt(t, id, "Capital?"))
	n := len(s.Updates(id))
	if got := stopReason(t, s.prompt(t, id, "France")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got, want := answerChunks(s.Updates(id)[n:]), []string{"Par", "is."}; !slices.Equal(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
	if n := readsOf(f, "t1"); n != 0 {
		t.Errorf("%d reattaches or read-backs", n)
	}
}

// TestSnapshotReplayHistory: a snapshot streamer's task keeps its grown
// message in the history more than once and as its status message; a
// replay shows what it carries (a steer read) once.
func TestSnapshotReplayHistory(t *testing.T) {
	const id = "chat-zed-7-s"
	f := &fakeAgent{t: t, name: "Fake Agent"}
	steerRead := func(text string) map[string]any {
		m := agentMsg(textPart(text), map[string]any{
			"data":     map[string]any{"items": []any{map[string]any{"id": "s1", "text": "in French"}}},
			"metadata": map[string]any{"mimeType": steerMime}, "mediaType": "application/json"})
		m["messageId"] = "m2"
		return m
	}
	tk := taskResult("t1", id, "TASK_STATE_COMPLETED", "", "")
	tk["status"].(map[string]any)["message"] = steerRead("Paris.")
	tk["history"] = []any{userMsg("Capital?"), steerRead("Par"), steerRead("Paris.")}
	lf := &listTasksFake{f: f, tasks: []any{tk}}
	f.url = startFake(t, lf)
	s := startShim(t, f.url, withIndex(threads.Open(t.TempDir(), nil), f.url, nil), nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	want := "user_message_chunk Capital?\nuser_message_chunk in French\nagent_message_chunk Paris.\n"
	if got := transcript(decodeUpdates(t, s.Updates(id))); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
}
