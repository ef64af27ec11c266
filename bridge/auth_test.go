package bridge

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

// countingTransport counts the requests that reach the network.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, errors.New("no network in this test")
}

// A token over plain http to a non-loopback host is refused before any
// connection, and the editor gets -32603 with data.state "insecure" and a
// message naming --allow-insecure-http.
func TestInsecureRefusedBeforeConnection(t *testing.T) {
	tr := &countingTransport{}
	s := startShim(t, "http://agent.example:7870", func(o *Options, c *a2aclient.Config) {
		c.Token, c.Transport = "tok-insecure-0123456789", tr
	}, nil)
	s.init(t)
	m := s.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	var data struct {
		State string `json:"state"`
	}
	if m.Error != nil {
		_ = json.Unmarshal(m.Error.Data, &data)
	}
	if m.Error == nil || m.Error.Code != -32603 || data.State != "insecure" || !strings.Contains(m.Error.Message, "--allow-insecure-http") {
		t.Fatalf("session/new: %+v", m.Error)
	}
	if strings.Contains(m.Error.Message, "tok-insecure") {
		t.Errorf("the error quotes the token: %s", m.Error.Message)
	}
	if n := tr.n.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the network", n)
	}
}

// authMethods returns initialize's auth methods for the given client
// capabilities.
func authMethods(t *testing.T, s *testShim, caps map[string]any) []map[string]any {
	t.Helper()
	m := s.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	var r struct {
		AuthMethods []map[string]any `json:"authMethods"`
	}
	_ = json.Unmarshal(m.Result, &r)
	return r.AuthMethods
}

// eventLog is an ordered record of what the test and shim did.
type eventLog struct {
	mu sync.Mutex
	ev []string
}

func (l *eventLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ev = append(l.ev, e)
}

func (l *eventLog) events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ev...)
}

// loggingTransport records each request that reaches the network.
type loggingTransport struct{ log *eventLog }

func (l loggingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	l.log.add("network " + r.URL.Path)
	return nil, errors.New("no network in this test")
}

// initialize's auth methods (SPEC §4.1), validated against the ACP schema
// by the test client, and no Connect or network call from initialize:
// the first connect and the first request come after the session/new that
// follows (requests are read in order), so the test sees them happen.
func TestInitializeAuthMethods(t *testing.T) {
	log := &eventLog{}
	s := startShim(t, "https://agent.example", func(o *Options, c *a2aclient.Config) {
		c.Transport = loggingTransport{log}
		o.Connect = func() (*a2aclient.Client, error) { log.add("connect"); return a2aclient.New(*c) }
	}, nil)
	legacy := authMethods(t, s, map[string]any{})
	if len(legacy) != 2 || legacy[0]["id"] != "shim-credentials" || legacy[0]["type"] != nil {
		t.Fatalf("auth methods %v", legacy)
	}
	meta, _ := legacy[1]["_meta"].(map[string]any)
	ta, _ := meta["terminal-auth"].(map[string]any)
	if legacy[1]["id"] != "shim-login" || legacy[1]["type"] != nil || ta["command"] != "/usr/local/bin/shim" ||
		ta["label"] != "shim login" || len(ta["args"].([]any)) != 1 || ta["env"] == nil {
		t.Fatalf("legacy shim-login %v", legacy[1])
	}
	term := authMethods(t, s, map[string]any{"auth": map[string]any{"terminal": true}})
	if len(term) != 2 || term[1]["type"] != "terminal" || term[1]["id"] != "shim-login" || term[1]["_meta"] != nil {
		t.Fatalf("terminal shim-login %v", term)
	}
	log.add("session/new sent")
	if m := s.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}); m.Error == nil {
		t.Fatalf("session/new reached a network that does not exist: %s", m.Raw)
	}
	ev := log.events()
	if len(ev) < 3 || ev[0] != "session/new sent" || ev[1] != "connect" || !strings.HasPrefix(ev[2], "network ") {
		t.Fatalf("initialize connected or reached the network: %q", ev)
	}
}

