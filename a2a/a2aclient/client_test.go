package a2aclient

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/wire/request"
)

// agentServer is a fake A2A server: it serves card at the well-known path
// under prefix, answers unary calls with taskResult and streams with a
// working + completed status.
func agentServer(t *testing.T, rec *recorder, prefix string, card func(base string) string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := rec.add(r)
		switch {
		case r.Method == http.MethodGet && r.URL.Path == prefix+"/.well-known/agent-card.json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(card(srv.URL)))
		case r.Method == http.MethodPost && r.URL.Path == prefix+"/a2a":
			switch x.RPC {
			case "SendStreamingMessage", "message/stream", "SubscribeToTask", "tasks/resubscribe":
				sseStart(w)
				sseFrames(w, frameWorking, frameCompleted)
			default:
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(taskResult))
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// exercise makes every kind of call the client has.
func exercise(t *testing.T, c *Client) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := c.GetTask(ctx, "t1", 0); err != nil {
		t.Fatalf("GetTask: %v", err)
	}
	if err := c.CancelTask(ctx, "t1"); err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	s, err := c.Stream(ctx, a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	evs, err := drain(t, s)
	if !errors.Is(err, io.EOF) || kinds(evs) != "status:working,status:completed" {
		t.Fatalf("Stream: %s %v", kinds(evs), err)
	}
	s.Close()
	s, err = c.Resubscribe(ctx, "t1")
	if err != nil {
		t.Fatalf("Resubscribe: %v", err)
	}
	if _, err := drain(t, s); !errors.Is(err, io.EOF) {
		t.Fatalf("Resubscribe: %v", err)
	}
	s.Close()
}

func TestHeadersAndMethods10(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(base string) string { return card10(base+"/a2a", "tenant-7", true) })
	c := newClient(t, Config{URL: srv.URL, Token: "sekret", UserAgent: "shim-test/1"})
	exercise(t, c)

	reqs := rec.all()
	if len(reqs) != 5 {
		t.Fatalf("want card + 4 calls, got %d requests", len(reqs))
	}
	card := reqs[0]
	if card.Method != http.MethodGet || card.Path != "/.well-known/agent-card.json" {
		t.Errorf("card request: %s %s", card.Method, card.Path)
	}
	if card.Header.Get("A2A-Version") != "1.0" || card.Header.Get("Authorization") != "Bearer sekret" {
		t.Errorf("card request headers: %v", card.Header)
	}
	wantMethods := []string{"GetTask", "CancelTask", "SendStreamingMessage", "SubscribeToTask"}
	for i, r := range reqs[1:] {
		if r.RPC != wantMethods[i] {
			t.Errorf("call %d: method %q, want %q", i, r.RPC, wantMethods[i])
		}
		if r.Path != "/a2a" {
			t.Errorf("%s went to %s", r.RPC, r.Path)
		}
		checkHeaders10(t, r)
	}
	// The 1.0 message encoding.
	msg, _ := reqs[3].Params["message"].(map[string]any)
	if msg["role"] != "ROLE_USER" || msg["contextId"] != "c1" || msg["messageId"] == "" || msg["kind"] != nil {
		t.Errorf("1.0 message: %v", msg)
	}
	if reqs[1].Params["id"] != "t1" || reqs[1].Params["historyLength"] != float64(0) {
		t.Errorf("GetTask params: %v", reqs[1].Params)
	}
}

// checkHeaders10 checks the headers of a 1.0 call of TestHeadersAndMethods10:
// its content type, version, extensions, token, user agent, Accept, and
// the card's tenant in its params.
func checkHeaders10(t *testing.T, r recorded) {
	t.Helper()
	h := r.Header
	if h.Get("Content-Type") != "application/json" {
		t.Errorf("%s: Content-Type %q", r.RPC, h.Get("Content-Type"))
	}
	if h.Get("A2A-Version") != "1.0" {
		t.Errorf("%s: A2A-Version %q", r.RPC, h.Get("A2A-Version"))
	}
	ext := h.Get("A2A-Extensions")
	if !strings.Contains(ext, a2a.ExtToolCall) || !strings.Contains(ext, a2a.ExtCost) {
		t.Errorf("%s: A2A-Extensions %q", r.RPC, ext)
	}
	if h.Get("X-A2A-Extensions") != "" {
		t.Errorf("%s: 1.0 sent X-A2A-Extensions", r.RPC)
	}
	if h.Get("Authorization") != "Bearer sekret" {
		t.Errorf("%s: Authorization %q", r.RPC, h.Get("Authorization"))
	}
	if h.Get("User-Agent") != "shim-test/1" {
		t.Errorf("%s: User-Agent %q", r.RPC, h.Get("User-Agent"))
	}
	stream := r.RPC == "SendStreamingMessage" || r.RPC == "SubscribeToTask"
	if stream != (h.Get("Accept") == "text/event-stream") {
		t.Errorf("%s: Accept %q", r.RPC, h.Get("Accept"))
	}
	if r.Params["tenant"] != "tenant-7" {
		t.Errorf("%s: tenant not copied into params: %v", r.RPC, r.Params)
	}
}

func TestHeadersAndMethods03(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(base string) string { return card03(base+"/a2a", true) })
	c := newClient(t, Config{URL: srv.URL})
	exercise(t, c)
	if card := c.KnownCard(); card == nil || card.Dialect != a2a.V03 {
		t.Fatalf("card: %+v", card)
	}
	reqs := rec.all()
	if len(reqs) != 5 {
		t.Fatalf("want card + 4 calls, got %d requests", len(reqs))
	}
	if reqs[0].Header.Get("A2A-Version") != "1.0" {
		t.Errorf("the card is always asked for with A2A-Version: 1.0, got %v", reqs[0].Header)
	}
	wantMethods := []string{"tasks/get", "tasks/cancel", "message/stream", "tasks/resubscribe"}
	for i, r := range reqs[1:] {
		if r.RPC != wantMethods[i] {
			t.Errorf("call %d: method %q, want %q", i, r.RPC, wantMethods[i])
		}
		h := r.Header
		if _, ok := h["A2a-Version"]; ok {
			t.Errorf("%s: 0.3 sent A2A-Version %q", r.RPC, h.Get("A2A-Version"))
		}
		if h.Get("A2A-Extensions") != "" {
			t.Errorf("%s: 0.3 sent A2A-Extensions", r.RPC)
		}
		if ext := h.Get("X-A2A-Extensions"); !strings.Contains(ext, a2a.ExtToolCall) || !strings.Contains(ext, a2a.ExtCost) {
			t.Errorf("%s: X-A2A-Extensions %q", r.RPC, ext)
		}
		if h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", r.RPC, h.Get("Content-Type"))
		}
		if h.Get("Authorization") != "" {
			t.Errorf("%s: Authorization sent without a token", r.RPC)
		}
		stream := r.RPC == "message/stream" || r.RPC == "tasks/resubscribe"
		if stream != (h.Get("Accept") == "text/event-stream") {
			t.Errorf("%s: Accept %q", r.RPC, h.Get("Accept"))
		}
	}
	msg, _ := reqs[3].Params["message"].(map[string]any)
	if msg["role"] != "user" || msg["kind"] != "message" {
		t.Errorf("0.3 message: %v", msg)
	}
}

