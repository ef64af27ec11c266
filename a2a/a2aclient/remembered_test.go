package a2aclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/remember"
)

// cardCache stands before an a2a-go v2 server's card handler as a cache
// or a CDN does: the card with an ETag, 304 to a matching If-None-Match
// (net/http's ServeContent). rename, when set, changes the card's name as
// served; hold, when set, keeps the card's answer until it is closed, and
// asked is told of each card request as it arrives.
type cardCache struct {
	rename atomic.Pointer[string]
	mu     sync.Mutex
	hold   chan struct{}
	asked  chan struct{}
}

func (cc *cardCache) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/agent-card.json" {
			next.ServeHTTP(w, r)
			return
		}
		cc.mu.Lock()
		hold, asked := cc.hold, cc.asked
		cc.mu.Unlock()
		if asked != nil {
			asked <- struct{}{}
		}
		if hold != nil {
			<-hold
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if name := cc.rename.Load(); name != nil {
			body = bytes.Replace(body, []byte(`"name":"SDK Agent"`), []byte(`"name":"`+*name+`"`), 1)
		}
		sum := sha256.Sum256(body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	})
}

// launch is one process of shim's against srv: a client on the state
// directory's remembered file, probed, its operator API asked for the
// roots and a hand-off, the file written when it ends.
func launch(t *testing.T, srv, dir string, before func(c *Client)) *Client {
	t.Helper()
	return launchWith(t, Config{URL: srv}, dir, before)
}

// launchWith is launch with cfg.
func launchWith(t *testing.T, cfg Config, dir string, before func(c *Client)) *Client {
	t.Helper()
	file := remember.Open(dir, nil)
	cfg.Remember = file
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(c)
	}
	ctx := context.Background()
	if err := c.Probe(ctx); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if _, err := c.Operator().Roots(ctx); err != nil {
		t.Fatalf("roots: %v", err)
	}
	if _, err := c.Operator().Claim(ctx, "/tmp"); !errors.Is(err, ErrNoOperator) {
		t.Fatalf("claim: %v", err)
	}
	file.Close(10 * time.Second)
	return c
}

// lines is each request as "METHOD path RPC", with the If-None-Match it
// carried.
func lines(rec *recorder) []string {
	var out []string
	for _, r := range rec.all() {
		l := strings.TrimSpace(r.Method + " " + r.Path + " " + r.RPC)
		if v := r.Header.Get("If-None-Match"); v != "" {
			l += " If-None-Match"
		}
		out = append(out, l)
	}
	slices.Sort(out) // the card and the probe go at once
	return out
}

