package operator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
)

// TestLearnKeepsARefusedBusyRoute: a server whose busy route answers 405
// (the route itself refused, whatever the session) has it kept for the
// next launch, as every other part found absent is, while a 404 there (about
// that session only) is not kept (SPEC §19).
func TestLearnKeepsARefusedBusyRoute(t *testing.T) {
	for status, want := range map[int][]string{http.StatusMethodNotAllowed: {"session"}, http.StatusNotFound: nil} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/chat/sessions" {
				_, _ = w.Write([]byte(`{"sessions":[]}`))
				return
			}
			w.WriteHeader(status)
		}))
		o := New(binding.New(binding.Options{Origin: srv.URL}), srv.URL, func() a2a.Dialect { return a2a.V10 })
		var mu sync.Mutex
		var kept []string
		o.Remember(nil, func(part string) {
			mu.Lock()
			kept = append(kept, part)
			mu.Unlock()
		})
		o.Learn(context.Background(), "chat-1")
		srv.Close()
		mu.Lock()
		if !slices.Equal(kept, want) {
			t.Errorf("busy route answering %d: kept %q, want %q", status, kept, want)
		}
		mu.Unlock()
	}
}
