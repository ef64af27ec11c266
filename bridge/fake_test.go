package bridge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeAgent is a scripted A2A 1.0 server for the edge cases real servers
// cannot be made to produce: cut streams, error frames, foreign frames.
type fakeAgent struct {
	t    *testing.T
	url  string
	name string

	mu    sync.Mutex
	calls []rpcCall
	// requests is every request in the order the server read it:
	// "METHOD /path?query", and "POST /a2a <rpc method>" for A2A.
	requests []string

	// stream answers SendStreamingMessage; subscribe answers
	// SubscribeToTask; getTask answers GetTask (a result object or an
	// *rpcErr). nil scripts answer with a JSON-RPC error.
	stream    func(w *sseWriter, c rpcCall)
	subscribe func(w *sseWriter, c rpcCall)
	getTask   func(c rpcCall) any
	// operator, when set, serves /api/… paths.
	operator http.Handler
	// skills are the card's skills (guarded by mu); extended, when set,
	// are the skills of the extended card the card then offers.
	skills   []any
	extended []any
}

// setSkills changes the card's skills.
func (f *fakeAgent) setSkills(skills ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.skills = skills
}

type rpcCall struct {
	ID     json.RawMessage
	Method string
	Params map[string]any
	Header http.Header
}

// contextID returns params.message.contextId.
func (c rpcCall) contextID() string {
	m, _ := c.Params["message"].(map[string]any)
	s, _ := m["contextId"].(string)
	return s
}

func (c rpcCall) message() map[string]any {
	m, _ := c.Params["message"].(map[string]any)
	return m
}

// text returns the text of the message's parts.
func (c rpcCall) text() string {
	var b strings.Builder
	parts, _ := c.message()["parts"].([]any)
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		s, _ := pm["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// logRequest appends one request to the log.
func (f *fakeAgent) logRequest(s string) {
	f.mu.Lock()
	f.requests = append(f.requests, s)
	f.mu.Unlock()
}

// requestsFrom returns the requests read since the log held n.
func (f *fakeAgent) requestsFrom(n int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests[min(n, len(f.requests)):]...)
}

func newFake(t *testing.T) *fakeAgent {
	f := &fakeAgent{t: t, name: "Fake Agent"}
	f.url = startFake(t, f)
	return f
}

func (f *fakeAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/a2a" {
		f.logRequest(r.Method + " " + r.URL.RequestURI())
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json":
		w.Header().Set("Content-Type", "application/json")
		f.mu.Lock()
		skills := f.skills
		f.mu.Unlock()
		card := map[string]any{
			"name": f.name, "version": "1",
			"supportedInterfaces": []any{map[string]any{"url": f.url + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
			"capabilities":        map[string]any{"streaming": true},
		}
		if skills != nil {
			card["skills"] = skills
		}
		f.mu.Lock()
		if f.extended != nil {
			card["capabilities"] = map[string]any{"streaming": true, "extendedAgentCard": true}
		}
		f.mu.Unlock()
		json.NewEncoder(w).Encode(card)
		return
	case strings.HasPrefix(r.URL.Path, "/api/"):
		if f.operator != nil {
			f.operator.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
		return
	case r.Method != http.MethodPost || r.URL.Path != "/a2a":
		http.NotFound(w, r)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	c := rpcCall{ID: req.ID, Method: req.Method, Params: req.Params, Header: r.Header.Clone()}
	f.mu.Lock()
	f.requests = append(f.requests, "POST /a2a "+req.Method)
	f.calls = append(f.calls, c)
	stream, subscribe, getTask := f.stream, f.subscribe, f.getTask
	f.mu.Unlock()
	switch req.Method {
	case "SendStreamingMessage", "SubscribeToTask":
		script := stream
		if req.Method == "SubscribeToTask" {
			script = subscribe
		}
		if script == nil {
			writeRPC(w, c.ID, nil, &rpcErr{Code: -32004, Message: "Task is in a terminal state and cannot be subscribed to."})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		sw := &sseWriter{w: w, id: c.ID, ctx: c.contextID()}
		sw.flush()
		script(sw, c)
	case "GetTask":
		if getTask == nil {
			writeRPC(w, c.ID, nil, &rpcErr{Code: -32001, Message: "Task not found"})
			return
		}
		res := getTask(c)
		if e, ok := res.(*rpcErr); ok {
			writeRPC(w, c.ID, nil, e)
			return
		}
		writeRPC(w, c.ID, res, nil)
	case "GetExtendedAgentCard":
		f.mu.Lock()
		ext := f.extended
		f.mu.Unlock()
		writeRPC(w, c.ID, map[string]any{"name": f.name + " (signed in)", "version": "1", "skills": ext,
			"supportedInterfaces": []any{map[string]any{"url": f.url + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
			"capabilities":        map[string]any{"streaming": true}}, nil)
	case "CancelTask":
		writeRPC(w, c.ID, map[string]any{"id": c.Params["id"], "status": map[string]any{"state": "TASK_STATE_CANCELED"}}, nil)
	default:
		writeRPC(w, c.ID, nil, &rpcErr{Code: -32601, Message: "method not found"})
	}
}

func writeRPC(w http.ResponseWriter, id json.RawMessage, result any, e *rpcErr) {
	w.Header().Set("Content-Type", "application/json")
	out := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		out["error"] = e
	} else {
		out["result"] = result
	}
	json.NewEncoder(w).Encode(out)
}

// callsOf returns the recorded calls of one method.
func (f *fakeAgent) callsOf(method string) []rpcCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []rpcCall
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// sseWriter writes frames of one stream.
type sseWriter struct {
	w   http.ResponseWriter
	id  json.RawMessage
	ctx string
}

func (s *sseWriter) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// raw writes raw bytes.
func (s *sseWriter) raw(b string) {
	fmt.Fprint(s.w, b)
	s.flush()
}

// result writes one frame whose result is v.
func (s *sseWriter) result(v any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "result": v})
	s.raw("data: " + string(b) + "\n\n")
}

func (s *sseWriter) task(taskID, state string) {
	s.result(map[string]any{"task": map[string]any{"id": taskID, "contextId": s.ctx, "status": map[string]any{"state": state}}})
}

func (s *sseWriter) status(taskID, state string, message map[string]any) {
	st := map[string]any{"state": state}
	if message != nil {
		st["message"] = message
	}
	s.result(map[string]any{"statusUpdate": map[string]any{"taskId": taskID, "contextId": s.ctx, "status": st}})
}

func (s *sseWriter) artifact(taskID, artifactID, text string, appendMode bool) {
	u := map[string]any{"taskId": taskID, "contextId": s.ctx,
		"artifact": map[string]any{"artifactId": artifactID, "parts": []any{map[string]any{"text": text}}}}
	if appendMode {
		u["append"] = true
	}
	s.result(map[string]any{"artifactUpdate": u})
}

func agentMsg(parts ...any) map[string]any {
	return map[string]any{"role": "ROLE_AGENT", "messageId": "m", "parts": parts}
}

func textPart(s string) map[string]any { return map[string]any{"text": s} }

func taskResult(taskID, ctx, state string, answer string, statusText string) map[string]any {
	st := map[string]any{"state": state}
	if statusText != "" {
		st["message"] = agentMsg(textPart(statusText))
	}
	t := map[string]any{"id": taskID, "contextId": ctx, "status": st}
	if answer != "" {
		t["artifacts"] = []any{map[string]any{"artifactId": "a1", "parts": []any{textPart(answer)}}}
	}
	return t
}
