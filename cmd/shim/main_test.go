package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
)

var shimBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shim-bin-")
	if err != nil {
		panic(err)
	}
	shimBin = filepath.Join(dir, "shim")
	out, err := exec.Command("go", "build", "-o", shimBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building shim: %v\n%s", err, out)
		os.Exit(1)
	}
	// The platform credential helper beside it: a shim built without the
	// helper inside runs the one beside its executable.
	out, err = exec.Command("go", "build", "-o", filepath.Join(dir, "shim-platform"), "../shim-platform").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building shim-platform: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running shim binary.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *strings.Builder
	mu     sync.Mutex
	// methods maps the ids call sent to their methods; seen keeps the
	// notifications call read past.
	methods map[string]string
	seen    []map[string]any
	// lines keeps every stdout line read.
	lines [][]byte
	// wait is how long next waits for a line (0: 30 s). A test that has
	// shim convert tens of MiB under the race detector waits longer: on a
	// loaded machine that takes more than 30 s, and its assertion is the
	// memory, not the time.
	wait time.Duration
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	dir := t.TempDir()
	args = append([]string{"--state-dir", dir, "--config-dir", dir, "--keyring", "off", "--log-level", "debug"}, args...)
	return startCmd(t, append(os.Environ(), "SHIM_URL=", "SHIM_TOKEN=", "SHIM_TOKEN_FILE="), args...)
}

// startCmd starts the binary with env and args, stdin and stdout piped.
func startCmd(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startCmdIn(t, "", env, args...)
}

// startCmdIn is startCmd with the process started in dir.
func startCmdIn(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	return startBin(t, dir, env, shimBin, args...)
}

