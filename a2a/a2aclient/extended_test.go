package a2aclient_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
)

// TestExtendedCardRealServer: a card with capabilities.extendedAgentCard
// (0.3 supportsAuthenticatedExtendedCard) has its extended card read after
// the probe succeeds, over each binding and dialect: its name and skills
// are used from then on, and OnCardChange hears of it.
func TestExtendedCardRealServer(t *testing.T) {
	for _, tt := range []struct{ name, binding, dialect, route string }{
		{"jsonrpc 1.0", "", "", "POST /a2a"},
		{"jsonrpc 0.3", "", "0.3", "POST /a2a"},
		{"http+json", "http+json", "", "GET /rest/extendedAgentCard"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := startReal(t, agent.Options{Name: "Go Agent", Binding: tt.binding, Dialect: tt.dialect, Extended: true})
			c := realClient(t, url, a2aclient.Config{})
			ctx := tctx(t)
			card, err := c.Discover(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !card.ExtendedCard || card.Extended || len(card.Skills) != 1 {
				t.Fatalf("public card %+v", card)
			}
			var changed []*a2a.Card
			var mu sync.Mutex
			c.OnCardChange(func(c *a2a.Card) { mu.Lock(); changed = append(changed, c); mu.Unlock() })
			if err := c.Probe(ctx); err != nil {
				t.Fatal(err)
			}
			checkExtendedCard(t, c.KnownCard())
			mu.Lock()
			if len(changed) != 1 || changed[0].Name != "Go Agent (signed in)" {
				t.Errorf("OnCardChange saw %v", changed)
			}
			mu.Unlock()
			if tt.binding != "" && !strings.Contains(rec.all(), tt.route) {
				t.Errorf("no %s: %s", tt.route, rec.all())
			}
			// Later calls still work (the same interface).
			s, err := c.Stream(ctx, a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hello"}}})
			if err != nil {
				t.Fatal(err)
			}
			if evs, err := readAll(t, s); err != nil || lastState(evs) != a2a.StateCompleted {
				t.Errorf("stream after the extended card: %v %v", lastState(evs), err)
			}
		})
	}
}

// checkExtendedCard checks the card in use once the real server's
// extended card was read (TestExtendedCardRealServer): its name and its
// second skill.
func checkExtendedCard(t *testing.T, card *a2a.Card) {
	t.Helper()
	if card.Name != "Go Agent (signed in)" || !card.Extended || len(card.Skills) != 2 {
		t.Fatalf("extended card %+v", card)
	}
	sk := card.Skills[1]
	if sk.ID != "review" || sk.Name != "review" || sk.Description != "reviews a change" || len(sk.Examples) != 1 || sk.Examples[0] != "review my last commit" {
		t.Errorf("skill %+v", sk)
	}
}

// TestExtendedCardFailureKeepsPublic: an extended card that cannot be
// read leaves the public card in use, logged; one on another origin has
// its interface rebased onto --url's.
func TestExtendedCardFailureKeepsPublic(t *testing.T) {
	var ext string
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"name":"public","capabilities":{"extendedAgentCard":true},"skills":[{"id":"a","name":"a"}],`+
			`"supportedInterfaces":[{"url":"http://`+r.Host+`/v1","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`)
	})
	mux.HandleFunc("GET /v1/tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found"}}`)
	})
	mux.HandleFunc("GET /v1/extendedAgentCard", func(w http.ResponseWriter, r *http.Request) {
		if ext == "" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"not configured"}}`)
			return
		}
		io.WriteString(w, ext)
	})
	mux.HandleFunc("GET /v2/tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"moved","status":{"state":"TASK_STATE_COMPLETED"}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var logs strings.Builder
	var mu sync.Mutex
	c := realClient(t, srv.URL, a2aclient.Config{Log: logger(&logs, &mu)})
	if err := c.Probe(tctx(t)); err != nil {
		t.Fatal(err)
	}
	if card := c.KnownCard(); card.Name != "public" || card.Extended {
		t.Errorf("card %+v", card)
	}
	mu.Lock()
	if !strings.Contains(logs.String(), "keeping the public card") {
		t.Errorf("not logged: %s", logs.String())
	}
	mu.Unlock()

	ext = `{"name":"private","capabilities":{"extendedAgentCard":true},` +
		`"supportedInterfaces":[{"url":"http://elsewhere.invalid:1/v2","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`
	c = realClient(t, srv.URL, a2aclient.Config{})
	if err := c.Probe(tctx(t)); err != nil {
		t.Fatal(err)
	}
	card := c.KnownCard()
	if card.Name != "private" || card.Endpoint != srv.URL+"/v2" {
		t.Fatalf("card %+v", card)
	}
	if task, err := c.GetTask(tctx(t), "x", 0); err != nil || task.ID != "moved" {
		t.Errorf("the extended card's interface is not used: %+v %v", task, err)
	}
}