// TestTenantOnlyFor10: a 1.0 card's tenant is not sent when 0.3 is forced.
func TestTenantOnlyFor10(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(base string) string { return card10(base+"/a2a", "tenant-7", true) })
	c := newClient(t, Config{URL: srv.URL, Version: "0.3"})
	if _, err := c.GetTask(ctxT(t), "t1", -1); err != nil {
		t.Fatal(err)
	}
	r := rec.rpcs()
	if len(r) != 1 || r[0].RPC != "tasks/get" {
		t.Fatalf("calls: %+v", r)
	}
	if _, ok := r[0].Params["tenant"]; ok {
		t.Errorf("0.3 call carries a tenant: %v", r[0].Params)
	}
	if n, all := r[0].Params["historyLength"], history03(); n != float64(all) {
		t.Errorf("the whole history in 0.3 asks for history03Max messages (TestGetTaskWholeHistory): %v", r[0].Params)
	}
}

// history03 is the historyLength a 0.3 request for the whole history
// sends (request.HistoryLength).
func history03() int {
	n, _ := request.HistoryLength(a2a.V03, a2a.HistoryAll)
	return n
}

func TestSlugPrefix(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "/agents/bot", func(base string) string {
		return card10(base+"/agents/bot/a2a", "", true)
	})
	c := newClient(t, Config{URL: srv.URL + "/", Slug: "bot", Token: "tok"})
	if got, want := c.Base(), srv.URL+"/agents/bot"; got != want {
		t.Errorf("Base() = %q, want %q", got, want)
	}
	exercise(t, c)
	for _, r := range rec.all() {
		if !strings.HasPrefix(r.Path, "/agents/bot/") {
			t.Errorf("%s %s (%s) is not under the slug prefix", r.Method, r.Path, r.RPC)
		}
	}
	if rec.all()[0].Path != "/agents/bot/.well-known/agent-card.json" {
		t.Errorf("card path %q", rec.all()[0].Path)
	}
}