// startBin is startCmdIn running bin (the binary, or what runs it).
func startBin(t *testing.T, dir string, env []string, bin string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	p := &proc{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = lockedWriter{p}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReaderSize(out, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

type lockedWriter struct{ p *proc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.stderr.Write(b)
}

func (p *proc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *proc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next reads the next stdout line and checks that it is a JSON-RPC 2.0
// message valid against the ACP schema.
func (p *proc) next(t *testing.T, methods map[string]string) map[string]any {
	t.Helper()
	type res struct {
		line []byte
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := p.stdout.ReadBytes('\n')
		ch <- res{l, err}
	}()
	wait := p.wait
	if wait == 0 {
		wait = 30 * time.Second
	}
	var r res
	select {
	case r = <-ch:
	case <-time.After(wait):
		t.Fatalf("no output within %s; stderr:\n%s", wait, p.logs())
	}
	if r.err != nil {
		t.Fatalf("reading stdout: %v; stderr:\n%s", r.err, p.logs())
	}
	p.mu.Lock()
	p.lines = append(p.lines, r.line)
	p.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(r.line, &m); err != nil {
		t.Fatalf("stdout carried a non-JSON line: %q", r.line)
	}
	if m["jsonrpc"] != "2.0" {
		t.Fatalf("stdout line is not JSON-RPC 2.0: %q", r.line)
	}
	v, err := acptest.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.AgentLine(r.line, func(id string) string { return methods[id] }); err != nil {
		t.Errorf("schema: %v (%s)", err, r.line)
	}
	return m
}

func idOf(m map[string]any) string { return fmt.Sprint(m["id"]) }

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// TestStdoutOnlyACP runs a whole session against a real A2A server with
// debug logging and checks that every stdout line is an ACP message.
func TestStdoutOnlyACP(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	srv.Config.Handler = agent.NewHandler(srv.URL, agent.Options{Name: "Go Agent"})
	defer srv.Close()
	p := startProc(t, "--url", srv.URL, "--steer-grace", "0")
	methods := map[string]string{"1": "initialize", "2": "session/new", "3": "session/prompt"}
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed","version":"1"}}}`)
	if m := p.next(t, methods); idOf(m) != "1" {
		t.Fatalf("initialize: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	m := p.next(t, methods)
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	if !strings.HasPrefix(sid, "chat-zed-") {
		t.Fatalf("session/new: %v", m)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"use the tool please"}]}}`, sid))
	lines := 0
	for {
		m := p.next(t, methods)
		lines++
		if idOf(m) == "3" {
			if r, _ := m["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Fatalf("prompt: %v", m)
			}
			break
		}
	}
	if lines < 5 {
		t.Errorf("expected a streamed answer, got %d lines", lines)
	}
	if !strings.Contains(p.logs(), "level=DEBUG") {
		t.Errorf("expected debug logs on stderr, got %q", p.logs())
	}
}

// TestMalformedInput: malformed JSON gets -32700, a batch -32600, an
// unknown method -32601, an unknown notification nothing; the process
// keeps serving.
func TestMalformedInput(t *testing.T) {
	p := startProc(t)
	methods := map[string]string{"1": "initialize", "2": "initialize"}
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":65535}}`)
	m := p.next(t, methods)
	if r, _ := m["result"].(map[string]any); r["protocolVersion"] != float64(1) {
		t.Fatalf("initialize with 65535 must answer 1: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":`)
	if m := p.next(t, methods); errCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("want -32700 with a null id, got %v", m)
	}
	p.send(t, `[{"jsonrpc":"2.0","id":8,"method":"initialize"}]`)
	if m := p.next(t, methods); errCode(m) != -32600 {
		t.Fatalf("want -32600 for a batch, got %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
	p.send(t, `{"jsonrpc":"2.0","method":"_zed/unknown","params":{}}`)
	p.send(t, `{"jsonrpc":"2.0","method":"session/unknown_notification","params":{}}`)
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"no/such/method","params":{}}`)
	if m := p.next(t, methods); errCode(m) != -32601 || idOf(m) != "9" {
		t.Fatalf("want -32601 for id 9, got %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := p.next(t, methods); idOf(m) != "2" || m["result"] == nil {
		t.Fatalf("the next valid request must be served: %v", m)
	}
}

// TestExitOnStdinClose: after stdin closes the process cancels its running
// task (CancelTask) and exits within a second.
func TestExitOnStdinClose(t *testing.T) {
	exitCancelsTask(t, func(p *proc) { p.stdin.Close() })
}

// TestExitOnSignal: SIGTERM or SIGINT (the editor quitting, Ctrl-C) ends
// the process as a closed stdin does: the running task is cancelled
// (CancelTask) and the exit status is 0, not death by the signal.
func TestExitOnSignal(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			exitCancelsTask(t, func(p *proc) {
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// exitCancelsTask starts a turn whose task never ends, ends the process
// with end, and checks that the task was cancelled and the exit was prompt
// and clean.
func exitCancelsTask(t *testing.T, end func(p *proc)) {
	t.Helper()
	var mu sync.Mutex
	var cancelled []string
	block := make(chan struct{})
	defer close(block)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			json.NewEncoder(w).Encode(map[string]any{"name": "Slow", "supportedInterfaces": []any{map[string]any{
				"url": "http://" + r.Host + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}})
			return
		}
		var req struct {
			ID     any            `json:"id"`
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		switch req.Method {
		case "SendStreamingMessage":
			ctx := req.Params["message"].(map[string]any)["contextId"]
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", mustJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
				"task": map[string]any{"id": "t-slow", "contextId": ctx, "status": map[string]any{"state": "TASK_STATE_WORKING"}}}}))
			w.(http.Flusher).Flush()
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "CancelTask":
			mu.Lock()
			cancelled = append(cancelled, fmt.Sprint(req.Params["id"]))
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}})
		default:
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32001, "message": "Task not found"}})
		}
	}))
	defer srv.Close()
	p := startProc(t, "--url", srv.URL)
	methods := map[string]string{"1": "initialize", "2": "session/new", "3": "session/prompt"}
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.next(t, methods)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	m := p.next(t, methods)
	sid := m["result"].(map[string]any)["sessionId"].(string)
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, sid))
	// Wait until the task exists on the server side.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.logs(), "t-slow") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	closed := time.Now()
	end(p)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("shim did not exit")
	}
	// The exit itself must be prompt; the bound is generous for a loaded
	// machine but far below any network timeout.
	if d := time.Since(closed); d > 3*time.Second {
		t.Errorf("exit took %s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(cancelled) != 1 || cancelled[0] != "t-slow" {
		t.Errorf("CancelTask calls %v", cancelled)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
