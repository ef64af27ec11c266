package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
)

func errData(t *testing.T, m acptest.Message) map[string]any {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want an error, got result %s", m.Result)
	}
	var d map[string]any
	_ = json.Unmarshal(m.Error.Data, &d)
	return d
}

// TestFailedTurn: a failed task answers -32603 with the friendly text and
// the raw detail (real a2a-go server), and says it once: no ⚠️ line is
// shown as answer text as well (SPEC §18, amending §4.3).
func TestFailedTurn(t *testing.T) {
	url := startAgent(t, agent.Options{Name: "Go Agent"})
	s := startShim(t, url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	res := s.prompt(t, id, "please fail")
	d := errData(t, res)
	friendly := "The usage limit has been reached (HTTP 429, usage_limit_reached)"
	if res.Error.Code != -32603 || res.Error.Message != "Go Agent: "+friendly {
		t.Errorf("error %d %q", res.Error.Code, res.Error.Message)
	}
	if d["state"] != "failed" || d["taskId"] == "" || !strings.HasPrefix(d["detail"].(string), "Error code: 429 - {'error'") {
		t.Errorf("data %v", d)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "" {
		t.Errorf("the failure was shown as answer text too: %q", got)
	}
}

// TestCutStream: a stream that ends without a terminal state, whose task
// cannot be reattached, is read back with GetTask.
func TestCutStream(t *testing.T) {
	tests := []struct {
		name      string
		state     string
		answer    string
		status    string
		getErr    bool
		wantText  string
		wantStop  string
		wantState string
		wantMsg   string
	}{
		{name: "completed shows only the missing suffix", state: "TASK_STATE_COMPLETED", answer: "Hello, world",
			wantText: "Hello, world", wantStop: "end_turn"},
		{name: "failed is a failed turn", state: "TASK_STATE_FAILED", status: "boom",
			wantText: "Hello, wor", wantState: "failed", wantMsg: "Fake Agent: boom"},
		{name: "still working is an error", state: "TASK_STATE_WORKING",
			wantText: "Hello, wor", wantState: "working", wantMsg: "may finish on its own"},
		{name: "unreadable is an error", getErr: true, wantText: "Hello, wor", wantState: "failed", wantMsg: "could not be read back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_SUBMITTED")
				w.artifact("t1", "a1", "Hello, ", false)
				w.artifact("t1", "a1", "wor", true)
			}
			f.getTask = func(c rpcCall) any {
				if tt.getErr {
					return &rpcErr{Code: -32001, Message: "Task not found"}
				}
				return taskResult("t1", "ctx", tt.state, tt.answer, tt.status)
			}
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			res := s.prompt(t, id, "hi")
			if got := answer(s.Updates(id), "agent_message_chunk"); got != tt.wantText {
				t.Errorf("text %q, want %q", got, tt.wantText)
			}
			if tt.wantStop != "" {
				if got := stopReason(t, res); got != tt.wantStop {
					t.Errorf("stop %q", got)
				}
			} else {
				d := errData(t, res)
				if res.Error.Code != -32603 || d["state"] != tt.wantState || !strings.Contains(res.Error.Message, tt.wantMsg) {
					t.Errorf("error %d %q %v", res.Error.Code, res.Error.Message, d)
				}
			}
			if n := len(f.callsOf("SubscribeToTask")); n != 1 {
				t.Errorf("want one reattach attempt, got %d", n)
			}
			if n := len(f.callsOf("GetTask")); n != 2 { // the auth probe and the read-back
				t.Errorf("want the probe and one read-back, got %d GetTask", n)
			}
		})
	}
}

// TestReattach: a dropped stream is reattached with SubscribeToTask and the
// editor sees the rest of the answer once.
func TestReattach(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Hello", false)
	}
	f.subscribe = func(w *sseWriter, c rpcCall) {
		w.result(map[string]any{"task": map[string]any{"id": "t1", "contextId": w.ctx, "status": map[string]any{"state": "TASK_STATE_WORKING"},
			"artifacts": []any{map[string]any{"artifactId": "a1", "parts": []any{textPart("Hello, wor")}}}}})
		w.artifact("t1", "a1", "ld", true)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Hello, world" {
		t.Errorf("text %q", got)
	}
	subs := f.callsOf("SubscribeToTask")
	if len(subs) != 1 || subs[0].Params["id"] != "t1" {
		t.Errorf("subscribe calls %+v", subs)
	}
}