// TestExplicitEndpointSkipsCard: --endpoint makes no card request.
func TestExplicitEndpointSkipsCard(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(string) string { t.Error("card fetched"); return "{}" })
	c := newClient(t, Config{Endpoint: srv.URL + "/a2a", Version: "0.3"})
	if _, err := c.GetTask(ctxT(t), "t1", 0); err != nil {
		t.Fatal(err)
	}
	if r := rec.all(); len(r) != 1 || r[0].RPC != "tasks/get" {
		t.Errorf("requests: %+v", r)
	}
}

// TestCardOtherOriginRebased: the card names an endpoint on another
// server; every call goes to --url's origin instead, with the token, and
// the other server is never contacted.
func TestCardOtherOriginRebased(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		sseStart(w)
		sseFrames(w, frameCompleted)
	}))
	defer other.Close()
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(string) string { return card10(other.URL+"/a2a", "", true) })
	logs := &logBuffer{}
	c := newClient(t, Config{URL: srv.URL, Token: "sekret", Log: logs.logger()})
	card, err := c.Discover(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if card.Endpoint != srv.URL+"/a2a" {
		t.Errorf("endpoint %q not rebased onto %s", card.Endpoint, srv.URL)
	}
	exercise(t, c)
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the card's other origin got %d requests", n)
	}
	for _, r := range rec.rpcs() {
		if r.Header.Get("Authorization") != "Bearer sekret" {
			t.Errorf("%s: no token on --url's origin", r.RPC)
		}
	}
	if !strings.Contains(logs.String(), "another origin") {
		t.Errorf("the rebase was not logged: %s", logs.String())
	}
	if strings.Contains(logs.String(), "sekret") {
		t.Errorf("the token appears in the log")
	}
}

