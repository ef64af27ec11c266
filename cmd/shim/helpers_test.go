package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// shimEnv is an isolated user for the shim binary: its own home, config
// and state directories, no SHIM_* variables, no D-Bus session bus (so no
// OS keyring) unless a test adds one.
type shimEnv struct {
	home, config, state string
	vars                []string
	// fileSize, when set, is the most bytes the binary may write to a
	// file (RLIMIT_FSIZE: past it a write fails with EFBIG, as on a full
	// disk); see limitedCommand.
	fileSize int64
}

func newShimEnv(t *testing.T) *shimEnv {
	t.Helper()
	dir := t.TempDir()
	e := &shimEnv{home: filepath.Join(dir, "home"), config: filepath.Join(dir, "config"), state: filepath.Join(dir, "state")}
	if err := os.MkdirAll(e.home, 0o700); err != nil {
		t.Fatal(err)
	}
	return e
}

// environ is the process environment minus what would leak the
// developer's own configuration into the test.
func (e *shimEnv) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SHIM_") || strings.HasPrefix(name, "XDG_") ||
			name == "HOME" || name == "DBUS_SESSION_BUS_ADDRESS" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+e.home)
	return append(out, e.vars...)
}

// command is the program and arguments that run the binary with args:
// the binary itself, or, with fileSize, this test binary limiting the
// size of the files it writes then running it (limitedCommand).
func (e *shimEnv) command(args []string) (string, []string, []string) {
	env := e.environ()
	if e.fileSize > 0 {
		return limitedCommand(e.fileSize, env, append([]string{shimBin}, e.args(args)...))
	}
	return shimBin, e.args(args), env
}

