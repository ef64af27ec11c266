package a2aclient

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/a2a"
)

func readCardFixture(t *testing.T, name, endpoint string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "agentcard", "testdata", "security", name))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "ENDPOINT", endpoint))
}

// keyAgent is a fake agent whose card is a fixture; it records how each
// request carried the credential.
type keyAgent struct {
	srv  *httptest.Server
	card string
	mu   sync.Mutex
	seen []*http.Request
}

func newKeyAgent(t *testing.T, fixture string) *keyAgent {
	a := &keyAgent{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen = append(a.seen, r.Clone(context.Background()))
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			a.mu.Lock()
			card := a.card
			a.mu.Unlock()
			w.Write([]byte(card))
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`))
	}))
	t.Cleanup(a.srv.Close)
	card := string(readCardFixture(t, fixture, a.srv.URL+"/rpc"))
	a.mu.Lock()
	a.card = card
	a.mu.Unlock()
	return a
}

func (a *keyAgent) last(t *testing.T) *http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) == 0 {
		t.Fatal("no request")
	}
	return a.seen[len(a.seen)-1]
}

func TestCredentialPerScheme(t *testing.T) {
	const secret = "s3cret-value-0123"
	cases := []struct {
		fixture string
		check   func(r *http.Request) bool
	}{
		{"v10-apikey-header.json", func(r *http.Request) bool {
			return r.Header.Get("X-Key") == secret && r.Header.Get("Authorization") == ""
		}},
		{"v10-apikey-query.json", func(r *http.Request) bool {
			return r.URL.Query().Get("api_key") == secret && r.Header.Get("Authorization") == ""
		}},
		{"v03-apikey-cookie.json", func(r *http.Request) bool {
			ck, err := r.Cookie("sid")
			return err == nil && ck.Value == secret && r.Header.Get("Authorization") == ""
		}},
		{"v10-bearer.json", func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+secret }},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			a := newKeyAgent(t, tc.fixture)
			c, err := New(Config{URL: a.srv.URL, Token: secret})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Probe(context.Background()); err != nil {
				t.Fatal(err)
			}
			if r := a.last(t); r.URL.Path != "/rpc" || !tc.check(r) {
				t.Fatalf("the call carried %v %v", r.URL, r.Header)
			}
		})
	}
	t.Run("basic", func(t *testing.T) {
		a := newKeyAgent(t, "v03-basic.json")
		c, _ := New(Config{URL: a.srv.URL, Token: "alice:pa:ss-word"})
		if err := c.Probe(context.Background()); err != nil {
			t.Fatal(err)
		}
		r := a.last(t)
		user, pass, ok := r.BasicAuth()
		if !ok || user != "alice" || pass != "pa:ss-word" ||
			r.Header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:pa:ss-word")) {
			t.Fatalf("Authorization %q", r.Header.Get("Authorization"))
		}
	})
	t.Run("another origin gets no key", func(t *testing.T) {
		a := newKeyAgent(t, "v10-apikey-query.json")
		other := newKeyAgent(t, "v10-apikey-query.json")
		c, _ := New(Config{URL: a.srv.URL, Token: secret})
		if _, err := c.Discover(context.Background()); err != nil {
			t.Fatal(err)
		}
		req, _ := c.conn.NewRequest(context.Background(), http.MethodGet, other.srv.URL+"/x", nil, a2a.V10)
		if strings.Contains(req.URL.String(), secret) || req.Header.Get("Authorization") != "" {
			t.Fatalf("a request to another origin carries the key: %v", req.URL)
		}
	})
}

func TestUnmetRequirementNamesScheme(t *testing.T) {
	a := newKeyAgent(t, "v10-mtls.json")
	c, _ := New(Config{URL: a.srv.URL})
	err := c.Probe(context.Background())
	var se *a2a.SignInError
	if !asSignIn(err, &se) || !strings.Contains(se.Error(), "mutual TLS") {
		t.Fatalf("got %v", err)
	}
	if sec := c.Security(); sec == nil || sec.Unmet == "" {
		t.Fatalf("security %+v", sec)
	}
}

func asSignIn(err error, se **a2a.SignInError) bool {
	*se = signInErrorOf(err)
	return *se != nil
}
