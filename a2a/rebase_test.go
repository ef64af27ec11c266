package a2a

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
		if got := c.rebase(tt.card); got != tt.want {
			t.Errorf("rebase(%q) = %q, want %q", tt.card, got, tt.want)
		}
	}
	plain, _ := New(Config{URL: "https://agent.example"})
	if got := plain.rebase("http://0.0.0.0:7870/a2a"); got != "https://agent.example/a2a" {
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
