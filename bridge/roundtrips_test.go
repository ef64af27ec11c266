package bridge

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/binding"
)

// Round trips (SPEC §19): the order and the count of the requests each
// phase sends, as the server read them.

// TestFirstPromptOfMintedSessionSendsFirst: the first prompt of a session
// this process minted asks no busy signal (nor the sessions list that
// tells a 404 apart): its message is the first and only request it sends,
// even when the operator API would call the chat busy. On a server with
// the sessions API, the next prompt asks the busy signal before its
// message (§3.4).
func TestFirstPromptOfMintedSessionSendsFirst(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary func(string) (int, any)
	}{
		{"busy signal says active", busyFor(-1, "TASK_STATE_WORKING")},
		{"busy route answers 404", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newOpAPI()
			api.summary = tc.summary
			api.sessions = []map[string]any{} // the sessions API is there
			f := withOperator(t, api)
			answering(f, "fine")
			s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) {
				o.NoPreamble = true
				o.BusyTimeout = 300 * time.Millisecond
				setBusyPoll(o, fastPoll)
			}, nil)
			s.init(t)
			id := s.newSession(t, "/w")
			n := len(f.requestsFrom(0))
			if got := stopReason(t, s.prompt(t, id, "first")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if got, want := f.requestsFrom(n), []string{"POST /a2a SendStreamingMessage"}; !slices.Equal(got, want) {
				t.Errorf("the first prompt sent %q, want %q", got, want)
			}
			if tc.summary != nil {
				return
			}
			// The next prompt of the session asks the busy signal first.
			n = len(f.requestsFrom(0))
			stopReason(t, s.prompt(t, id, "second"))
			got := f.requestsFrom(n)
			if len(got) == 0 || got[0] != "GET /api/chat/sessions/"+id || got[len(got)-1] != "POST /a2a SendStreamingMessage" ||
				strings.Count(strings.Join(got, "\n"), "POST /a2a") != 1 {
				t.Errorf("the second prompt sent %q", got)
			}
		})
	}
}

// meet is a rendezvous of two requests: each is held until the other
// arrived, so both are answered only when they were in flight at once (a
// request sent after the other's answer never meets it and the test
// fails once the guard runs out).
type meet struct {
	once  [2]sync.Once
	there [2]chan struct{}
	t     *testing.T
}

func newMeet(t *testing.T) *meet {
	return &meet{there: [2]chan struct{}{make(chan struct{}), make(chan struct{})}, t: t}
}

// arrive marks side i arrived and waits for the other side.
func (m *meet) arrive(i int, what string) {
	m.once[i].Do(func() { close(m.there[i]) })
	select {
	case <-m.there[1-i]:
	case <-time.After(5 * time.Second):
		m.t.Errorf("%s was not in flight beside the other request", what)
	}
}