// TestErrorFrames: a JSON-RPC error frame before any task is the turn's
// error; after the task, the task is read back.
func TestErrorFrames(t *testing.T) {
	t.Run("before the task", func(t *testing.T) {
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.raw(`data: {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}` + "\n\n")
		}
		s := startShim(t, f.url, nil, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		res := s.prompt(t, id, "hi")
		if res.Error == nil || res.Error.Code != -32603 || res.Error.Message != "Fake Agent: boom" {
			t.Fatalf("got %+v", res.Error)
		}
	})
	t.Run("event error before the task", func(t *testing.T) {
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.raw("event: error\ndata: {\"code\":-32000,\"message\":\"overloaded\"}\n\n")
		}
		s := startShim(t, f.url, nil, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		res := s.prompt(t, id, "hi")
		if res.Error == nil || res.Error.Message != "Fake Agent: overloaded" {
			t.Fatalf("got %+v", res.Error)
		}
	})
	t.Run("after the task", func(t *testing.T) {
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			w.artifact("t1", "a1", "Half", false)
			w.raw(`data: {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}` + "\n\n")
		}
		f.getTask = func(c rpcCall) any { return taskResult("t1", "x", "TASK_STATE_COMPLETED", "Half and the rest.", "") }
		s := startShim(t, f.url, nil, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
			t.Fatalf("stop %q", got)
		}
		if got := answer(s.Updates(id), "agent_message_chunk"); got != "Half and the rest." {
			t.Errorf("text %q", got)
		}
	})
}

// TestForeignContext: frames of another context are ignored.
func TestForeignContext(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		other := &sseWriter{w: w.w, id: w.id, ctx: "chat-other-1-abcdef"}
		other.artifact("t9", "x", "LEAKED TEXT", false)
		other.status("t9", "TASK_STATE_COMPLETED", nil)
		w.artifact("t1", "a1", "mine", false)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "mine" {
		t.Errorf("text %q", got)
	}
}

// TestForeignTask: once the turn's task is known, frames of another task
// of the same context (another client's turn on the thread) are ignored:
// no text, thought or card of theirs, and their end does not end the turn.
// The task an approval resumes is the turn's own.
func TestForeignTask(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		if tid, _ := c.message()["taskId"].(string); tid != "" {
			w.artifact("t9", "x", "LEAKED AFTER RESUME", false)
			w.artifact(tid, "a1", " Resumed.", true)
			w.status(tid, "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Mine.", false)
		w.artifact("t9", "x", "LEAKED TEXT", false)
		w.status("t9", "TASK_STATE_WORKING", agentMsg(textPart("their thought")))
		w.status("t9", "TASK_STATE_WORKING", map[string]any{"role": "ROLE_AGENT", "messageId": "m",
			"metadata": map[string]any{toolExt: map[string]any{"toolCallId": "x1", "name": "read_file", "phase": "started"}}})
		w.status("t9", "TASK_STATE_COMPLETED", nil)
		w.artifact("t1", "a1", " Still mine.", true)
		parkApproval(w, "t1", "Approve shell command?", "make")
	}
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected("approve") }}}
	s := startShim(t, f.url, nil, perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	ups := s.Updates(id)
	if got := answer(ups, "agent_message_chunk"); got != "Mine. Still mine. Resumed." {
		t.Errorf("text %q", got)
	}
	if got := answer(ups, "agent_thought_chunk"); got != "" {
		t.Errorf("thoughts %q", got)
	}
	for _, u := range toolUpdates(t, ups) {
		if u["toolCallId"] == "x1" {
			t.Errorf("a card of another task: %v", u)
		}
	}
	if perms.count() != 1 {
		t.Errorf("the turn's own park was not asked: %d", perms.count())
	}
}

