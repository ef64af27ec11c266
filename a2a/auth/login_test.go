package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/oidctest"
)

// opDiscovery reads the real OP's discovery document.
func opDiscovery(t *testing.T, o *oidctest.OP) asMetadata {
	t.Helper()
	resp, err := http.Get(o.DiscoveryURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m asMetadata
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOAuthDeviceCodeAgainstRealOP(t *testing.T) {
	o := oidctest.New(t)
	s := &a2a.Scheme{Name: "corp", Kind: a2a.SchemeOpenIDConnect, MetadataURL: o.DiscoveryURL()}
	var shown string
	login := &OAuthLogin{ClientID: oidctest.DeviceClient, ClientSecret: oidctest.DeviceSecret,
		DeviceCode: func(uri, complete, code string) {
			shown = uri + " " + code
			if err := o.Approve(code); err != nil {
				t.Error(err)
			}
		}}
	plan, err := login.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Flow != FlowDeviceCode || plan.Scopes[0] != "openid" {
		t.Fatalf("plan %+v", plan)
	}
	tok, err := login.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(shown, o.Issuer+"/device") || !o.Valid(tok.AccessToken) || tok.TokenURL != plan.TokenURL || tok.Expiry.IsZero() {
		t.Fatalf("shown %q, token %+v", shown, tok)
	}
}

func TestOAuthClientCredentialsAgainstRealOP(t *testing.T) {
	o := oidctest.New(t)
	m := opDiscovery(t, o)
	s := &a2a.Scheme{Name: "svc", Kind: a2a.SchemeOAuth2, ClientCredentials: &a2a.OAuthFlow{TokenURL: m.TokenEndpoint, Scopes: []string{"openid"}}}
	login := &OAuthLogin{ClientID: oidctest.ServiceClient}
	plan, err := login.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := login.Run(context.Background(), plan); err == nil || !strings.Contains(err.Error(), "--oauth-client-secret-file") {
		t.Fatalf("without a secret: %v", err)
	}
	login.ClientSecret = oidctest.ServiceSecret
	tok, err := login.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.Expiry.IsZero() {
		t.Fatalf("token %+v", tok)
	}
	login.ClientSecret = "wrong-secret-0123456789"
	if _, err := login.Run(context.Background(), plan); err == nil {
		t.Fatal("a wrong secret got a token")
	}
}

func TestOAuthNeedsClientIDAndSafeEndpoints(t *testing.T) {
	s := &a2a.Scheme{Kind: a2a.SchemeOAuth2, DeviceCode: &a2a.OAuthFlow{DeviceAuthorizationURL: "https://a.example/d", TokenURL: "https://a.example/t"}}
	l := &OAuthLogin{}
	plan, err := l.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background(), plan); !errors.Is(err, ErrNoClientID) || !strings.Contains(err.Error(), "--oauth-client-id") {
		t.Fatalf("got %v", err)
	}
	s.DeviceCode.TokenURL = "http://auth.example/token"
	if _, err := l.Plan(context.Background(), s); err == nil || !strings.Contains(err.Error(), "not https") {
		t.Fatalf("a plain http token URL: %v", err)
	}
	for _, ok := range []string{"https://x.example/t", "http://127.0.0.1:9/t", "http://localhost/t", "http://[::1]:8/t"} {
		if err := CheckEndpointURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// scriptedAS is a scripted authorization server: device and token
// endpoints answering from a script, recording the token requests.
type scriptedAS struct {
	srv    *httptest.Server
	mu     sync.Mutex
	script []string // token answers in turn: an error code, or "" for a token
	forms  []url.Values
	times  []time.Time
	issued int
}

func newScriptedAS(t *testing.T, script ...string) *scriptedAS {
	as := &scriptedAS{script: script}
	as.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/device":
			w.Write([]byte(`{"device_code":"dc-0123456789","user_code":"WXYZ-1234","verification_uri":"https://verify.example/go","interval":1,"expires_in":600}`))
		case "/token":
			as.mu.Lock()
			as.forms = append(as.forms, r.PostForm)
			as.times = append(as.times, time.Now())
			next := "invalid_request"
			if len(as.script) > 0 {
				next, as.script = as.script[0], as.script[1:]
			}
			as.issued++
			n := as.issued
			as.mu.Unlock()
			if next != "" {
				w.WriteHeader(http.StatusBadRequest)
				json.NewEncoder(w).Encode(map[string]string{"error": next})
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"access_token": "fresh-access-" + strings.Repeat("x", n),
				"refresh_token": "fresh-refresh-0123456789", "token_type": "Bearer", "expires_in": 3600})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(as.srv.Close)
	return as
}

func (as *scriptedAS) deviceScheme() *a2a.Scheme {
	return &a2a.Scheme{Kind: a2a.SchemeOAuth2, DeviceCode: &a2a.OAuthFlow{DeviceAuthorizationURL: as.srv.URL + "/device", TokenURL: as.srv.URL + "/token"}}
}

func TestDeviceCodeSlowDown(t *testing.T) {
	t.Parallel()
	as := newScriptedAS(t, "authorization_pending", "slow_down", "")
	var code string
	l := &OAuthLogin{ClientID: "cli", DeviceCode: func(uri, _, c string) { code = uri + " " + c }}
	plan, _ := l.Plan(context.Background(), as.deviceScheme())
	tok, err := l.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if code != "https://verify.example/go WXYZ-1234" || !strings.HasPrefix(tok.AccessToken, "fresh-access-") {
		t.Fatalf("code %q token %+v", code, tok)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.times) != 3 {
		t.Fatalf("%d polls", len(as.times))
	}
	// RFC 8628 §3.5: after slow_down the interval grows by 5 seconds.
	if gap := as.times[2].Sub(as.times[1]); gap < 5*time.Second {
		t.Fatalf("polled again %v after slow_down", gap)
	}
	if as.forms[0].Get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" || as.forms[0].Get("device_code") != "dc-0123456789" {
		t.Fatalf("poll %v", as.forms[0])
	}
}

func TestDeviceCodeExpired(t *testing.T) {
	t.Parallel()
	as := newScriptedAS(t, "authorization_pending", "expired_token")
	l := &OAuthLogin{ClientID: "cli"}
	plan, _ := l.Plan(context.Background(), as.deviceScheme())
	_, err := l.Run(context.Background(), plan)
	if err == nil || !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "shim login") {
		t.Fatalf("got %v", err)
	}
}
