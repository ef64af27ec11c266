package a2aclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestErrorsSayWhatWasGot: a server that answers something other than an
// agent card is not "unreachable": the error says what it answered, wraps
// ErrNoCard and the *HTTPError, and carries no advice of its own (the
// caller adds it once).
func TestErrorsSayWhatWasGot(t *testing.T) {
	for _, tt := range []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"404", "text/plain", "404 page not found", 404, "/.well-known/agent-card.json answered HTTP 404: 404 page not found"},
		{"500", "text/plain", "", 500, "/.well-known/agent-card.json answered HTTP 500"},
		{"HTML", "text/html", "<html><title>Welcome to nginx!</title></html>", 200,
			"/.well-known/agent-card.json answered an HTML page, not an agent card (HTTP 200; a proxy or web server answered): Welcome to nginx!"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c, err := New(Config{URL: srv.URL, retryWait: 1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Discover(context.Background())
			var herr *a2a.HTTPError
			if !errors.Is(err, a2a.ErrNoCard) || !errors.As(err, &herr) || herr.StatusCode != tt.status {
				t.Fatalf("want ErrNoCard and HTTPError %d, got %T %v", tt.status, err, err)
			}
			msg := err.Error()
			if want := "no agent card: " + srv.URL + tt.want; msg != want {
				t.Errorf("message\n%s\nwant\n%s", msg, want)
			}
			for _, no := range []string{"unreachable", "cannot reach", "--endpoint", "--url"} {
				if strings.Contains(msg, no) {
					t.Errorf("message says %q: %s", no, msg)
				}
			}
		})
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c2, _ := New(Config{URL: srv.URL, retryWait: 1})
	_, err := c2.Discover(context.Background())
	var ue *a2a.UnreachableError
	if !errors.As(err, &ue) || errors.Is(err, a2a.ErrNoCard) || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("an unreachable agent: %v", err)
	}
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "shim login") {
		t.Errorf("no URL: %v", err)
	}
}