// TestTextMapping: leading blank lines are dropped, a final replace adds
// only the unseen suffix, a diverging replace adds nothing, a second
// artifact starts after a blank line, a completed status text is shown
// only when no artifact text was.
func TestTextMapping(t *testing.T) {
	tests := []struct {
		name   string
		script func(w *sseWriter)
		want   string
	}{
		{"leading blank lines", func(w *sseWriter) {
			w.artifact("t1", "a1", "\n\n  \nIt is in ", false)
			w.artifact("t1", "a1", "server/a2a.py.", true)
			w.artifact("t1", "a1", "It is in server/a2a.py. Done.", false)
		}, "It is in server/a2a.py. Done."},
		{"diverging replace", func(w *sseWriter) {
			w.artifact("t1", "a1", "Hello", false)
			w.artifact("t1", "a1", "Goodbye, world", false)
		}, "Hello"},
		{"two artifacts", func(w *sseWriter) {
			w.artifact("t1", "a1", "First.", false)
			w.artifact("t1", "a2", "Second.", false)
			w.artifact("t1", "a1", " More.", true)
		}, "First.\n\nSecond. More."},
		{"status text when no artifact", func(w *sseWriter) {
			w.status("t1", "TASK_STATE_WORKING", agentMsg(textPart("thinking hard")))
			w.status("t1", "TASK_STATE_COMPLETED", agentMsg(textPart("\nAll done.")))
		}, "All done."},
		{"status text hidden after artifact text", func(w *sseWriter) {
			w.artifact("t1", "a1", "The answer.", false)
			w.status("t1", "TASK_STATE_COMPLETED", agentMsg(textPart("The answer.")))
		}, "The answer."},
		{"unknown data part fenced", func(w *sseWriter) {
			w.result(map[string]any{"artifactUpdate": map[string]any{"taskId": "t1", "contextId": w.ctx,
				"artifact": map[string]any{"artifactId": "a1", "parts": []any{map[string]any{"data": map[string]any{"k": 1}}}}}})
		}, "```json\n{\"k\":1}\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_SUBMITTED")
				tt.script(w)
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCancel: with --steer-grace 0 a cancel answers the prompt
// "cancelled" at once, sends CancelTask, and nothing of the turn reaches
// the editor after that answer.
func TestCancel(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Working on it", false)
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
		w.artifact("t1", "a1", " LATE", true)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	defer close(release)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(id, "hi"))
	s.WaitFor("the first chunk", func(ms []acptest.Message) bool {
		return strings.Contains(string(lastRaw(ms)), "Working on it")
	})
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	res := s.Wait(ch, "the cancelled prompt")
	if got := stopReason(t, res); got != "cancelled" {
		t.Fatalf("stop %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(f.callsOf("CancelTask")) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if c := f.callsOf("CancelTask"); len(c) != 1 || c[0].Params["id"] != "t1" {
		t.Fatalf("CancelTask calls: %+v", c)
	}
	release <- struct{}{}
	// A second prompt still works, and nothing of the first turn leaks.
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t2", "TASK_STATE_SUBMITTED")
		w.artifact("t2", "b", "next", false)
		w.status("t2", "TASK_STATE_COMPLETED", nil)
	}
	if got := stopReason(t, s.prompt(t, id, "again")); got != "end_turn" {
		t.Fatalf("second prompt %q", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Working on itnext" {
		t.Errorf("text %q", got)
	}
}

// TestCancelAsRequest: session/cancel sent by mistake as a request (with
// an id) still cancels the turn, and gets a null result.
func TestCancelAsRequest(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	defer close(release)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Working on it", false)
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(id, "hi"))
	waitText(t, s, "Working on it")
	cancel, _ := s.Start("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("stop %q", got)
	}
	res := s.Wait(cancel, "session/cancel sent as a request")
	if res.Error != nil || string(res.Result) != "null" {
		t.Errorf("session/cancel answered %s", res.Raw)
	}
	// Unknown sessions too: a request always gets its answer.
	if res := s.Call("session/cancel", map[string]any{"sessionId": "nope"}); res.Error != nil || string(res.Result) != "null" {
		t.Errorf("session/cancel of an unknown session answered %s", res.Raw)
	}
}

func lastRaw(ms []acptest.Message) []byte {
	if len(ms) == 0 {
		return nil
	}
	return ms[len(ms)-1].Raw
}

// TestStopReasons: completed → end_turn, canceled → cancelled, rejected →
// refusal (with its reason shown).
func TestStopReasons(t *testing.T) {
	for _, tt := range []struct{ state, text, stop, shown string }{
		{"TASK_STATE_COMPLETED", "", "end_turn", ""},
		{"TASK_STATE_CANCELED", "", "cancelled", ""},
		{"TASK_STATE_REJECTED", "I will not do that.", "refusal", "I will not do that."},
	} {
		t.Run(tt.state, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_SUBMITTED")
				var m map[string]any
				if tt.text != "" {
					m = agentMsg(textPart(tt.text))
				}
				w.status("t1", tt.state, m)
			}
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "hi")); got != tt.stop {
				t.Errorf("stop %q, want %q", got, tt.stop)
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != tt.shown {
				t.Errorf("shown %q", got)
			}
		})
	}
}

