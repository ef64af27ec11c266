package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// The tests here send the built binary one big event and check what
// turning it into ACP messages costs in peak resident memory (SPEC §13
// amended), and what the editor gets of it.
//
// Reading and decoding one event of S bytes already peaks near 4×S (the
// SSE reader's pieces and the joined event, then encoding/json's two
// copies of a long escaped string). So each test runs the event twice: as
// a reference that shim reads and ignores (its tool-call extension
// renamed), then for real, and bounds what the conversion adds to the
// reference's peak: at most the one line the event becomes, plus slack.

const toolCallExt = "https://proto-labs.ai/a2a/ext/tool-call-v1"

// oneEventA2A is an A2A 1.0 server whose every SendStreamingMessage
// answer is the frames of events(contextID), each the result of one SSE
// event; a prompt "reference" gets them with the tool-call extension
// renamed, so that shim reads and ignores them. Every other call is an
// error.
func oneEventA2A(t *testing.T, events func(ctx string) []string) string {
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
					Parts     []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"message"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Method != "SendStreamingMessage" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, req.ID)
			return
		}
		reference := len(req.Params.Message.Parts) > 0 && req.Params.Message.Parts[0].Text == "reference"
		w.Header().Set("Content-Type", "text/event-stream")
		for _, result := range events(req.Params.Message.ContextID) {
			if reference {
				result = strings.Replace(result, toolCallExt, toolCallExt+"-ignored", 1)
			}
			if _, err := fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func statusFrame(ctx, state string, message string) string {
	m := ""
	if message != "" {
		m = `,"message":` + message
	}
	return fmt.Sprintf(`{"statusUpdate":{"taskId":"t-big","contextId":%q,"status":{"state":%q%s}}}`, ctx, state, m)
}

// toolFrame is a working status carrying one tool-call-v1 event.
func toolFrame(ctx, payload string) string {
	return statusFrame(ctx, "TASK_STATE_WORKING", fmt.Sprintf(`{"role":"ROLE_AGENT","messageId":"m-%d","parts":[],"metadata":{%q:%s}}`,
		len(payload), toolCallExt, payload))
}

// updateOf is the update a session/update carries (nil for another
// message).
func updateOf(m map[string]any) map[string]any {
	p, _ := m["params"].(map[string]any)
	u, _ := p["update"].(map[string]any)
	return u
}

// bigTurn runs one prompt of text against url in a new shim and returns
// the messages shim wrote for it (the response last), the longest line,
// and how much its peak resident memory grew during the prompt.
func bigTurn(t *testing.T, url, text string, terminal bool) (msgs []map[string]any, longest int, grew int64) {
	t.Helper()
	// Both turns run without shim's soft memory limit (GOMEMLIMIT=off):
	// the limit lowers the reference's peak (the event read and ignored,
	// 145 → 102 MiB for a 50 MiB event) more than the conversion's (194 →
	// 180 MiB), so the difference asserted below would measure the
	// collector's timing, not what converting the event costs.
	dir := t.TempDir()
	p := startCmd(t, append(os.Environ(), "SHIM_URL=", "SHIM_TOKEN=", "SHIM_TOKEN_FILE=", "GOMEMLIMIT=off"),
		"--state-dir", dir, "--config-dir", dir, "--keyring", "off", "--url", url, "--log-level", "info", "--no-preamble")
	init := initParams(false)
	if terminal {
		init["clientCapabilities"] = map[string]any{"_meta": map[string]any{"terminal_output": true}}
	}
	p.call(t, 1, "initialize", init)
	sid := p.call(t, 2, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"].(string)
	base := vmHWM(t, p.cmd.Process.Pid)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
		"params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}})
	p.send(t, string(b))
	first := len(p.lines)
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
	for _, l := range p.lines[first:] {
		longest = max(longest, len(l))
	}
	return msgs, longest, vmHWM(t, p.cmd.Process.Pid) - base
}

// conversionCost runs the events at url as a reference and for real and
// returns the real turn's messages and longest line; it fails the test
// when the conversion's peak memory goes over the reference's by more
// than the event's line plus a quarter of it.
func conversionCost(t *testing.T, url string, size int64, terminal bool) ([]map[string]any, int) {
	t.Helper()
	_, _, ref := bigTurn(t, url, "reference", terminal)
	msgs, longest, grew := bigTurn(t, url, "go", terminal)
	t.Logf("a %d MiB event: peak RSS +%d MiB (+%d MiB read and ignored), longest line %d MiB", size/mib, grew/mib, ref/mib, longest/mib)
	if over := grew - ref; over > size+size/4 {
		t.Errorf("turning the event into ACP messages cost %d MiB over reading it, more than its %d MiB line", over/mib, size/mib)
	}
	return msgs, longest
}

// TestPlanMemory: a todo call of 10^6 items (its args a 40 MiB JSON
// string) shows a plan of 1,000 entries and one "… 999000 more"; the
// conversion costs at most the card's one line (its raw input).
func TestPlanMemory(t *testing.T) {
	linuxOnly(t)
	const items = 1_000_000
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
	call := func(ctx string) string {
		return toolFrame(ctx, `{"toolCallId":"c1","name":"write_todos","phase":"started","args":`+string(args)+`}`)
	}
	size := int64(len(call("chat-zed-1-aaaaaa")))
	url := oneEventA2A(t, func(ctx string) []string {
		return []string{call(ctx), statusFrame(ctx, "TASK_STATE_COMPLETED", "")}
	})
	msgs, _ := conversionCost(t, url, size, false)
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
}

// TestCommandOutputMemory: 60 MiB of command output reaches an editor
// that draws terminals once, as the terminal's output, on a line no
// longer than the event (no rawOutput repeating it); the conversion costs
// at most that line.
func TestCommandOutputMemory(t *testing.T) {
	linuxOnly(t)
	line := strings.Repeat("o", 63) + "\n"
	output := strings.Repeat(line, 60*mib/len(line))
	result, _ := json.Marshal(output)
	done := func(ctx string) string {
		return toolFrame(ctx, `{"toolCallId":"c1","name":"run_command","phase":"completed","result":`+string(result)+`}`)
	}
	size := int64(len(done("chat-zed-1-aaaaaa")))
	url := oneEventA2A(t, func(ctx string) []string {
		return []string{
			toolFrame(ctx, `{"toolCallId":"c1","name":"run_command","phase":"started","args":"{\"command\": \"cat big.log\"}"}`),
			done(ctx), statusFrame(ctx, "TASK_STATE_COMPLETED", "")}
	})
	msgs, longest := conversionCost(t, url, size, true)
	var end map[string]any
	for _, m := range msgs {
		if u := updateOf(m); u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed" {
			end = u
		}
	}
	if end == nil {
		t.Fatal("no completed card")
	}
	meta, _ := end["_meta"].(map[string]any)
	out, _ := meta["terminal_output"].(map[string]any)
	if data, _ := out["data"].(string); data != output {
		t.Errorf("the terminal's output: %d bytes, want the %d of the command", len(data), len(output))
	}
	if raw, ok := end["rawOutput"]; ok {
		t.Errorf("the output again as rawOutput (%d bytes)", len(fmt.Sprint(raw)))
	}
	if int64(longest) > size+1024 {
		t.Errorf("a line of %d bytes for an event of %d", longest, size)
	}
}

// TestErrorDetailMemory: a 48 MiB problem+json detail refusing a prompt
// (HTTP+JSON binding) becomes an ACP error whose message keeps the
// agent's name and 500 characters of the rest, its data.detail 64 KiB,
// at most 4× the body's size in peak memory.
func TestErrorDetailMemory(t *testing.T) {
	linuxOnly(t)
	detail := strings.Repeat("detail words ", 48*mib/13)
	body, _ := json.Marshal(map[string]any{"type": "https://example.com/errors/bad-request", "title": "Bad request", "status": 400, "detail": detail})
	size := int64(len(body))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json":
			json.NewEncoder(w).Encode(map[string]any{"name": "Big", "capabilities": map[string]any{"streaming": true},
				"supportedInterfaces": []any{map[string]any{"url": "http://" + r.Host + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}}})
		case r.URL.Path == "/rest/message:stream":
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(body)
		case strings.HasPrefix(r.URL.Path, "/rest/tasks/"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"Task not found"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	msgs, longest, grew := bigTurn(t, srv.URL, "go", false)
	t.Logf("a %d MiB error body: peak RSS +%d MiB, longest line %d bytes", size/mib, grew/mib, longest)
	e := rpcErrorOf(msgs[len(msgs)-1])
	msg, _ := e["message"].(string)
	rest, ok := strings.CutPrefix(msg, "Big: ")
	if !ok || len([]rune(rest)) > 501 {
		t.Errorf("message of %d bytes: %.80q", len(msg), msg)
	}
	d, _ := e["data"].(map[string]any)
	if s, _ := d["detail"].(string); len(s) > 64<<10 || len(s) == 0 {
		t.Errorf("data.detail of %d bytes", len(s))
	}
	if longest > 128<<10 {
		t.Errorf("a line of %d bytes", longest)
	}
	if grew > 4*size {
		t.Errorf("a %d MiB error body grew shim's peak RSS by %d MiB, over 4×", size/mib, grew/mib)
	}
}
