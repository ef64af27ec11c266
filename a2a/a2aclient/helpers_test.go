package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
)

// recorded is one request a fake server received.
type recorded struct {
	Method string // HTTP method
	Path   string
	Header http.Header
	Body   []byte
	RPC    string         // JSON-RPC method, if any
	Params map[string]any // JSON-RPC params, if any
}

// recorder collects the requests a fake server receives.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

func (rec *recorder) add(r *http.Request) recorded {
	body, _ := io.ReadAll(r.Body)
	x := recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var rpc struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if json.Unmarshal(body, &rpc) == nil {
		x.RPC, x.Params = rpc.Method, rpc.Params
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, x)
	rec.mu.Unlock()
	return x
}

func (rec *recorder) all() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]recorded(nil), rec.reqs...)
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// rpcs returns the JSON-RPC requests only.
func (rec *recorder) rpcs() []recorded {
	var out []recorded
	for _, r := range rec.all() {
		if r.RPC != "" {
			out = append(out, r)
		}
	}
	return out
}

// card10 is a 1.0 agent card (supportedInterfaces).
func card10(endpoint, tenant string, streaming bool) string {
	b, _ := json.Marshal(map[string]any{
		"name": "fake", "description": "a fake agent", "version": "1",
		"capabilities": map[string]any{"streaming": streaming},
		"supportedInterfaces": []map[string]any{
			{"url": "http://grpc.invalid/x", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
			{"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": tenant},
		},
	})
	return string(b)
}

// card03 is a 0.3 agent card (url + preferredTransport).
func card03(endpoint string, streaming bool) string {
	b, _ := json.Marshal(map[string]any{
		"name": "fake03", "url": endpoint, "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
		"capabilities": map[string]any{"streaming": streaming},
	})
	return string(b)
}

const (
	frameTask      = `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}}`
	frameWorking   = `{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}`
	frameCompleted = `{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}}`
	taskResult     = `{"jsonrpc":"2.0","id":1,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`
)

func artifactFrame(text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
		"artifactUpdate": map[string]any{"taskId": "t1", "contextId": "c1",
			"artifact": map[string]any{"artifactId": "a1", "parts": []any{map[string]any{"text": text}}}}}})
	return string(b)
}

// sseStart sends the headers of an event stream.
func sseStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// sseWrite writes raw SSE text and flushes it.
func sseWrite(w http.ResponseWriter, raw string) {
	_, _ = io.WriteString(w, raw)
	w.(http.Flusher).Flush()
}

// sseFrames writes each frame as one `data:` event.
func sseFrames(w http.ResponseWriter, frames ...string) {
	for _, f := range frames {
		sseWrite(w, "data: "+f+"\n\n")
	}
}

// logBuffer is a goroutine-safe slog sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newClient builds a client with quick retries and fails the test on error.
func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.retryWait == 0 {
		cfg.retryWait = 5 * time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// within runs f and fails the test if it does not return in d (a hang).
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
		panic("unreachable")
	}
}

type nextResult struct {
	ev  a2a.Event
	err error
}

// next calls s.Next with a hang guard.
func next(t *testing.T, s *Stream) (a2a.Event, error) {
	t.Helper()
	r := within(t, 10*time.Second, "Stream.Next", func() nextResult {
		ev, err := s.Next()
		return nextResult{ev, err}
	})
	return r.ev, r.err
}

// drain reads a stream to its end and returns the events and the final error.
func drain(t *testing.T, s *Stream) ([]a2a.Event, error) {
	t.Helper()
	var evs []a2a.Event
	for i := 0; i < 1000; i++ {
		ev, err := next(t, s)
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("stream never ended")
	return nil, nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func kinds(evs []a2a.Event) string {
	var s []string
	for _, ev := range evs {
		k := ev.Kind.String()
		if ev.Kind == a2a.EventStatus || ev.Kind == a2a.EventTask {
			k += ":" + string(ev.Status.State)
		}
		s = append(s, k)
	}
	return strings.Join(s, ",")
}

// signInErrorOf returns the *a2a.SignInError in err's chain, or nil.
func signInErrorOf(err error) *a2a.SignInError {
	var se *a2a.SignInError
	if errors.As(err, &se) {
		return se
	}
	return nil
}
