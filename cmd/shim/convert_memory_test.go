package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The tests here send the built binary one big event and check that
// turning it into ACP messages costs at most 4× its size in peak resident
// memory (SPEC §13 amended), and what the editor gets of it.

// oneEventA2A is an A2A 1.0 server whose every SendStreamingMessage
// answer is the SSE frames events(contextID) write, each a JSON-RPC
// result; every other call is an error.
func oneEventA2A(t *testing.T, events func(w io.Writer, ctx string)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a2a" && r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodGet {
			json.NewEncoder(w).Encode(map[string]any{"name": "Big", "capabilities": map[string]any{"streaming": true},
				"supportedInterfaces": []any{map[string]any{"url": "http://" + r.Host + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}})
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Message struct {
					ContextID string `json:"contextId"`
				} `json:"message"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Method != "SendStreamingMessage" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, req.ID)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		events(&frameWriter{w: w, id: req.ID}, req.Params.Message.ContextID)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// frameWriter writes each Write as one SSE event of a JSON-RPC result.
type frameWriter struct {
	w  io.Writer
	id json.RawMessage
}

func (f *frameWriter) Write(result []byte) (int, error) {
	if _, err := fmt.Fprintf(f.w, `data: {"jsonrpc":"2.0","id":%s,"result":`, f.id); err != nil {
		return 0, err
	}
	if _, err := f.w.Write(result); err != nil {
		return 0, err
	}
	_, err := io.WriteString(f.w, "}\n\n")
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return len(result), err
}

func statusFrame(ctx, state string, message string) string {
	m := ""
	if message != "" {
		m = `,"message":` + message
	}
	return fmt.Sprintf(`{"statusUpdate":{"taskId":"t-big","contextId":%q,"status":{"state":%q%s}}}`, ctx, state, m)
}

// bigTurn runs one prompt against url and returns the messages shim
// wrote for it (the response last), its peak resident memory before the
// prompt and after.
func bigTurn(t *testing.T, url string, terminal bool) (msgs []map[string]any, base, peak int64) {
	t.Helper()
	p := startProc(t, "--url", url, "--log-level", "info", "--no-preamble")
	init := initParams(false)
	if terminal {
		init["clientCapabilities"] = map[string]any{"_meta": map[string]any{"terminal_output": true}}
	}
	p.call(t, 1, "initialize", init)
	sid := p.call(t, 2, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"].(string)
	base = vmHWM(t, p.cmd.Process.Pid)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
		"params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "go"}}}})
	p.send(t, string(b))
	for {
		m := p.next(t, map[string]string{"3": "session/prompt"})
		if updateOf(m)["sessionUpdate"] == "available_commands_update" {
			continue
		}
		msgs = append(msgs, m)
		if m["method"] == nil {
			break
		}
	}
	return msgs, base, vmHWM(t, p.cmd.Process.Pid)
}

// updateOf is the update a session/update carries (nil for another
// message).
func updateOf(m map[string]any) map[string]any {
	p, _ := m["params"].(map[string]any)
	u, _ := p["update"].(map[string]any)
	return u
}

// TestPlanMemory: a todo call of 10^6 items (about 30 MiB of args) shows
// a plan of 1,000 entries and one "… 999000 more", and costs at most 4×
// the event's size.
func TestPlanMemory(t *testing.T) {
	linuxOnly(t)
	const items = 1_000_000
	var size int64
	url := oneEventA2A(t, func(w io.Writer, ctx string) {
		var todos strings.Builder
		todos.WriteString(`{"todos":[`)
		for i := range items {
			if i > 0 {
				todos.WriteByte(',')
			}
			fmt.Fprintf(&todos, `{"content":"task %d","status":"pending"}`, i)
		}
		todos.WriteString(`]}`)
		args, _ := json.Marshal(todos.String())
		call := fmt.Sprintf(`{"role":"ROLE_AGENT","messageId":"m1","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c1","name":"write_todos","phase":"started","args":%s}}}`, args)
		frame := statusFrame(ctx, "TASK_STATE_WORKING", call)
		size = int64(len(frame))
		io.WriteString(w, frame)
		io.WriteString(w, statusFrame(ctx, "TASK_STATE_COMPLETED", ""))
	})
	msgs, base, peak := bigTurn(t, url, false)
	t.Logf("peak RSS %d MiB (%d MiB before the prompt) for a %d MiB event", peak/mib, base/mib, size/mib)
	var plan []any
	for _, m := range msgs {
		if u := updateOf(m); u["sessionUpdate"] == "plan" {
			plan, _ = u["entries"].([]any)
		}
	}
	if len(plan) != 1001 {
		t.Fatalf("plan of %d entries, want 1001", len(plan))
	}
	if last, _ := plan[1000].(map[string]any); last["content"] != "… 999000 more" {
		t.Errorf("last entry %v", last)
	}
	if grew := peak - base; grew > 4*size {
		t.Errorf("one %d MiB event grew shim's peak RSS by %d MiB, over 4×", size/mib, grew/mib)
	}
}
