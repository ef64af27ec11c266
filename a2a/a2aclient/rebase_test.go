package a2aclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestRebaseUnderHub: behind a hub (--slug), an endpoint the card names on
// another origin, an unroutable host or a relative path lands under
// /agents/<slug> on --url's origin.
func TestRebaseUnderHub(t *testing.T) {
	c, err := New(Config{URL: "https://hub.example/", Slug: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ card, want string }{
		{"http://0.0.0.0:7870/a2a", "https://hub.example/agents/s1/a2a"},
		{"http://10.0.0.7:7870/a2a", "https://hub.example/agents/s1/a2a"},
		{"https://hub.example/agents/s1/a2a", "https://hub.example/agents/s1/a2a"},
		{"http://10.0.0.7/agents/s1/rpc", "https://hub.example/agents/s1/rpc"},
		{"a2a", "https://hub.example/agents/s1/a2a"},
		{"/a2a", "https://hub.example/agents/s1/a2a"},
	} {
		if got := c.at.rebase(tt.card); got != tt.want {
			t.Errorf("rebase(%q) = %q, want %q", tt.card, got, tt.want)
		}
	}
	plain, _ := New(Config{URL: "https://agent.example"})
	if got := plain.at.rebase("http://0.0.0.0:7870/a2a"); got != "https://agent.example/a2a" {
		t.Errorf("without a path: %q", got)
	}
}

// TestListTasksPages: ListTasks follows nextPageToken to the end, well
// past 50 pages, and stops on a token it has seen.
func TestListTasksPages(t *testing.T) {
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprint("repeating token ", loop), func(t *testing.T) {
			const pages = 90
			var calls int
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					ID     any            `json:"id"`
					Params map[string]any `json:"params"`
				}
				_ = json.NewDecoder(r.Body).Decode(&req)
				calls++
				n, _ := strconv.Atoi(fmt.Sprint(req.Params["pageToken"]))
				next := strconv.Itoa(n + 1)
				if loop {
					next = "7"
				}
				if n+1 >= pages {
					next = ""
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
					"tasks":         []any{map[string]any{"id": fmt.Sprintf("t%d", n), "contextId": "c", "status": map[string]any{"state": "TASK_STATE_COMPLETED"}}},
					"nextPageToken": next}})
			}))
			defer srv.Close()
			c, _ := New(Config{Endpoint: srv.URL, Version: "1.0"})
			tasks, err := c.ListTasks(context.Background(), "c", -1)
			if err != nil {
				t.Fatal(err)
			}
			if loop {
				// The first page names "7"; page "7" names "7" again: stop.
				if len(tasks) != 2 || calls != 2 {
					t.Errorf("a repeating token must stop the loop: %d tasks in %d calls", len(tasks), calls)
				}
				return
			}
			if len(tasks) != pages || tasks[pages-1].ID != fmt.Sprintf("t%d", pages-1) {
				t.Errorf("got %d tasks", len(tasks))
			}
		})
	}
}

// TestCardURLOrigin: a card URL (SPEC §12.8) is read where it is. Alone,
// its origin is the token's and the base: an endpoint the card names on
// another origin is rebased there, and nothing reaches the other origin.
// With --url too, the token stays on --url's origin: the card is read
// without it from its own origin, and its endpoint is rebased onto --url.
func TestCardURLOrigin(t *testing.T) {
	const tok = "tok-card-origin-0123456789"
	var other recorder
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r)
		http.NotFound(w, r)
	}))
	defer elsewhere.Close()
	var rec recorder
	self := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := rec.add(r)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/.well-known/coder/agent-card.json":
			fmt.Fprint(w, card10(elsewhere.URL+"/api/a2a/coder", "", true))
		case r.URL.Path == "/api/a2a/coder" && x.RPC == "GetTask":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer self.Close()
	cardURL := self.URL + "/api/.well-known/coder/agent-card.json"

	c := newClient(t, Config{CardURL: cardURL, Token: tok})
	if c.CardURL() != cardURL || c.Base() != self.URL {
		t.Fatalf("card URL %q, base %q", c.CardURL(), c.Base())
	}
	card, err := c.Discover(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if card.Endpoint != self.URL+"/api/a2a/coder" {
		t.Fatalf("endpoint %q, want it rebased onto the card's origin", card.Endpoint)
	}
	if err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if n := other.count(); n != 0 {
		t.Fatalf("the card's other origin got %d requests", n)
	}
	for _, r := range rec.all() {
		if r.Header.Get("Authorization") != "Bearer "+tok {
			t.Errorf("%s %s without the token", r.Method, r.Path)
		}
	}

	// --url names the agent's origin (elsewhere), the card lives on self.
	before := rec.count()
	c = newClient(t, Config{URL: elsewhere.URL, CardURL: cardURL, Token: tok})
	if card, err = c.Discover(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if card.Endpoint != elsewhere.URL+"/api/a2a/coder" {
		t.Fatalf("endpoint %q", card.Endpoint)
	}
	for _, r := range rec.all()[before:] {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the token went to the card's origin (%s %s), not --url's", r.Method, r.Path)
		}
	}
	if n := rec.count() - before; n != 1 {
		t.Errorf("card host got %d requests, want the card's", n)
	}
}