// TestEndpointOtherOriginNoToken: --endpoint skips the card and the
// rebase, but the token still goes only to --url's origin.
func TestEndpointOtherOriginNoToken(t *testing.T) {
	rec := &recorder{}
	other := agentServer(t, rec, "", func(string) string { return "{}" })
	logs := &logBuffer{}
	c := newClient(t, Config{URL: "https://agent.example.com", Endpoint: other.URL + "/a2a", Token: "sekret", Log: logs.logger()})
	exercise(t, c)
	if rec.count() != 4 {
		t.Fatalf("%d requests", rec.count())
	}
	for _, r := range rec.all() {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("%s: the token went to another origin", r.RPC)
		}
	}
	if !strings.Contains(logs.String(), "not sending the token") || strings.Contains(logs.String(), "sekret") {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestCardUnroutableHostRebased: a card endpoint on 0.0.0.0 (a server
// that printed its bind address) is rebased onto --url's origin.
func TestCardUnroutableHostRebased(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(base string) string {
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
		return card10("http://0.0.0.0:"+port+"/a2a", "", true)
	})
	c := newClient(t, Config{URL: srv.URL, Token: "sekret"})
	card, err := c.Discover(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if card.Endpoint != srv.URL+"/a2a" {
		t.Errorf("endpoint %q, want %q", card.Endpoint, srv.URL+"/a2a")
	}
	if _, err := c.GetTask(ctxT(t), "t1", 0); err != nil {
		t.Fatal(err)
	}
}

func TestRebase(t *testing.T) {
	tests := []struct {
		url, slug, endpoint, want string
	}{
		// Same origin: kept.
		{"https://agent.example.com", "", "https://agent.example.com/a2a", "https://agent.example.com/a2a"},
		{"https://agent.example.com:443", "", "https://AGENT.example.com/a2a", "https://AGENT.example.com/a2a"},
		// Another origin: the path goes onto --url's origin.
		{"https://agent.example.com", "", "https://other.example.com/rpc?x=1", "https://agent.example.com/rpc?x=1"},
		{"https://agent.example.com", "", "http://agent.example.com/a2a", "https://agent.example.com/a2a"},
		{"https://agent.example.com", "", "https://agent.example.com:8443/a2a", "https://agent.example.com/a2a"},
		// Loopback while --url is not loopback: unroutable from here.
		{"https://agent.example.com", "", "http://127.0.0.1:8080/a2a", "https://agent.example.com/a2a"},
		{"https://agent.example.com", "", "http://localhost:8080/a2a", "https://agent.example.com/a2a"},
		{"https://agent.example.com", "", "http://[::1]:8080/a2a", "https://agent.example.com/a2a"},
		{"https://agent.example.com", "", "http://0.0.0.0:8080/a2a", "https://agent.example.com/a2a"},
		// Loopback --url, same loopback origin: kept.
		{"http://127.0.0.1:7870", "", "http://127.0.0.1:7870/a2a", "http://127.0.0.1:7870/a2a"},
		// Loopback --url, card on 0.0.0.0 of the same port: rebased.
		{"http://127.0.0.1:7870", "", "http://0.0.0.0:7870/a2a", "http://127.0.0.1:7870/a2a"},
		// Relative endpoint: resolved against the base.
		{"https://agent.example.com", "", "/a2a", "https://agent.example.com/a2a"},
	}
	for _, tt := range tests {
		c := newClient(t, Config{URL: tt.url, Slug: tt.slug, Token: "x"})
		if got := c.at.rebase(tt.endpoint); got != tt.want {
			t.Errorf("url %s: rebase(%q) = %q, want %q", tt.url, tt.endpoint, got, tt.want)
		}
	}
}

// TestRedirectNotFollowedWithToken: a redirect is never followed with the
// token attached, neither for unary calls nor for streams nor the card.
func TestRedirectNotFollowedWithToken(t *testing.T) {
	var targetHits, targetAuth atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
		if r.Header.Get("Authorization") != "" {
			targetAuth.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(card10("http://"+r.Host+"/a2a", "", true)))
	}))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()

	// The card.
	c := newClient(t, Config{URL: redirector.URL, Token: "sekret"})
	_, err := c.Discover(ctxT(t))
	var he *a2a.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("card behind a redirect: want HTTPError 307, got %v", err)
	}
	// Unary and stream calls to an explicit endpoint.
	c = newClient(t, Config{URL: redirector.URL, Endpoint: redirector.URL + "/a2a", Token: "sekret"})
	_, err = c.GetTask(ctxT(t), "t1", 0)
	if !errors.As(err, &he) || he.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("GetTask behind a redirect: want HTTPError 307, got %v", err)
	}
	_, err = c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
	if !errors.As(err, &he) || he.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("Stream behind a redirect: want HTTPError 307, got %v", err)
	}
	if n := targetAuth.Load(); n != 0 {
		t.Fatalf("the redirect target received the token %d time(s)", n)
	}
	if n := targetHits.Load(); n != 0 {
		t.Errorf("the redirect target was contacted %d time(s)", n)
	}
	if strings.Contains(err.Error(), "sekret") {
		t.Errorf("the error names the token: %v", err)
	}
}