// TestRootsReadDuringNewSession: the roots the preamble needs are read
// while session/new runs, beside the auth probe (after the card), the
// three roots routes at once; the first prompt then sends its message
// first, with the preamble, and asks nothing else.
func TestRootsReadDuringNewSession(t *testing.T) {
	api := newOpAPI()
	api.roots = map[string]string{"proj": "/w"}
	f := withOperator(t, api)
	m := newMeet(t)
	f.operator = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/fs/roots" {
			m.arrive(0, "the roots lookup")
		}
		api.ServeHTTP(w, r)
	})
	f.getTask = func(rpcCall) any {
		m.arrive(1, "the auth probe")
		return &rpcErr{Code: -32001, Message: "Task not found"}
	}
	answering(f, "fine")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/w")
	got := f.requestsFrom(0)
	if len(got) == 0 || got[0] != "GET /.well-known/agent-card.json" {
		t.Fatalf("session/new sent %q, the card first", got)
	}
	for _, want := range []string{"POST /a2a GetTask", "GET /api/fs/roots", "GET /api/config", "GET /api/projects"} {
		if c := countOf(got, want); c != 1 {
			t.Errorf("session/new sent %s %d times: %q", want, c, got)
		}
	}
	n := len(got)
	if stop := stopReason(t, s.prompt(t, id, "first")); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	if got, want := f.requestsFrom(n), []string{"POST /a2a SendStreamingMessage"}; !slices.Equal(got, want) {
		t.Errorf("the first prompt sent %q, want %q", got, want)
	}
	if calls := f.callsOf("SendStreamingMessage"); len(calls) != 1 || !strings.HasPrefix(calls[0].text(), "[Context: ") ||
		!strings.Contains(calls[0].text(), "`proj` (/w)") {
		t.Errorf("sends %v", calls)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// TestClaimBesideProbe: session/new sends the hand-off claim beside the
// auth probe (after the card), not after it; a claimed session is still
// the answer.
func TestClaimBesideProbe(t *testing.T) {
	api := newOpAPI()
	m := newMeet(t)
	api.claim = func(string) (int, any) {
		m.arrive(0, "the hand-off claim")
		return 200, map[string]any{"session_id": "chat-console-7"}
	}
	f := withOperator(t, api)
	f.getTask = func(rpcCall) any {
		m.arrive(1, "the auth probe")
		return &rpcErr{Code: -32001, Message: "Task not found"}
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	if id := s.newSession(t, "/w"); id != "chat-console-7" {
		t.Errorf("session %q, want the claimed one", id)
	}
	got := f.requestsFrom(0)
	if len(got) == 0 || got[0] != "GET /.well-known/agent-card.json" {
		t.Fatalf("session/new sent %q, the card first", got)
	}
	for _, want := range []string{"POST /a2a GetTask", "POST /api/editor/handoff/claim"} {
		if c := countOf(got, want); c != 1 {
			t.Errorf("session/new sent %s %d times: %q", want, c, got)
		}
	}
}

// TestPromptsSendFirstWithoutOperatorAPI: against an agent without the
// operator API (every route answers 404, as the bench's agent), session/new
// learns it (the busy signal and the sessions list, once, beside the auth
// probe), and no prompt asks anything before its message: each sends its
// message alone, the second and third as the first (SPEC §19).
func TestPromptsSendFirstWithoutOperatorAPI(t *testing.T) {
	f := newFake(t)
	answering(f, "fine")
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.NoPreamble = true }, nil)
	s.init(t)
	id := s.newSession(t, "/w")
	got := f.requestsFrom(0)
	if len(got) == 0 || got[0] != "GET /.well-known/agent-card.json" || countOf(got, "GET /api/chat/sessions?limit=1") != 1 ||
		countOf(got, "GET /api/chat/sessions/"+id) != 1 {
		t.Fatalf("session/new sent %q: the card, then the busy signal and the sessions list once", got)
	}
	for _, text := range []string{"first", "second", "third"} {
		n := len(f.requestsFrom(0))
		if stop := stopReason(t, s.prompt(t, id, text)); stop != "end_turn" {
			t.Fatalf("stop %q", stop)
		}
		if got, want := f.requestsFrom(n), []string{"POST /a2a SendStreamingMessage"}; !slices.Equal(got, want) {
			t.Errorf("the %s prompt sent %q, want %q", text, got, want)
		}
	}
}

// TestResumedBusyChatWaitedAfterLearning: what session/new learnt of the
// operator API (the sessions list is there) never spares a chat this
// process did not mint its busy check: a resumed chat busy elsewhere is
// still waited for (SPEC §3.4), and its message is not sent while busy.
func TestResumedBusyChatWaitedAfterLearning(t *testing.T) {
	api := newOpAPI()
	api.summary = busyFor(-1, "TASK_STATE_WORKING")
	api.sessions = []map[string]any{}
	f := withOperator(t, api)
	answering(f, "fine")
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) {
		o.NoPreamble = true
		o.BusyTimeout = 200 * time.Millisecond
		setBusyPoll(o, fastPoll)
	}, nil)
	s.init(t)
	s.newSession(t, "/w")
	if got := f.requestsFrom(0); countOf(got, "GET /api/chat/sessions?limit=1") != 1 {
		t.Fatalf("session/new sent %q: the sessions list once", got)
	}
	id := s.resumeSession(t, "chat-elsewhere-1", "/w")
	n := len(f.requestsFrom(0))
	m := s.prompt(t, id, "hi")
	if m.Error == nil || errData(t, m)["state"] != "busy" {
		t.Fatalf("prompt on a busy chat: %s", m.Raw)
	}
	got := f.requestsFrom(n)
	if len(got) == 0 || got[0] != "GET /api/chat/sessions/chat-elsewhere-1" || countOf(got, "POST /a2a SendStreamingMessage") != 0 {
		t.Errorf("the prompt on a busy chat sent %q: the busy signal first, no message", got)
	}
}