// args puts the directories and --keyring off first; flags given later
// (or after the command name) win.
func (e *shimEnv) args(args []string) []string {
	return append([]string{"--config-dir", e.config, "--state-dir", e.state, "--keyring", "off"}, args...)
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary to its end with stdin as its input.
func (e *shimEnv) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	bin, argv, env := e.command(args)
	cmd := exec.Command(bin, argv...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("shim %v did not end; stderr:\n%s", args, errb.String())
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// start runs the binary as an ACP server.
func (e *shimEnv) start(t *testing.T, args ...string) *proc {
	t.Helper()
	bin, argv, env := e.command(args)
	return startBin(t, "", env, bin, argv...)
}

// credentialsFile reads <config>/credentials.json ("" tokens when absent).
func (e *shimEnv) credentialsFile(t *testing.T) (lastURL string, tokens map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.config, "credentials.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version int               `json:"version"`
		LastURL string            `json:"lastUrl"`
		Tokens  map[string]string `json:"tokens"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		t.Fatalf("credentials.json: %v %s", err, b)
	}
	if f.Tokens == nil {
		f.Tokens = map[string]string{}
	}
	return f.LastURL, f.Tokens
}

// call sends a request and returns its response; notifications read on
// the way are kept in p.seen.
func (p *proc) call(t *testing.T, id int, method string, params any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	p.mu.Lock()
	if p.methods == nil {
		p.methods = map[string]string{}
	}
	p.methods[fmt.Sprint(id)] = method
	methods := make(map[string]string, len(p.methods))
	for k, v := range p.methods {
		methods[k] = v
	}
	p.mu.Unlock()
	p.send(t, string(b))
	for {
		m := p.next(t, methods)
		if m["method"] != nil {
			p.mu.Lock()
			p.seen = append(p.seen, m)
			p.mu.Unlock()
			continue
		}
		if idOf(m) == fmt.Sprint(id) {
			return m
		}
		t.Fatalf("response to another id while waiting for %d: %v", id, m)
	}
}

// rpcErrorOf returns a response's error object (nil for a result).
func rpcErrorOf(m map[string]any) map[string]any {
	e, _ := m["error"].(map[string]any)
	return e
}

func errData(m map[string]any) map[string]any {
	d, _ := rpcErrorOf(m)["data"].(map[string]any)
	return d
}

// seenReq is one HTTP request a fake server got.
type seenReq struct {
	Method, Path, Auth, RPC string
}

// fakeA2A is an A2A 1.0 server under prefix ("" or "/agents/<slug>"),
// optionally demanding a token, with optional operator API routes.
type fakeA2A struct {
	t      *testing.T
	srv    *httptest.Server
	prefix string

	mu     sync.Mutex
	token  string         // required bearer token; "" takes anything
	refuse int            // when set, every request gets this status
	api    map[string]int // operator API path → status (absent: 404)
	echo   bool           // a prompt saying "fail" gets an error quoting the Authorization header
	// echoAll: a prompt saying "fail-task" gets a task that fails with a
	// status text quoting the token; "fail-error" an error whose message
	// quotes it (Go's JSON escaping) and whose data quotes it with every
	// non-ASCII character escaped (as Python writes JSON).
	echoAll bool
	card    string // the endpoint the card names (default: its own /a2a)
	// cardJSON, when set, is the card served, as it is (a signed card);
	// extCard the extended card GetExtendedAgentCard answers.
	cardJSON, extCard []byte
	reqs              []seenReq
}

func newFakeA2A(t *testing.T, prefix, token string) *fakeA2A {
	f := &fakeA2A{t: t, prefix: prefix, token: token, api: map[string]int{}}
	// Set f.srv before the server runs: ServeHTTP reads it.
	f.srv = httptest.NewUnstartedServer(f)
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeA2A) url() string { return f.srv.URL }

func (f *fakeA2A) set(fn func(f *fakeA2A)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeA2A) requests() []seenReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenReq(nil), f.reqs...)
}

// auths returns the Authorization headers of every request.
func (f *fakeA2A) auths() []string {
	var out []string
	for _, r := range f.requests() {
		out = append(out, r.Auth)
	}
	return out
}

func (f *fakeA2A) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rpc struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	if r.Method == http.MethodPost {
		_ = json.NewDecoder(r.Body).Decode(&rpc)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, seenReq{Method: r.Method, Path: r.URL.RequestURI(), Auth: r.Header.Get("Authorization"), RPC: rpc.Method})
	token, refuse, echo, endpoint, echoAll, cardJSON, extCard := f.token, f.refuse, f.echo, f.card, f.echoAll, f.cardJSON, f.extCard
	status, hasAPI := f.api[apiKey(strings.TrimPrefix(r.URL.Path, f.prefix))]
	f.mu.Unlock()
	if refuse != 0 {
		http.Error(w, "go away", refuse)
		return
	}
	if !strings.HasPrefix(r.URL.Path, f.prefix+"/") {
		http.NotFound(w, r)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, f.prefix)
	// The card is public, as on real servers; the rest needs the token.
	if token != "" && path != "/.well-known/agent-card.json" && r.Header.Get("Authorization") != "Bearer "+token {
		http.Error(w, `{"detail":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodGet && path == "/.well-known/agent-card.json" && cardJSON != nil:
		w.Header().Set("Content-Type", "application/json")
		w.Write(cardJSON)
	case r.Method == http.MethodPost && path == "/a2a" && rpc.Method == "GetExtendedAgentCard" && extCard != nil:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", rpc.ID, extCard)
	case r.Method == http.MethodGet && path == "/.well-known/agent-card.json":
		f.serveCard(w, endpoint)
	case strings.HasPrefix(path, "/api/"):
		if !hasAPI {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, `{}`)
	case r.Method == http.MethodPost && path == "/a2a":
		f.rpc(w, rpc.ID, rpc.Method, rpc.Params, r.Header.Get("Authorization"), echo, echoAll)
	default:
		http.NotFound(w, r)
	}
}

// serveCard writes the fake's agent card naming endpoint, or its own
// /a2a when endpoint is empty.
func (f *fakeA2A) serveCard(w http.ResponseWriter, endpoint string) {
	if endpoint == "" {
		endpoint = f.srv.URL + f.prefix + "/a2a"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"name": "Fake Agent", "version": "1", "capabilities": map[string]any{"streaming": true},
		"supportedInterfaces": []any{map[string]any{"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
	})
}

func (f *fakeA2A) rpc(w http.ResponseWriter, id json.RawMessage, method string, params map[string]any, auth string, echo, echoAll bool) {
	reply := func(result any, code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		out := map[string]any{"jsonrpc": "2.0", "id": id}
		if msg != "" {
			out["error"] = map[string]any{"code": code, "message": msg}
		} else {
			out["result"] = result
		}
		json.NewEncoder(w).Encode(out)
	}
	switch method {
	case "GetTask":
		reply(nil, -32001, "Task not found")
	case "CancelTask":
		reply(map[string]any{"id": params["id"], "status": map[string]any{"state": "TASK_STATE_CANCELED"}}, 0, "")
	case "SendStreamingMessage":
		msg, _ := params["message"].(map[string]any)
		ctx, _ := msg["contextId"].(string)
		text := ""
		parts, _ := msg["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			s, _ := pm["text"].(string)
			text += s
		}
		tok := strings.TrimPrefix(auth, "Bearer ")
		if echoAll && strings.Contains(text, "fail-error") {
			w.Header().Set("Content-Type", "application/json")
			msg, _ := json.Marshal("bad credentials: " + tok)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s,"data":{"detail":%s}}}`+"\n",
				id, msg, strconv.QuoteToASCII("you sent "+tok))
			return
		}
		if strings.Contains(text, "fail") && !(echoAll && strings.Contains(text, "fail-task")) {
			detail := "the model is down"
			if echo {
				detail = "bad credentials: " + auth
			}
			reply(nil, -32603, detail)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		frame := func(v any) {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": v})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		frame(map[string]any{"task": map[string]any{"id": "t1", "contextId": ctx, "status": map[string]any{"state": "TASK_STATE_WORKING"}}})
		if echoAll && strings.Contains(text, "fail-task") {
			frame(map[string]any{"statusUpdate": map[string]any{"taskId": "t1", "contextId": ctx, "status": map[string]any{
				"state": "TASK_STATE_FAILED", "message": map[string]any{"messageId": "m1", "role": "ROLE_AGENT",
					"parts": []any{map[string]any{"text": "the token " + tok + " was refused"}}}}}})
			return
		}
		frame(map[string]any{"artifactUpdate": map[string]any{"taskId": "t1", "contextId": ctx,
			"artifact": map[string]any{"artifactId": "a1", "parts": []any{map[string]any{"text": "hello from the fake"}}}}})
		frame(map[string]any{"statusUpdate": map[string]any{"taskId": "t1", "contextId": ctx, "status": map[string]any{"state": "TASK_STATE_COMPLETED"}}})
	default:
		reply(nil, -32601, "method not found")
	}
}

// apiKey is an operator API path with the session id doctor invents
// replaced by {id}.
func apiKey(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "shim-doctor-") {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

// deadURL is the URL of a server that no longer listens.
func deadURL(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

func initParams(terminal bool) map[string]any {
	caps := map[string]any{}
	if terminal {
		caps["auth"] = map[string]any{"terminal": true}
	}
	return map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "zed", "version": "1"}, "clientCapabilities": caps}
}

func newSessionParams() map[string]any {
	return map[string]any{"cwd": "/tmp", "mcpServers": []any{}}
}