// authServer is an A2A server that accepts one token at a time and
// records the Authorization headers of the probes.
type authServer struct {
	fake  *fakeAgent
	mu    sync.Mutex
	token string
	seen  []string
}

func newAuthServer(t *testing.T, token string) *authServer {
	a := &authServer{token: token}
	a.fake = &fakeAgent{t: t, name: "Auth Agent"}
	a.fake.url = startFake(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			a.mu.Lock()
			a.seen = append(a.seen, r.Header.Get("Authorization"))
			ok := r.Header.Get("Authorization") == "Bearer "+a.token
			a.mu.Unlock()
			if !ok {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		a.fake.ServeHTTP(w, r)
	}))
	return a
}

func (a *authServer) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) == 0 {
		return ""
	}
	return a.seen[len(a.seen)-1]
}

func reasonOf(e *acptest.RPCError) string {
	var d struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Reason
}

// A refused token: session/new answers -32000 whose data.reason names the
// server, the status and `shim login`. authenticate (shim-credentials)
// calls Connect again and probes with what it returns; shim-login answers
// -32000 saying to run `shim login`; logout calls Logout and drops the
// client, so the next call connects again.
func TestAuthenticateAndLogout(t *testing.T) {
	srv := newAuthServer(t, "tok-good-0123456789")
	var mu sync.Mutex
	token := "tok-bad-0123456789"
	var connects, logouts atomic.Int64
	s := startShim(t, srv.fake.url, func(o *Options, c *a2aclient.Config) {
		cfg := *c
		o.Connect = func() (*a2aclient.Client, error) {
			connects.Add(1)
			mu.Lock()
			cfg.Token = token
			mu.Unlock()
			return a2aclient.New(cfg)
		}
		o.Logout = func() error { logouts.Add(1); return nil }
	}, nil)
	s.init(t)
	m := s.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	if m.Error == nil || m.Error.Code != -32000 {
		t.Fatalf("session/new with a bad token: %+v", m)
	}
	if r := reasonOf(m.Error); !strings.Contains(r, srv.fake.url) || !strings.Contains(r, "HTTP 401") || !strings.Contains(r, "shim login") {
		t.Errorf("reason %q", r)
	}

	mu.Lock()
	token = "tok-good-0123456789"
	mu.Unlock()
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-credentials"}); m.Error != nil {
		t.Fatalf("authenticate: %v", m.Error)
	}
	if srv.last() != "Bearer tok-good-0123456789" {
		t.Fatalf("authenticate probed with %q", srv.last())
	}
	if s.newSession(t, "/tmp") == "" {
		t.Fatal("no session after authenticate")
	}
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-login"}); m.Error == nil || m.Error.Code != -32000 ||
		!strings.Contains(m.Error.Message, "run `shim login`") {
		t.Fatalf("authenticate shim-login: %+v", m.Error)
	}

	before := connects.Load()
	if m := s.Call("logout", map[string]any{}); m.Error != nil || logouts.Load() != 1 {
		t.Fatalf("logout: %v (Logout called %d times)", m.Error, logouts.Load())
	}
	mu.Lock()
	token = ""
	mu.Unlock()
	m = s.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	if m.Error == nil || m.Error.Code != -32000 || connects.Load() != before+1 {
		t.Fatalf("session/new after logout: %+v (connects %d → %d)", m.Error, before, connects.Load())
	}
}

// Without a URL (no Connect), session/new and session/list answer -32000
// with a reason that says how to configure one.
func TestNoURLAuthRequired(t *testing.T) {
	s := startShim(t, "", nil, nil)
	s.init(t)
	for _, c := range []struct {
		method string
		params any
	}{
		{"session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}},
		{"session/list", map[string]any{}},
	} {
		m := s.Call(c.method, c.params)
		if m.Error == nil || m.Error.Code != -32000 {
			t.Fatalf("%s: %+v", c.method, m)
		}
		if r := reasonOf(m.Error); !strings.Contains(r, "shim login") || !strings.Contains(r, "--url") {
			t.Errorf("%s: reason %q", c.method, r)
		}
	}
}
