package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
)

// TestHostileStreamFailsTurn: a stream whose event goes past the SSE
// limit (short data lines, never a blank line) fails that turn visibly,
// -32603 with data.state "failed" and the reason in the message, without
// reattaching to it; a turn of another session on the same server ends
// normally.
func TestHostileStreamFailsTurn(t *testing.T) {
	const limit = 64 << 20 // the real limit, passed by 1 MiB blocks of short lines
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		if !strings.Contains(c.text(), "hostile") {
			w.task("t-ok", "TASK_STATE_WORKING")
			w.artifact("t-ok", "a1", "fine", false)
			w.status("t-ok", "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t-bad", "TASK_STATE_WORKING")
		line := "data: " + strings.Repeat("x", 26) + "\n"
		block := strings.Repeat(line, (1<<20)/len(line))
		for n := 0; n <= 2*limit; n += len(block) { // 27 data bytes a 33-byte line
			if _, err := io.WriteString(w.w, block); err != nil {
				return
			}
		}
		w.flush()
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	bad, good := s.newSession(t, "/tmp"), s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(bad, "hostile"))
	if got := stopReason(t, s.prompt(t, good, "hello")); got != "end_turn" {
		t.Errorf("the other session's turn: %q", got)
	}
	if a := answer(s.Updates(good), "agent_message_chunk"); a != "fine" {
		t.Errorf("the other session's answer: %q", a)
	}
	m := s.Wait(ch, "the hostile prompt")
	if m.Error == nil || m.Error.Code != -32603 {
		t.Fatalf("want -32603, got %+v", m)
	}
	var d struct {
		State string `json:"state"`
	}
	_ = json.Unmarshal(m.Error.Data, &d)
	if d.State != "failed" || !strings.Contains(m.Error.Message, "64 MiB") {
		t.Errorf("want state failed and the limit in the message: %s %s", m.Error.Message, m.Error.Data)
	}
	if n := len(f.callsOf("SubscribeToTask")); n != 0 {
		t.Errorf("reattached %d times to a stream broken for its size", n)
	}
}

// endlessPages answers ListTasks with pages that never run dry, newest
// task first: page n holds task t<n>, its answer padded with pad bytes of
// metadata the replay does not show.
type endlessPages struct {
	f     *fakeAgent
	ctx   string
	pad   int
	calls atomic.Int64
}

func (l *endlessPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/a2a" {
		l.f.ServeHTTP(w, r)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	if req.Method != "ListTasks" {
		writeRPC(w, req.ID, nil, &rpcErr{Code: -32001, Message: "Task not found"})
		return
	}
	n := l.calls.Add(1) - 1
	tk := taskResult(fmt.Sprintf("t%d", n), l.ctx, "TASK_STATE_COMPLETED", fmt.Sprintf("answer %d", n), "")
	tk["metadata"] = map[string]any{"pad": strings.Repeat("p", l.pad)}
	writeRPC(w, req.ID, map[string]any{"tasks": []any{tk}, "nextPageToken": fmt.Sprintf("page-%d", n+1)}, nil)
}

// TestLoadBudget: a session/load against ListTasks pages that never run
// dry reads at most 100 pages, or 64 MiB (lowered here to 4 MiB), answers,
// and replays the newest turns it read after one "(earlier turns not
// shown)".
func TestLoadBudget(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pad       int
		pagesMost int64
	}{{"endless pages", 0, 100}, {"big pages", 256 << 10, 16}} {
		t.Run(tc.name, func(t *testing.T) {
			const id = "chat-zed-7-b"
			f := &fakeAgent{t: t, name: "Fake Agent"}
			lp := &endlessPages{f: f, ctx: id, pad: tc.pad}
			f.url = startFake(t, lp)
			s := startShimLoading(t, f.url, nil, nil, 4<<20)
			s.init(t)
			if m := s.Call("session/load", loadArgs(id, "/w")); m.Error != nil {
				t.Fatalf("load: %v", m.Error)
			}
			calls := lp.calls.Load()
			if calls > tc.pagesMost || calls < tc.pagesMost-2 {
				t.Errorf("%d ListTasks pages read, want at most %d", calls, tc.pagesMost)
			}
			ups := slices.DeleteFunc(s.Updates(id), func(u acptest.Update) bool { return u.Kind() == "available_commands_update" })
			if len(ups) == 0 || ups[0].Kind() != "agent_message_chunk" || ups[0].Text() != "(earlier turns not shown)" {
				t.Fatalf("the replay must start with the cut marker: %v", ups)
			}
			if n := strings.Count(answer(ups, "agent_message_chunk"), "(earlier turns not shown)"); n != 1 {
				t.Errorf("the marker %d times", n)
			}
			if last := ups[len(ups)-1].Text(); last != "answer 0" {
				t.Errorf("the newest turn must come last: %q", last)
			}
		})
	}
}

// TestBigPromptParked: a prompt line over the parking size (its params
// kept aside from jsonrpc2) reaches the agent unchanged.
func TestBigPromptParked(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_WORKING")
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	sid := s.newSession(t, "/tmp")
	text := strings.Repeat("big \"text\" ünïcode\n\x01 ", (2<<20)/20)
	if got := stopReason(t, s.prompt(t, sid, text)); got != "end_turn" {
		t.Fatalf("prompt: %q", got)
	}
	calls := f.callsOf("SendStreamingMessage")
	if len(calls) != 1 || calls[0].text() != text {
		t.Fatalf("the agent got %d prompts, the text unchanged: %v", len(calls), len(calls) == 1 && calls[0].text() == text)
	}
}

// TestErrorTextCut: whatever the agent's words in an error (a failed
// task's status text, a JSON-RPC error frame in the stream, a JSON-RPC
// error answering the request), the ACP error's message keeps
// "<agent name>: " and at most 500 characters of the rest, its
// data.detail at most 64 KiB (SPEC §13 amended).
func TestErrorTextCut(t *testing.T) {
	long := strings.Repeat("é", 600<<10) // 1.2 MiB, 614,400 characters
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		switch c.text() {
		case "status":
			w.task("t1", "TASK_STATE_WORKING")
			w.status("t1", "TASK_STATE_FAILED", agentMsg(textPart(long)))
		case "frame":
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "error": map[string]any{"code": -32603, "message": long}})
			w.raw("data: " + string(b) + "\n\n")
		}
	}
	answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"text":"answer"`)) {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &req)
			writeRPC(w, req.ID, nil, &rpcErr{Code: -32603, Message: long})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.ServeHTTP(w, r)
	})
	f.url = startFake(t, answer)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	for _, how := range []string{"status", "frame", "answer"} {
		t.Run(how, func(t *testing.T) {
			m := s.prompt(t, s.newSession(t, "/tmp"), how)
			if m.Error == nil {
				t.Fatalf("want an error, got %s", m.Result)
			}
			rest, ok := strings.CutPrefix(m.Error.Message, "Fake Agent: ")
			if !ok || rest != strings.Repeat("é", 500)+"…" {
				t.Errorf("message of %d bytes: %.60q…", len(m.Error.Message), m.Error.Message)
			}
			var d struct {
				Detail string `json:"detail"`
			}
			_ = json.Unmarshal(m.Error.Data, &d)
			if len(d.Detail) > 64<<10 || len(d.Detail) < 60<<10 || !strings.HasPrefix(long, strings.TrimSuffix(d.Detail, "…")) {
				t.Errorf("data.detail of %d bytes", len(d.Detail))
			}
		})
	}
}
