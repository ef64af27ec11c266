package a2a

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func readCardFixture(t *testing.T, name, endpoint string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "security", name))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "ENDPOINT", endpoint))
}

func TestParseSecurityBothDialects(t *testing.T) {
	cases := []struct {
		file   string
		want   string // Security.String()
		kind   string
		scopes []string
	}{
		{"v10-apikey-header.json", "api key in header X-Key", SchemeAPIKey, nil},
		{"v10-apikey-query.json", "api key in query parameter api_key", SchemeAPIKey, nil},
		{"v03-apikey-cookie.json", "api key in cookie sid", SchemeAPIKey, []string{}},
		{"v03-basic.json", "basic", SchemeBasic, []string{}},
		{"v10-bearer.json", "bearer", SchemeBearer, nil},
		{"v03-mtls-or-oauth.json", "oauth2 authorization code", SchemeOAuth2, []string{"read", "write"}},
		{"v10-device-code.json", "oauth2 device code", SchemeOAuth2, []string{"agent"}},
		{"v10-oidc-snake.json", "openid connect (https://id.example/.well-known/openid-configuration)", SchemeOpenIDConnect, []string{"openid", "agent"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			sec := ParseSecurity(readCardFixture(t, tc.file, "https://a.example/rpc"))
			if sec == nil || sec.Scheme == nil {
				t.Fatalf("no scheme chosen: %+v", sec)
			}
			if sec.String() != tc.want || sec.Scheme.Kind != tc.kind {
				t.Fatalf("got %q (%s), want %q (%s)", sec.String(), sec.Scheme.Kind, tc.want, tc.kind)
			}
			if tc.scopes != nil && !reflect.DeepEqual(sec.Scheme.Scopes, tc.scopes) && !(len(tc.scopes) == 0 && len(sec.Scheme.Scopes) == 0) {
				t.Fatalf("scopes %q, want %q", sec.Scheme.Scopes, tc.scopes)
			}
		})
	}
	t.Run("flows", func(t *testing.T) {
		s := ParseSecurity(readCardFixture(t, "v03-mtls-or-oauth.json", "x")).Scheme
		ac, cc := s.AuthorizationCode, s.ClientCredentials
		if ac == nil || ac.AuthorizationURL != "https://auth.example/authorize" || ac.TokenURL != "https://auth.example/token" ||
			!reflect.DeepEqual(ac.Scopes, []string{"read", "write"}) {
			t.Fatalf("authorization code flow %+v", ac)
		}
		if cc == nil || cc.TokenURL != "https://auth.example/token" || s.DeviceCode != nil {
			t.Fatalf("client credentials %+v, device %+v", cc, s.DeviceCode)
		}
		d := ParseSecurity(readCardFixture(t, "v10-device-code.json", "x")).Scheme.DeviceCode
		if d == nil || d.DeviceAuthorizationURL != "https://auth.example/device" || d.TokenURL != "https://auth.example/token" {
			t.Fatalf("device code flow %+v", d)
		}
	})
	t.Run("none named is bearer", func(t *testing.T) {
		sec := ParseSecurity([]byte(card10("https://a.example/rpc", "", true)))
		if sec != nil || sec.String() != "bearer" {
			t.Fatalf("got %+v", sec)
		}
	})
	t.Run("unmet names the scheme", func(t *testing.T) {
		sec := ParseSecurity(readCardFixture(t, "v10-mtls.json", "x"))
		if sec == nil || sec.Scheme != nil || !strings.Contains(sec.Unmet, "mutual TLS") || !strings.Contains(sec.Unmet, "client-cert") {
			t.Fatalf("got %+v", sec)
		}
		sec = ParseSecurity(readCardFixture(t, "v10-unknown-and-pair.json", "x"))
		if sec == nil || sec.Scheme != nil || !strings.Contains(sec.Unmet, `"weird"`) || !strings.Contains(sec.Unmet, "b and k together") {
			t.Fatalf("got %+v", sec)
		}
	})
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
		req, _ := c.newRequest(context.Background(), http.MethodGet, other.srv.URL+"/x", nil, V10)
		if strings.Contains(req.URL.String(), secret) || req.Header.Get("Authorization") != "" {
			t.Fatalf("a request to another origin carries the key: %v", req.URL)
		}
	})
}

func TestUnmetRequirementNamesScheme(t *testing.T) {
	a := newKeyAgent(t, "v10-mtls.json")
	c, _ := New(Config{URL: a.srv.URL})
	err := c.Probe(context.Background())
	var se *SignInError
	if !asSignIn(err, &se) || !strings.Contains(se.Error(), "mutual TLS") {
		t.Fatalf("got %v", err)
	}
	if sec := c.Security(); sec == nil || sec.Unmet == "" {
		t.Fatalf("security %+v", sec)
	}
}

func asSignIn(err error, se **SignInError) bool {
	*se = signInErrorOf(err)
	return *se != nil
}