// TestRememberedRelaunch: against a real a2a-go v2 server, a relaunch
// uses the card the first launch kept at once (the probe is answered while
// the server still holds the card's request), asks for the card again with
// its ETag (304), and asks none of the operator API routes that answered
// 404: two requests where the first launch made six (SPEC §19).
func TestRememberedRelaunch(t *testing.T) {
	rec := &recorder{}
	cc := &cardCache{}
	srv := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", func(h http.Handler) http.Handler { return recording(rec)(cc.wrap(h)) })
	dir := t.TempDir()

	launch(t, srv, dir, nil)
	first := lines(rec)
	want := []string{"GET /.well-known/agent-card.json", "GET /api/config", "GET /api/fs/roots", "GET /api/projects",
		"POST /a2a GetTask", "POST /api/editor/handoff/claim"}
	if !slices.Equal(first, want) {
		t.Fatalf("the first launch asked:\n%s\nwant:\n%s", strings.Join(first, "\n"), strings.Join(want, "\n"))
	}

	rec.mu.Lock()
	rec.reqs = nil
	rec.mu.Unlock()
	hold, asked := make(chan struct{}), make(chan struct{}, 4)
	cc.mu.Lock()
	cc.hold, cc.asked = hold, asked
	cc.mu.Unlock()
	launch(t, srv, dir, func(c *Client) {
		defer func() {
			cc.mu.Lock()
			cc.hold, cc.asked = nil, nil
			cc.mu.Unlock()
			close(hold)
		}()
		type found struct {
			card *a2a.Card
			err  error
		}
		done := make(chan found, 1)
		go func() {
			card, err := c.Discover(context.Background())
			done <- found{card, err}
		}()
		select {
		case f := <-done:
			if f.err != nil || f.card.Name != "SDK Agent" {
				t.Fatalf("discover: %+v, %v", f.card, f.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("discovery waits for the card's answer: the remembered card is not used")
		}
		<-asked // the card is asked again in the background
		if _, err := c.GetTask(context.Background(), "no-such-task", 0); !errors.As(err, new(*a2a.RPCError)) {
			t.Fatalf("GetTask while the card is held: %v", err)
		}
	})
	again := lines(rec)
	want = []string{"GET /.well-known/agent-card.json If-None-Match", "POST /a2a GetTask", "POST /a2a GetTask"}
	if !slices.Equal(again, want) {
		t.Errorf("the relaunch asked:\n%s\nwant (the test's GetTask and the probe):\n%s", strings.Join(again, "\n"), strings.Join(want, "\n"))
	}
}

// TestRememberedCardChanged: a card that changed since it was remembered
// is used as soon as it arrives: those told of a new card are told, the
// client uses it, and the next launch finds it remembered.
func TestRememberedCardChanged(t *testing.T) {
	rec := &recorder{}
	cc := &cardCache{}
	srv := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", func(h http.Handler) http.Handler { return recording(rec)(cc.wrap(h)) })
	dir := t.TempDir()
	launch(t, srv, dir, nil)

	renamed := "SDK Agent, renamed"
	cc.rename.Store(&renamed)
	var told []string
	c := launch(t, srv, dir, func(c *Client) {
		c.OnCardChange(func(card *a2a.Card) { told = append(told, card.Name) })
	})
	if got := c.KnownCard().Name; got != renamed {
		t.Errorf("the card in use is %q, want %q", got, renamed)
	}
	if !slices.Equal(told, []string{renamed}) {
		t.Errorf("told of %v", told)
	}
	kept := remember.Open(dir, nil).For(originOf(t, srv)).Card(srv + "/.well-known/agent-card.json")
	if kept == nil || !bytes.Contains(kept.Body, []byte(renamed)) {
		t.Errorf("the new card is not remembered: %+v", kept)
	}
}

// TestRememberedOtherOrigin: a client of another origin (the same host,
// another port) reads nothing the first kept: its card is fetched with no
// validator and its operator API routes are asked, and the first origin's
// entry is left as it was.
func TestRememberedOtherOrigin(t *testing.T) {
	recA, recB := &recorder{}, &recorder{}
	cc := &cardCache{}
	srvA := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", func(h http.Handler) http.Handler { return recording(recA)(cc.wrap(h)) })
	srvB := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", func(h http.Handler) http.Handler { return recording(recB)(cc.wrap(h)) })
	dir := t.TempDir()
	launch(t, srvA, dir, nil)
	keptA := remember.Open(dir, nil).For(originOf(t, srvA)).Card(srvA + "/.well-known/agent-card.json")
	if keptA == nil {
		t.Fatal("nothing remembered of the first origin")
	}

	launch(t, srvB, dir, nil)
	want := []string{"GET /.well-known/agent-card.json", "GET /api/config", "GET /api/fs/roots", "GET /api/projects",
		"POST /a2a GetTask", "POST /api/editor/handoff/claim"}
	if got := lines(recB); !slices.Equal(got, want) {
		t.Errorf("the other origin's launch asked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	after := remember.Open(dir, nil).For(originOf(t, srvA)).Card(srvA + "/.well-known/agent-card.json")
	if after == nil || !bytes.Equal(after.Body, keptA.Body) || !after.Checked.Equal(keptA.Checked) {
		t.Errorf("the first origin's entry changed: %+v, was %+v", after, keptA)
	}
	if n := len(recA.all()); n != 6 {
		t.Errorf("the first origin got %d requests, want the first launch's 6", n)
	}
}

func originOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := parseHTTP(raw)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Origin(u)
}

// TestRememberedOtherOriginSameCard: two agents of other origins whose
// card is read from the same --card-url: the second reads nothing the
// first kept (the card is fetched with no validator), since what is
// remembered is kept under the origin of --url.
func TestRememberedOtherOriginSameCard(t *testing.T) {
	recA, recB, recCard := &recorder{}, &recorder{}, &recorder{}
	cc := &cardCache{}
	srvA := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", recording(recA))
	srvB := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", recording(recB))
	cards := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", func(h http.Handler) http.Handler { return recording(recCard)(cc.wrap(h)) })
	dir := t.TempDir()
	cardURL := cards + "/.well-known/agent-card.json"
	launchWith(t, Config{URL: srvA, CardURL: cardURL}, dir, nil)
	launchWith(t, Config{URL: srvB, CardURL: cardURL}, dir, nil)
	if got := lines(recCard); !slices.Equal(got, []string{"GET /.well-known/agent-card.json", "GET /.well-known/agent-card.json"}) {
		t.Errorf("the card's server got:\n%s\nwant two plain reads", strings.Join(got, "\n"))
	}
	if got := lines(recB); !slices.Contains(got, "GET /api/fs/roots") {
		t.Errorf("the second agent's routes were not asked: %v", got)
	}
	launchWith(t, Config{URL: srvA, CardURL: cardURL}, dir, nil)
	if got := lines(recCard); len(got) != 3 || got[2] != "GET /.well-known/agent-card.json If-None-Match" {
		t.Errorf("the first agent's relaunch: %v; want its card asked again with its ETag", got)
	}
}

// TestRememberedCardOpensNothingAhead: connections are opened ahead of
// session/new's requests only while a card is to be read from the agent
// (they are opened beside that read); a relaunch whose card is remembered,
// or a client that knows its card, opens none: the requests it sends open
// what they need, and those it remembers absent are not sent (SPEC §19).
func TestRememberedCardOpensNothingAhead(t *testing.T) {
	srv := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", (&cardCache{}).wrap)
	dir := t.TempDir()
	launch(t, srv, dir, func(c *Client) {
		if !c.cardToRead() {
			t.Error("a first launch opens no connection ahead of its requests: no card is known or remembered")
		}
	})
	c := launch(t, srv, dir, func(c *Client) {
		if c.cardToRead() {
			t.Error("a relaunch with the card remembered opens connections ahead of its requests")
		}
	})
	if c.cardToRead() {
		t.Error("a client that knows its card opens connections ahead of its requests")
	}
}