// countingTransport counts dials and fails them: no request can leave.
func countingTransport(dials *atomic.Int32) *http.Transport {
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, errors.New("test transport: no network")
	}}
}

// TestInsecureHTTPRefused: a token over plain http to a non-loopback host
// is refused before any connection, unless AllowInsecureHTTP.
func TestInsecureHTTPRefused(t *testing.T) {
	var dials atomic.Int32
	c := newClient(t, Config{URL: "http://example.invalid", Token: "sekret", Transport: countingTransport(&dials)})
	if _, err := c.Discover(ctxT(t)); !errors.Is(err, a2a.ErrInsecure) {
		t.Errorf("card: want ErrInsecure, got %v", err)
	}
	c = newClient(t, Config{URL: "http://example.invalid", Endpoint: "http://example.invalid/a2a", Token: "sekret", Transport: countingTransport(&dials)})
	if _, err := c.GetTask(ctxT(t), "t1", 0); !errors.Is(err, a2a.ErrInsecure) {
		t.Errorf("GetTask: want ErrInsecure, got %v", err)
	}
	if _, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}}); !errors.Is(err, a2a.ErrInsecure) {
		t.Errorf("Stream: want ErrInsecure, got %v", err)
	}
	if n := dials.Load(); n != 0 {
		t.Fatalf("%d connection(s) attempted before refusing", n)
	}
	if !strings.Contains(a2a.ErrInsecure.Error(), "--allow-insecure-http") {
		t.Errorf("the error must name the flag: %v", a2a.ErrInsecure)
	}

	// No token: nothing to protect, the request goes out.
	c = newClient(t, Config{URL: "http://example.invalid", Transport: countingTransport(&dials)})
	if _, err := c.Discover(ctxT(t)); errors.Is(err, a2a.ErrInsecure) || err == nil {
		t.Errorf("no token: want a connection error, got %v", err)
	}
	if dials.Load() == 0 {
		t.Error("no token: no connection attempted")
	}
	// AllowInsecureHTTP: the request goes out.
	dials.Store(0)
	c = newClient(t, Config{URL: "http://example.invalid", Token: "sekret", AllowInsecureHTTP: true, Transport: countingTransport(&dials)})
	if _, err := c.Discover(ctxT(t)); errors.Is(err, a2a.ErrInsecure) || err == nil {
		t.Errorf("AllowInsecureHTTP: want a connection error, got %v", err)
	}
	if dials.Load() == 0 {
		t.Error("AllowInsecureHTTP: no connection attempted")
	}
	// https is fine.
	dials.Store(0)
	c = newClient(t, Config{URL: "https://example.invalid", Token: "sekret", Transport: countingTransport(&dials)})
	if _, err := c.Discover(ctxT(t)); errors.Is(err, a2a.ErrInsecure) || dials.Load() == 0 {
		t.Errorf("https: want a connection attempt, got %v after %d dials", err, dials.Load())
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "a.localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"0.0.0.0": false, "example.com": false, "10.0.0.1": false, "localhost.example.com": false,
	} {
		if got := auth.IsLoopback(host); got != want {
			t.Errorf("auth.IsLoopback(%q) = %v", host, got)
		}
	}
}
