package bridge

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
)

// Round trips (SPEC §19): the order and the count of the requests each
// phase sends, as the server read them.

// TestFirstPromptOfMintedSessionSendsFirst: the first prompt of a session
// this process minted asks no busy signal (nor the sessions list that
// tells a 404 apart): its message is the first and only request it sends,
// even when the operator API would call the chat busy. The next prompt
// asks the busy signal before its message (§3.4).
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