// TestRequiredExtension: a card extension with required: true that shim
// does not speak makes every call fail with *UnsupportedError naming it,
// before any request; one shim speaks is fine.
func TestRequiredExtension(t *testing.T) {
	url, rec := startReal(t, agent.Options{Name: "Go Agent", Required: "https://example.com/ext/secret-handshake"})
	c := realClient(t, url, a2aclient.Config{})
	err := c.Probe(tctx(t))
	var ue *a2a.UnsupportedError
	if !errors.As(err, &ue) || ue.URI != "https://example.com/ext/secret-handshake" {
		t.Fatalf("probe: %v", err)
	}
	if _, err := c.Stream(tctx(t), a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hi"}}}); !errors.As(err, &ue) {
		t.Errorf("stream: %v", err)
	}
	if strings.Contains(rec.all(), "POST /a2a") {
		t.Errorf("a call was made: %s", rec.all())
	}

	url, _ = startReal(t, agent.Options{Name: "Go Agent", Required: a2a.ExtToolCall})
	if err := realClient(t, url, a2aclient.Config{}).Probe(tctx(t)); err != nil {
		t.Errorf("a required extension shim speaks: %v", err)
	}
}

// TestNonStreamingRealServer: against a2a-go v2 whose card says
// streaming: false, the send asks to return at once, the task is polled
// with GetTask, and the answer arrives in full; a cancel right after the
// send's answer cancels the running task.
func TestNonStreamingRealServer(t *testing.T) {
	for _, b := range bindings[:2] {
		t.Run(b.name, func(t *testing.T) {
			url, rec := startReal(t, agent.Options{Name: "Go Agent", Binding: b.binding, NoStreaming: true})
			c := realClient(t, url, a2aclient.WithPollInterval(a2aclient.Config{}, 50*time.Millisecond))
			ctx := tctx(t)
			s, err := c.Stream(ctx, a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "use the tool"}}})
			if err != nil {
				t.Fatal(err)
			}
			evs, err := readAll(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := answerOf(evs); got != "The README says it is a demo project." || lastState(evs) != a2a.StateCompleted {
				t.Errorf("answer %q state %q", got, lastState(evs))
			}
			if strings.Contains(rec.all(), "stream") {
				t.Errorf("a streaming call: %s", rec.all())
			}
			if n := strings.Count(rec.all(), map[string]string{"": "POST /a2a", "http+json": "GET /rest/tasks/"}[b.binding]); n < 2 {
				t.Errorf("the task was not polled: %s", rec.all())
			}

			s, err = c.Stream(ctx, a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "slow please"}}})
			if err != nil {
				t.Fatal(err)
			}
			first, err := s.Next()
			if err != nil || first.TaskID == "" {
				t.Fatalf("first event %+v %v", first, err)
			}
			if err := c.CancelTask(ctx, first.TaskID); err != nil {
				t.Fatal(err)
			}
			evs, err = readAll(t, s)
			if err != nil || lastState(evs) != a2a.StateCanceled {
				t.Errorf("after cancel: %q %v", lastState(evs), err)
			}
		})
	}
}
