package bridge

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/threads"
)

// headerLog records the method, path and A2A-Version of every request.
type headerLog struct {
	mu   sync.Mutex
	reqs []string
	miss []string
}

func (l *headerLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r.Method+" "+r.URL.Path)
		if r.Header.Get("A2A-Version") != "1.0" {
			l.miss = append(l.miss, r.Method+" "+r.URL.Path+" (A2A-Version "+r.Header.Get("A2A-Version")+")")
		}
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// TestA2AVersionEverywhere: against the real a2a-go v2 server, in both
// bindings, every request of the 1.0 dialect carries A2A-Version: 1.0:
// the card, the A2A calls, and every operator API call (probes included)
// of new, a prompt, a park and its answer, a cancel, list and load (SPEC
// §12.8).
func TestA2AVersionEverywhere(t *testing.T) {
	for _, binding := range []string{"", "http+json"} {
		t.Run("binding "+binding, func(t *testing.T) {
			log := &headerLog{}
			srv := httptest.NewUnstartedServer(nil)
			srv.Start()
			t.Cleanup(srv.Close)
			srv.Config.Handler = log.wrap(agent.NewHandler(srv.URL, agent.Options{Name: "Go Agent", Delay: 1, Binding: binding}))
			s := startShim(t, srv.URL, withIndex(threads.Open(t.TempDir(), nil), srv.URL, nil), nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "hello")); got != "end_turn" {
				t.Fatalf("prompt: %q", got)
			}
			s.prompt(t, id, "question: which branch?")
			s.prompt(t, id, "main")
			ch, _ := s.Start("session/prompt", promptArgs(id, "slow answer"))
			s.Notify("session/cancel", map[string]any{"sessionId": id})
			s.Wait(ch, "the cancelled prompt")
			listSessions(t, s, "/tmp")
			other := startShim(t, srv.URL, nil, nil)
			other.init(t)
			if m := other.Call("session/load", loadArgs(id, "/tmp")); m.Error != nil {
				t.Fatalf("load: %v", m.Error)
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			seen := map[string]bool{}
			for _, r := range log.reqs {
				seen[r] = true
			}
			for _, want := range []string{"GET /.well-known/agent-card.json", "POST /api/editor/handoff/claim", "GET /api/chat/sessions",
				"GET /api/chat/sessions/" + id + "/turns"} {
				if !seen[want] {
					t.Errorf("no %s among %v", want, log.reqs)
				}
			}
			if len(log.miss) > 0 {
				t.Errorf("requests without A2A-Version: 1.0: %v", log.miss)
			}
		})
	}
}
