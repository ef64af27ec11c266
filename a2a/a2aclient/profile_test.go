package a2aclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// geminiCapture reads a file of what @google/gemini-cli-a2a-server 0.25.2
// sent (package gemini's testdata).
func geminiCapture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "gemini", "testdata", "captures", "gemini-cli", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// geminiFake serves the Gemini CLI card and answers each message/stream
// with the next body.
type geminiFake struct {
	srv    *httptest.Server
	rec    recorder
	card   string
	bodies []string
}

func newGeminiFake(t *testing.T, card string, bodies ...string) *geminiFake {
	f := &geminiFake{card: card, bodies: bodies}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(strings.Replace(f.card, "http://localhost:41242/", f.srv.URL+"/", 1)))
			return
		}
		f.rec.add(r)
		body := ""
		if len(f.bodies) > 0 {
			body, f.bodies = f.bodies[0], f.bodies[1:]
		}
		sseStart(w)
		sseWrite(w, body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *geminiFake) client(t *testing.T, profile string) *Client {
	return newClient(t, Config{URL: f.srv.URL, Profile: profile})
}

func (f *geminiFake) streams() []recorded {
	var out []recorded
	for _, r := range f.rec.rpcs() {
		if r.RPC == "message/stream" {
			out = append(out, r)
		}
	}
	return out
}

func sentMessage(r recorded) map[string]any {
	m, _ := r.Params["message"].(map[string]any)
	return m
}

func lastStatus(t *testing.T, evs []a2a.Event) a2a.Event {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Kind != a2a.EventStatus {
		t.Fatalf("the stream does not end with a status: %s", kinds(evs))
	}
	return evs[len(evs)-1]
}

func geminiTurn(t *testing.T, c *Client, m a2a.OutMessage) []a2a.Event {
	t.Helper()
	s, err := c.Stream(ctxT(t), m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := drain(t, s)
	if err.Error() != "EOF" {
		t.Fatalf("stream ended with %v", err)
	}
	return evs
}

// TestGeminiProfileChoice: the Gemini CLI profile applies to the card of
// that name (auto), to any card (gemini-cli), or to none (generic).
func TestGeminiProfileChoice(t *testing.T) {
	// generic turns recognition off: the server's input-required is a park.
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"))
	c := f.client(t, ProfileGeneric)
	s, err := c.Stream(context.Background(), a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := drain(t, s)
	s.Close()
	if end := lastStatus(t, evs); end.Status.State != a2a.StateInputRequired {
		t.Fatalf("generic: %s", end.Status.State)
	}
	if c.KnownCard().NoReplay {
		t.Fatal("generic: NoReplay set")
	}
	if _, ok := sentMessage(f.streams()[0])["metadata"]; ok {
		t.Fatal("generic: agent settings sent")
	}
	// gemini-cli applies it whatever the card's name.
	card := strings.Replace(geminiCapture(t, "card.json"), "Gemini SDLC Agent", "my gemini", 1)
	f2 := newGeminiFake(t, card, geminiCapture(t, "text.sse"))
	evs = geminiTurn(t, f2.client(t, ProfileGeminiCLI), a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	if end := lastStatus(t, evs); end.Status.State != a2a.StateCompleted {
		t.Fatalf("gemini-cli: %s", end.Status.State)
	}
	// auto does not apply it to another card.
	f3 := newGeminiFake(t, card, geminiCapture(t, "text.sse"))
	c3 := f3.client(t, ProfileAuto)
	s, _ = c3.Stream(context.Background(), a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	evs, _ = drain(t, s)
	s.Close()
	if end := lastStatus(t, evs); end.Status.State != a2a.StateInputRequired {
		t.Fatalf("auto, other card: %s", end.Status.State)
	}
}

// TestGeminiProfileAnyDialect: the Gemini CLI profile named by
// --agent-profile is the binding whatever dialect the card is read in
// (the server speaks 0.3, and so does its profile): with --a2a-version 1.0
// the message still goes as message/stream and the final input-required
// still ends the turn.
func TestGeminiProfileAnyDialect(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"))
	c := newClient(t, Config{URL: f.srv.URL, Profile: ProfileGeminiCLI, Version: "1.0"})
	evs := geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	if d := c.KnownCard().Dialect; d != a2a.V10 {
		t.Fatalf("the card was read as %s", d)
	}
	if end := lastStatus(t, evs); end.Status.State != a2a.StateCompleted {
		t.Fatalf("gemini-cli at 1.0: %s", end.Status.State)
	}
	if n := len(f.streams()); n != 1 {
		t.Fatalf("%d message/stream requests, want 1", n)
	}
}
