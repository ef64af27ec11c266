package bridge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
)

// startAgent runs the demo agent (the official a2a-go v2 SDK server).
func startAgent(t *testing.T, opts agent.Options) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	srv.Config.Handler = agent.NewHandler(srv.URL, opts)
	t.Cleanup(srv.Close)
	return srv.URL
}

// startFake runs a scripted handler as the A2A server.
func startFake(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

type testShim struct {
	*acptest.Client
	stdin io.WriteCloser
	done  chan struct{}
	logs  *strings.Builder
	sink  logSink
	srv   *Server
	delay *atomic.Int64
}

// logged reports whether shim's log has a line containing text so far.
func (s *testShim) logged(text string) bool {
	s.sink.mu <- struct{}{}
	defer func() { <-s.sink.mu }()
	return strings.Contains(s.sink.buf.String(), text)
}

// server returns the in-process server.
func (s *testShim) server() *Server { return s.srv }

// slow makes the editor read each chunk of shim's output d late.
func (s *testShim) slow(d time.Duration) { s.delay.Store(int64(d)) }

// slowReader delays every read by a settable duration.
type slowReader struct {
	r     io.Reader
	delay *atomic.Int64
}

func (r slowReader) Read(p []byte) (int, error) {
	if d := r.delay.Load(); d > 0 {
		time.Sleep(time.Duration(d))
		if len(p) > 512 {
			p = p[:512]
		}
	}
	return r.r.Read(p)
}

// testLogger collects log lines in memory.
type logSink struct {
	mu  chan struct{}
	buf *strings.Builder
}

func (l logSink) Write(p []byte) (int, error) {
	l.mu <- struct{}{}
	defer func() { <-l.mu }()
	return l.buf.Write(p)
}

// startShim serves ACP in-process against url, driven by a test client
// that validates every line against the ACP schema.
func startShim(t *testing.T, url string, mod func(*Options, *a2aclient.Config), h acptest.Handler) *testShim {
	t.Helper()
	return startShimLoading(t, url, mod, h, history.LoadBytesMax)
}

// startShimLoading is startShim with session/load reading at most
// loadBytes.
func startShimLoading(t *testing.T, url string, mod func(*Options, *a2aclient.Config), h acptest.Handler, loadBytes int64) *testShim {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	buf := &strings.Builder{}
	sink := logSink{mu: make(chan struct{}, 1), buf: buf}
	log := slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := a2aclient.Config{URL: url, Stall: 10 * time.Second, Log: log}
	home, _ := os.UserHomeDir()
	opts := Options{Version: "test", Executable: "/usr/local/bin/shim", Log: log, Home: home}
	if mod != nil {
		mod(&opts, &cfg)
	}
	if opts.Connect == nil && url != "" {
		opts.Connect = func() (*a2aclient.Client, error) { return a2aclient.New(cfg) }
	}
	s := &testShim{stdin: inW, done: make(chan struct{}), logs: buf, sink: sink, srv: newServer(opts, loadBytes), delay: &atomic.Int64{}}
	go func() {
		defer close(s.done)
		_ = s.srv.serve(context.Background(), inR, outW)
		outW.Close()
	}()
	s.Client = acptest.NewClient(t, slowReader{r: outR, delay: s.delay}, inW, h)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			t.Error("shim did not stop after stdin closed")
		}
	})
	return s
}

func (s *testShim) init(t *testing.T) {
	t.Helper()
	m := s.Call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "zed", "title": "Zed", "version": "1"},
		"clientCapabilities": map[string]any{}})
	if m.Error != nil {
		t.Fatalf("initialize: %v", m.Error)
	}
}

func (s *testShim) newSession(t *testing.T, cwd string) string {
	t.Helper()
	m := s.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if m.Error != nil {
		t.Fatalf("session/new: %v", m.Error)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Result, &r)
	return r.SessionID
}

// resumeSession opens the thread id with session/resume: a chat this
// process did not mint, which may be busy elsewhere (SPEC §3.4, §19).
func (s *testShim) resumeSession(t *testing.T, id, cwd string) string {
	t.Helper()
	if m := s.Call("session/resume", map[string]any{"sessionId": id, "cwd": cwd, "mcpServers": []any{}}); m.Error != nil {
		t.Fatalf("session/resume: %v", m.Error)
	}
	return id
}

func promptArgs(id, text string) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

func (s *testShim) prompt(t *testing.T, id, text string) acptest.Message {
	t.Helper()
	return s.Call("session/prompt", promptArgs(id, text))
}

// stopReason returns a prompt response's stop reason.
func stopReason(t *testing.T, m acptest.Message) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("prompt failed: %v", m.Error)
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(m.Result, &r)
	return r.StopReason
}

// answer joins the agent_message_chunk texts of a session.
func answer(updates []acptest.Update, kind string) string {
	var b strings.Builder
	for _, u := range updates {
		if u.Kind() == kind {
			b.WriteString(u.Text())
		}
	}
	return b.String()
}

func count(updates []acptest.Update, kind string) int {
	n := 0
	for _, u := range updates {
		if u.Kind() == kind {
			n++
		}
	}
	return n
}

// The permission options shim offers, as the editor answers with them.
const (
	optApprove        = "approve"
	optApproveSession = "approve_session"
)

// steerBufferMax is the bound of a detached turn's buffer (README: 1 MiB).
const steerBufferMax = 1 << 20
