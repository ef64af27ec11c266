package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// The tests here drive the built binary against hostile servers and check
// its peak resident memory (VmHWM) against the limits of SPEC §13.

const mib = 1 << 20

// vmHWM is a process's peak resident set, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is read from /proc")
	}
}

// hostileA2A is an A2A 1.0 server whose SendStreamingMessage answer is
// body(w); every other call is an error.
func hostileA2A(t *testing.T, body func(w http.ResponseWriter, id json.RawMessage, contextID string)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a2a" && r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodGet {
			json.NewEncoder(w).Encode(map[string]any{"name": "Hostile", "capabilities": map[string]any{"streaming": true},
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
		body(w, req.ID, req.Params.Message.ContextID)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// shortLines writes n bytes of short `data:` lines and no blank line,
// made on the fly; it stops when the client goes away.
func shortLines(w io.Writer, n int64) {
	line := "data: " + strings.Repeat("x", 26) + "\n"
	block := []byte(strings.Repeat(line, (64<<10)/len(line)))
	for written := int64(0); written < n; written += int64(len(block)) {
		if _, err := w.Write(block); err != nil {
			return
		}
	}
}

// hostilePrompt runs shim against url, sends one prompt and returns the
// error of its answer and shim's peak resident memory.
func hostilePrompt(t *testing.T, url string) (map[string]any, int64) {
	t.Helper()
	p := startProc(t, "--url", url, "--log-level", "info")
	p.call(t, 1, "initialize", initParams(false))
	sid := p.call(t, 2, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"].(string)
	m := p.call(t, 3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
	return rpcErrorOf(m), vmHWM(t, p.cmd.Process.Pid)
}

// TestHostileStreamMemory: 1 GiB of short data lines with no blank line,
// plain or gzip-compressed (the transport inflates it on its own), and a
// gzip-compressed JSON body that inflates to 1 GiB, each fail the turn at
// the 64 MiB event limit (-32603 failed, the limit in the message) while
// shim's peak resident memory stays under twice the limit plus its base.
func TestHostileStreamMemory(t *testing.T) {
	linuxOnly(t)
	const bound = 2*64*mib + 64*mib
	frame := func(id json.RawMessage, ctx string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"task":{"id":"t-hostile","contextId":%q,"status":{"state":"TASK_STATE_WORKING"}}}}`, id, ctx)
	}
	cases := map[string]func(w http.ResponseWriter, id json.RawMessage, ctx string){
		"short lines": func(w http.ResponseWriter, id json.RawMessage, ctx string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", frame(id, ctx))
			shortLines(w, 1<<30)
		},
		"gzip stream": func(w http.ResponseWriter, id json.RawMessage, ctx string) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
			fmt.Fprintf(zw, "data: %s\n\n", frame(id, ctx))
			shortLines(zw, 1<<30)
			zw.Close()
		},
		"gzip json body": func(w http.ResponseWriter, id json.RawMessage, ctx string) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
			fmt.Fprintf(zw, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t","contextId":%q,"status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"`, id, ctx)
			block := []byte(strings.Repeat("z", 64<<10))
			for n := 0; n < 1<<30; n += len(block) {
				if _, err := zw.Write(block); err != nil {
					return
				}
			}
			fmt.Fprint(zw, `"}]}]}}`)
			zw.Close()
		},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			e, peak := hostilePrompt(t, hostileA2A(t, body))
			t.Logf("peak RSS %d MiB", peak/mib)
			if e == nil || e["code"] != float64(-32603) {
				t.Fatalf("want -32603, got %v", e)
			}
			d, _ := e["data"].(map[string]any)
			if msg, _ := e["message"].(string); d["state"] != "failed" || !strings.Contains(msg, "64 MiB") {
				t.Errorf("want state failed and the limit in the message: %v", e)
			}
			if peak > bound {
				t.Errorf("peak RSS %d MiB, over the %d MiB bound", peak/mib, bound/mib)
			}
		})
	}
}

// TestStdinLineMemory: a 256 MiB stdin line is answered -32600 "message
// too large" (with its id, which its first 64 KiB hold: SPEC §13 amended)
// and skipped without being kept (peak RSS under the 64 MiB line limit
// plus shim's base); the next line is served.
func TestStdinLineMemory(t *testing.T) {
	linuxOnly(t)
	const bound = 64*mib + 64*mib
	p := startProc(t)
	go longLine(p, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"`, 256*mib, "\"}}\n")
	m := p.next(t, nil)
	if e := rpcErrorOf(m); e == nil || e["code"] != float64(-32600) || e["message"] != "message too large" || m["id"] != float64(1) {
		t.Fatalf("want -32600 message too large with id 1, got %v", m)
	}
	if m := p.call(t, 2, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("the next line: %v", m)
	}
	peak := vmHWM(t, p.cmd.Process.Pid)
	t.Logf("peak RSS %d MiB", peak/mib)
	if peak > bound {
		t.Errorf("peak RSS %d MiB, over the %d MiB bound", peak/mib, bound/mib)
	}
}

