package bridge

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/threads"
)

// gate holds the requests whose path has one of its prefixes until their
// own context ends (shim gave the call up) or the test opens it, and says
// which of them shim gave up.
type gate struct {
	next     http.Handler
	prefixes []string

	mu      sync.Mutex
	open    bool
	opened  chan struct{}
	entered chan string
	aborted chan string
}

func newGate(next http.Handler, prefixes ...string) *gate {
	return &gate{next: next, prefixes: prefixes, opened: make(chan struct{}),
		entered: make(chan string, 16), aborted: make(chan string, 16)}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	if !open && slices.ContainsFunc(g.prefixes, func(p string) bool { return strings.HasPrefix(r.URL.Path, p) }) {
		// The server sees the client go only once the body was read.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		g.entered <- r.URL.Path
		select {
		case <-r.Context().Done():
			g.aborted <- r.URL.Path
			return
		case <-g.opened:
		case <-time.After(20 * time.Second):
		}
	}
	g.next.ServeHTTP(w, r)
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open {
		g.open = true
		close(g.opened)
	}
}

// waitPath waits for a held request (or one shim gave up) of path.
func waitPath(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	return ""
}

// cancelRequest sends $/cancel_request for the request id (as the test
// client numbers them).
func (s *testShim) cancelRequest(t *testing.T, id string) {
	t.Helper()
	n, err := strconv.Atoi(id)
	if err != nil {
		t.Fatal(err)
	}
	s.Notify("$/cancel_request", map[string]any{"requestId": n})
}

// wantCancelled checks a response is -32800 "request cancelled".
func wantCancelled(t *testing.T, what string, m acptest.Message) {
	t.Helper()
	if m.Error == nil || m.Error.Code != -32800 || m.Error.Message != "request cancelled" {
		t.Fatalf("%s: want -32800 request cancelled, got %+v %s", what, m.Error, m.Result)
	}
}

// TestCancelSlowLoad: a session/load reading a thread's history is ended
// by $/cancel_request: it answers -32800, its read of the history is
// given up, it opens no session, writes no index entry and shows
// nothing. Cancelling it again, or an id never sent, changes nothing: the
// same load then runs to its end; a load nobody cancels answers as
// before.
func TestCancelSlowLoad(t *testing.T) {
	const id = "chat-zed-1-a"
	api := newOpAPI()
	api.setTurns(id, opTurn("t0", "TASK_STATE_COMPLETED", "Yes.", nil, "Yes.", userMsg("First question")))
	f := withOperator(t, api)
	g := newGate(api, "/api/chat/sessions/"+id+"/turns")
	f.operator = g
	ix := threads.Open(t.TempDir(), nil)
	s := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	s.init(t)

	ch, reqID := s.Start("session/load", loadArgs(id, "/w"))
	waitPath(t, g.entered, "the history read")
	s.cancelRequest(t, reqID)
	wantCancelled(t, "the cancelled load", s.Wait(ch, "session/load"))
	waitPath(t, g.aborted, "the history read given up")
	if e, ok, err := ix.Get(f.url, id); ok || err != nil {
		t.Errorf("the cancelled load wrote the index: %+v %v", e, err)
	}
	if n := len(s.Updates(id)); n != 0 {
		t.Errorf("the cancelled load showed %d updates", n)
	}
	if m := s.prompt(t, id, "hi"); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("a prompt on the cancelled load's session: %+v", m.Error)
	}

	// A finished id and one never sent change nothing.
	s.cancelRequest(t, reqID)
	s.cancelRequest(t, "999")
	g.release()
	m := s.Call("session/load", loadArgs(id, "/w"))
	if m.Error != nil {
		t.Fatalf("the load nobody cancelled: %+v", m.Error)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Yes." {
		t.Errorf("replayed %q", got)
	}
	if _, ok, _ := ix.Get(f.url, id); !ok {
		t.Error("the load nobody cancelled is not in the index")
	}
}