// TestFileParts: an artifact's url part becomes a resource_link, a raw
// image an image block, other raw bytes a one-line note.
func TestFileParts(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.result(map[string]any{"artifactUpdate": map[string]any{"taskId": "t1", "contextId": w.ctx,
			"artifact": map[string]any{"artifactId": "f", "parts": []any{
				map[string]any{"url": "https://example.com/report.pdf", "mediaType": "application/pdf"},
				map[string]any{"raw": "iVBORw0KGgo=", "mediaType": "image/png"},
				map[string]any{"raw": "AAEC", "mediaType": "application/octet-stream", "filename": "blob.bin"},
			}}}})
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	var got []string
	for _, u := range s.Updates(id) {
		if u.Kind() == "agent_message_chunk" {
			var c struct {
				Content map[string]any `json:"content"`
			}
			_ = json.Unmarshal(u.Update, &c)
			b, _ := json.Marshal(c.Content)
			got = append(got, string(b))
		}
	}
	want := []string{
		`{"mimeType":"application/pdf","name":"report.pdf","type":"resource_link","uri":"https://example.com/report.pdf"}`,
		`{"data":"iVBORw0KGgo=","mimeType":"image/png","type":"image"}`,
		`{"text":"\n\n[blob.bin (application/octet-stream, 3 bytes) not shown]","type":"text"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chunks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUsageUpdate: usage_update goes out only when the context window is
// known (--context-window or a server-reported one), with the tokens in
// context and the session's running cost.
func TestUsageUpdate(t *testing.T) {
	costFrame := func(w *sseWriter, id string, input int, cost float64, ctxParts ...any) {
		parts := append([]any{textPart("answer")}, ctxParts...)
		w.result(map[string]any{"artifactUpdate": map[string]any{"taskId": id, "contextId": w.ctx,
			"artifact": map[string]any{"artifactId": id + "-answer", "parts": parts,
				"metadata": map[string]any{"https://proto-labs.ai/a2a/ext/cost-v1": map[string]any{
					"usage": map[string]any{"input_tokens": input, "output_tokens": 10}, "costUsd": cost}}}}})
		w.status(id, "TASK_STATE_COMPLETED", nil)
	}
	usages := func(s *testShim, id string) []string {
		var out []string
		for _, u := range s.Updates(id) {
			if u.Kind() == "usage_update" {
				out = append(out, string(u.Update))
			}
		}
		return out
	}
	t.Run("window unknown", func(t *testing.T) {
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) { w.task("t1", "TASK_STATE_SUBMITTED"); costFrame(w, "t1", 1000, 0.5) }
		s := startShim(t, f.url, nil, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		stopReason(t, s.prompt(t, id, "hi"))
		if got := usages(s, id); len(got) != 0 {
			t.Errorf("usage_update without a known window: %v", got)
		}
	})
	t.Run("--context-window", func(t *testing.T) {
		f := newFake(t)
		n := 0
		f.stream = func(w *sseWriter, c rpcCall) {
			n++
			id := fmt.Sprintf("t%d", n)
			w.task(id, "TASK_STATE_SUBMITTED")
			costFrame(w, id, 1000*n, 0.25)
		}
		s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.ContextWindow = 200000 }, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		stopReason(t, s.prompt(t, id, "one"))
		stopReason(t, s.prompt(t, id, "two"))
		want := []string{
			`{"sessionUpdate":"usage_update","used":1000,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}`,
			`{"sessionUpdate":"usage_update","used":2000,"size":200000,"cost":{"amount":0.5,"currency":"USD"}}`,
		}
		if got := usages(s, id); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("server-reported window", func(t *testing.T) {
		f := newFake(t)
		f.stream = func(w *sseWriter, c rpcCall) {
			w.task("t1", "TASK_STATE_SUBMITTED")
			costFrame(w, "t1", 1000, 0, map[string]any{"data": map[string]any{"contextTokens": 64000.0, "contextWindow": 128000},
				"metadata": map[string]any{"mimeType": "application/vnd.protolabs.context-v1+json"}})
		}
		s := startShim(t, f.url, nil, nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		stopReason(t, s.prompt(t, id, "hi"))
		want := `{"sessionUpdate":"usage_update","used":64000,"size":128000}`
		if got := usages(s, id); len(got) != 1 || got[0] != want {
			t.Errorf("got %v", got)
		}
		if got := answer(s.Updates(id), "agent_message_chunk"); got != "answer" {
			t.Errorf("the context-v1 part must not be shown: %q", got)
		}
	})
}