// TestCancelBeforeFirstFrame: a cancel that comes while the message is
// sent but before the agent's first frame named the task still cancels
// the task on the agent, once its id is known (the stream is read on until
// then).
func TestCancelBeforeFirstFrame(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	f.mu.Lock()
	f.stream = func(w *sseWriter, c rpcCall) {
		<-release
		w.task("live-1", "TASK_STATE_SUBMITTED")
		w.status("live-1", "TASK_STATE_WORKING", nil)
	}
	f.mu.Unlock()
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SteerGrace = 0; o.NoPreamble = true }, nil)
	s.init(t)
	id := s.newSession(t, "/w")
	ch, _ := s.Start("session/prompt", promptArgs(id, "hi"))
	waitCalls(t, f, "SendStreamingMessage", 1)
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if stop := stopReason(t, s.Wait(ch, "prompt")); stop != "cancelled" {
		t.Fatalf("stop %q", stop)
	}
	once.Do(func() { close(release) }) // the first frame comes after the cancel
	waitCalls(t, f, "CancelTask", 1)
	if calls := f.callsOf("CancelTask"); len(calls) != 1 || calls[0].Params["id"] != "live-1" {
		t.Errorf("CancelTask calls %v, want one for live-1", calls)
	}
}

// connCounter counts the connections a test server accepted and the
// protocol of each request; cancelled is closed at the first CancelTask.
type connCounter struct {
	opened    atomic.Int32
	mu        sync.Mutex
	protos    []string
	cancelled chan struct{}
	once      sync.Once
}

// serve starts f behind a counting server (TLS with HTTP/2 when withTLS);
// it returns the server's certificate pool.
func (cc *connCounter) serve(t *testing.T, f *fakeAgent, withTLS bool) *x509.CertPool {
	t.Helper()
	cc.cancelled = make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		cc.mu.Lock()
		cc.protos = append(cc.protos, r.Proto)
		cc.mu.Unlock()
		if bytes.Contains(b, []byte(`"CancelTask"`)) {
			defer cc.once.Do(func() { close(cc.cancelled) })
		}
		f.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			cc.opened.Add(1)
		}
	}
	if withTLS {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	f.url = srv.URL
	if !withTLS {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

// TestOneConnection: over TLS, one HTTP/2 connection carries the card,
// the probe, session/new's other requests, the prompts' streams and a
// cancel; over plain HTTP, the connections session/new opened (one per
// request sent at once) carry both prompts: none is opened after it.
func TestOneConnection(t *testing.T) {
	for _, withTLS := range []bool{true, false} {
		name := "HTTP"
		if withTLS {
			name = "TLS"
		}
		t.Run(name, func(t *testing.T) {
			f := &fakeAgent{t: t, name: "Fake Agent"}
			var cc connCounter
			pool := cc.serve(t, f, withTLS)
			answering(f, "fine")
			s := startShim(t, f.url, func(o *Options, c *a2aclient.Config) {
				o.SteerGrace, o.NoPreamble = 0, true
				if pool != nil {
					tr, _ := binding.NewTransport()
					tr.TLSClientConfig = &tls.Config{RootCAs: pool}
					c.Transport = tr
				}
			}, nil)
			s.init(t)
			id := s.newSession(t, "/w")
			atNew := cc.opened.Load()
			if atNew > sentAfterCard {
				t.Errorf("session/new opened %d connections, more than the %d requests it sends at once", atNew, sentAfterCard)
			}
			stopReason(t, s.prompt(t, id, "first"))
			stopReason(t, s.prompt(t, id, "second"))
			if got := cc.opened.Load(); got != atNew {
				t.Errorf("two prompts after session/new opened %d new connections", got-atNew)
			}
			if !withTLS {
				return
			}
			f.mu.Lock()
			f.stream = func(w *sseWriter, c rpcCall) {
				w.task("live-3", "TASK_STATE_WORKING")
				select { // the agent works until it is cancelled
				case <-cc.cancelled:
				case <-time.After(10 * time.Second):
				}
			}
			f.mu.Unlock()
			ch, _ := s.Start("session/prompt", promptArgs(id, "third"))
			waitCalls(t, f, "SendStreamingMessage", 3)
			s.Notify("session/cancel", map[string]any{"sessionId": id})
			stopReason(t, s.Wait(ch, "prompt"))
			<-cc.cancelled
			if got := cc.opened.Load(); got != 1 {
				t.Errorf("%d connections over TLS, want one", got)
			}
			cc.mu.Lock()
			defer cc.mu.Unlock()
			for _, p := range cc.protos {
				if p != "HTTP/2.0" {
					t.Fatalf("protocols %q, want HTTP/2.0 only", cc.protos)
				}
			}
		})
	}
}