// longLine writes head, size bytes of padding and tail to shim's stdin.
func longLine(p *proc, head string, size int, tail string) {
	_, _ = io.WriteString(p.stdin, head)
	block := []byte(strings.Repeat("p", 64<<10))
	for n := 0; n < size; n += len(block) {
		if _, err := p.stdin.Write(block); err != nil {
			return
		}
	}
	_, _ = io.WriteString(p.stdin, tail)
}

// TestTooLargePromptEnds: a 100 MiB prompt is answered -32600 with its id
// (the line's first 64 KiB hold it), so the editor's prompt ends; a line
// whose id comes after its first 64 KiB is answered with id null (SPEC
// §13 amended); the next line is served.
func TestTooLargePromptEnds(t *testing.T) {
	p := startProc(t)
	go longLine(p, `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"`, 100*mib, "\"}]}}\n")
	m := p.next(t, map[string]string{"5": "session/prompt"})
	if e := rpcErrorOf(m); e == nil || e["code"] != float64(-32600) || e["message"] != "message too large" || m["id"] != float64(5) {
		t.Fatalf("the 100 MiB prompt: want -32600 message too large with id 5, got %v", m)
	}
	go longLine(p, `{"jsonrpc":"2.0","method":"session/prompt","params":{"pad":"`, 80*mib, "\"},\"id\":6}\n")
	m = p.next(t, nil)
	if e := rpcErrorOf(m); e == nil || e["code"] != float64(-32600) || m["id"] != nil {
		t.Fatalf("want -32600 with id null (the id comes after 64 KiB), got %v", m)
	}
	if m := p.call(t, 7, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("the next line: %v", m)
	}
}

// TestBigPromptMemory: a valid 60 MiB session/prompt is converted into
// the A2A message and sent whole, shim's peak resident memory growing by
// at most 4× the prompt's size.
func TestBigPromptMemory(t *testing.T) {
	linuxOnly(t)
	const size = 60 * mib
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			json.NewEncoder(w).Encode(map[string]any{"name": "Big", "capabilities": map[string]any{"streaming": true},
				"supportedInterfaces": []any{map[string]any{"url": "http://" + r.Host + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}})
			return
		}
		if r.URL.Path != "/a2a" {
			http.NotFound(w, r)
			return
		}
		head := make([]byte, 4096)
		n, _ := io.ReadFull(r.Body, head)
		rest, _ := io.Copy(io.Discard, r.Body)
		got.Store(int64(n) + rest)
		id := "1"
		if _, after, ok := strings.Cut(string(head[:n]), `"id":`); ok {
			id, _, _ = strings.Cut(after, ",")
		}
		if !strings.Contains(string(head[:n]), `"SendStreamingMessage"`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, id)
			return
		}
		ctx := ""
		if _, after, ok := strings.Cut(string(head[:n]), `"contextId":"`); ok {
			ctx, _, _ = strings.Cut(after, `"`)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"statusUpdate\":{\"taskId\":\"t\",\"contextId\":%q,\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\n", id, ctx)
	}))
	t.Cleanup(srv.Close)
	p := startProc(t, "--url", srv.URL, "--log-level", "info", "--no-preamble")
	p.call(t, 1, "initialize", initParams(false))
	sid := p.call(t, 2, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"].(string)
	base := vmHWM(t, p.cmd.Process.Pid)
	go func() {
		fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"`, sid)
		block := []byte(strings.Repeat("words, and \\\"quoted\\\" words\\n ", (64<<10)/32))
		for n := 0; n < size; n += len(block) {
			if _, err := p.stdin.Write(block); err != nil {
				return
			}
		}
		io.WriteString(p.stdin, "\"}]}}\n")
	}()
	m := p.next(t, map[string]string{"3": "session/prompt"})
	for m["method"] != nil {
		m = p.next(t, map[string]string{"3": "session/prompt"})
	}
	if r, _ := m["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", m)
	}
	if got.Load() < size*9/10 {
		t.Errorf("the server got %d bytes of a %d-byte prompt", got.Load(), size)
	}
	peak := vmHWM(t, p.cmd.Process.Pid)
	t.Logf("peak RSS %d MiB (%d MiB before the prompt) for a %d MiB prompt", peak/mib, base/mib, size/mib)
	if grew := peak - base; grew > 4*size {
		t.Errorf("converting a %d MiB prompt grew shim's peak RSS by %d MiB, over 4×", size/mib, grew/mib)
	}
}