// TestCancelSlowList: a session/list reading the agent's threads is ended
// by $/cancel_request with -32800 and writes nothing to the index; the
// same list not cancelled answers the threads and files their titles.
func TestCancelSlowList(t *testing.T) {
	api := newOpAPI()
	api.sessions = []map[string]any{{"session_id": "chat-zed-2-b", "title": "Ship it", "last_updated": "2026-09-24T10:00:00"}}
	f := withOperator(t, api)
	g := newGate(api, "/api/chat/sessions")
	f.operator = g
	ix := threads.Open(t.TempDir(), nil)
	s := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	s.init(t)
	ch, reqID := s.Start("session/list", map[string]any{})
	waitPath(t, g.entered, "the thread list")
	s.cancelRequest(t, reqID)
	wantCancelled(t, "the cancelled list", s.Wait(ch, "session/list"))
	waitPath(t, g.aborted, "the list read given up")
	if items, err := ix.List(f.url); err != nil || len(items) != 0 {
		t.Errorf("the cancelled list wrote the index: %+v %v", items, err)
	}
	g.release()
	if rows := listSessions(t, s, ""); len(rows) != 1 || rows[0]["sessionId"] != "chat-zed-2-b" {
		t.Fatalf("the list nobody cancelled: %v", rows)
	}
}

// TestCancelNewSession: a session/new still waiting on the agent (its
// hand-off claim) is ended by $/cancel_request with -32800: no session,
// no index entry, no commands; the next session/new answers.
func TestCancelNewSession(t *testing.T) {
	api := newOpAPI()
	f := withOperator(t, api)
	g := newGate(api, "/api/editor/handoff/claim")
	f.operator = g
	ix := threads.Open(t.TempDir(), nil)
	s := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	s.init(t)
	ch, reqID := s.Start("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}})
	waitPath(t, g.entered, "the hand-off claim")
	s.cancelRequest(t, reqID)
	wantCancelled(t, "the cancelled session/new", s.Wait(ch, "session/new"))
	waitPath(t, g.aborted, "the claim given up")
	if items, err := ix.List(f.url); err != nil || len(items) != 0 {
		t.Errorf("the cancelled session/new wrote the index: %+v %v", items, err)
	}
	if n := len(s.server().store.IDs()); n != 0 {
		t.Errorf("%d sessions after a cancelled session/new", n)
	}
	g.release()
	id := s.newSession(t, "/w")
	if s.server().store.Session(id) == nil {
		t.Error("the session/new nobody cancelled is not open")
	}
	for _, u := range s.Updates("") {
		if u.SessionID != id {
			t.Errorf("an update for another session: %s", u.SessionID)
		}
	}
}

// TestCancelBusyPrompt: a prompt waiting for a chat busy elsewhere is
// ended by $/cancel_request with -32800 and sends nothing (no message, no
// CancelTask), with or without a grace window; the next prompt runs.
func TestCancelBusyPrompt(t *testing.T) {
	busyCancel(t, func(s *testShim, id string, ch chan acptest.Message, reqID string) {
		s.cancelRequest(t, reqID)
		wantCancelled(t, "the cancelled prompt", s.Wait(ch, "the cancelled prompt"))
		tr := s.server().store.Session(id).Current()
		select {
		case <-tr.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the cancelled prompt's turn still waits")
		}
	})
}

// TestCancelRunningPrompt: a prompt whose message was sent, cancelled by
// $/cancel_request, answers -32800 at once and its task is cancelled on
// the server (no grace window: the client gave the request up).
func TestCancelRunningPrompt(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	defer close(release)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Working.", false)
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
	}
	s := startShim(t, f.url, withGrace(10*time.Second), nil)
	s.init(t)
	id := s.newSession(t, "/w")
	ch, reqID := s.Start("session/prompt", promptArgs(id, "build it"))
	waitText(t, s, "Working.")
	s.cancelRequest(t, reqID)
	wantCancelled(t, "the cancelled prompt", s.Wait(ch, "the cancelled prompt"))
	deadline := time.Now().Add(10 * time.Second)
	for len(f.callsOf("CancelTask")) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if calls := f.callsOf("CancelTask"); len(calls) != 1 || calls[0].Params["id"] != "t1" {
		t.Fatalf("CancelTask: %v", calls)
	}
}
