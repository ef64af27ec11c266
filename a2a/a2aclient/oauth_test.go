package a2aclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/internal/oidctest"
	"github.com/shimdev/shim/internal/redact"
)

// opDiscovery reads the real OP's discovery document.
func opDiscovery(t *testing.T, o *oidctest.OP) (m struct {
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
}) {
	t.Helper()
	resp, err := http.Get(o.DiscoveryURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// tokenAgent is a fake agent that takes only the tokens valid() accepts,
// and records everything it was sent.
type tokenAgent struct {
	srv   *httptest.Server
	valid func(string) bool
	mu    sync.Mutex
	seen  []string // each request's method, URL, headers and body, as text
	auths []string
}

func newTokenAgent(t *testing.T, valid func(string) bool) *tokenAgent {
	a := &tokenAgent{valid: valid}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var dump strings.Builder
		dump.WriteString(r.Method + " " + r.URL.String() + "\n")
		r.Header.Write(&dump)
		dump.Write(body)
		a.mu.Lock()
		a.seen = append(a.seen, dump.String())
		a.auths = append(a.auths, r.Header.Get("Authorization"))
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			w.Write([]byte(card10(a.srv.URL+"/rpc", "", true)))
			return
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !a.valid(tok) {
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`))
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *tokenAgent) sawAnywhere(s string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.seen {
		if strings.Contains(d, s) {
			return true
		}
	}
	return false
}

func (a *tokenAgent) rpcAuths() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for i, d := range a.seen {
		if strings.HasPrefix(d, "POST ") {
			out = append(out, a.auths[i])
		}
	}
	return out
}

// authCodeLogin signs in against the real OP with authorization code and
// PKCE, following the printed URL as a browser would.
func authCodeLogin(t *testing.T, o *oidctest.OP) (*auth.OAuthPlan, auth.OAuthToken) {
	t.Helper()
	m := opDiscovery(t, o)
	s := &a2a.Scheme{Name: "sso", Kind: a2a.SchemeOAuth2, Scopes: []string{"openid", "offline_access"},
		AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: m.AuthorizationEndpoint, TokenURL: m.TokenEndpoint}}
	browserDone := make(chan error, 1)
	login := &auth.OAuthLogin{ClientID: oidctest.NativeClient, OpenURL: func(u string) {
		if !strings.Contains(u, "code_challenge_method=S256") || !strings.Contains(u, url.QueryEscape("http://127.0.0.1:")) {
			t.Errorf("authorization URL %s", u)
		}
		go func() {
			resp, err := http.Get(u) // the OP's login approves, then redirects to shim's loopback
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(body), "Signed in") {
					err = errors.New("the callback said: " + string(body))
				}
			}
			browserDone <- err
		}()
	}}
	plan, err := login.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Flow != auth.FlowAuthorizationCode {
		t.Fatalf("plan %+v", plan)
	}
	tok, err := login.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-browserDone; err != nil {
		t.Fatal(err)
	}
	return plan, tok
}

func TestOAuthAuthCodePKCEAndRefreshAgainstRealOP(t *testing.T) {
	o := oidctest.New(t)
	plan, tok := authCodeLogin(t, o)
	if !o.Valid(tok.AccessToken) || tok.RefreshToken == "" || tok.TokenURL != plan.TokenURL {
		t.Fatalf("token %+v", tok)
	}
	// The stored access token is refused: shim renews it with the refresh
	// token at the OP and retries once.
	agent := newTokenAgent(t, o.Valid)
	var stored []auth.OAuthToken
	stale := tok
	stale.AccessToken = "stale-access-token-0123456789"
	c, err := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: stale, OnRefresh: func(t auth.OAuthToken) { stored = append(stored, t) }}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || !o.Valid(stored[0].AccessToken) || stored[0].AccessToken == tok.AccessToken {
		t.Fatalf("stored %+v", stored)
	}
	auths := agent.rpcAuths()
	if len(auths) != 2 || auths[0] != "Bearer "+stale.AccessToken || auths[1] != "Bearer "+stored[0].AccessToken {
		t.Fatalf("the agent saw %q", auths)
	}
	if agent.sawAnywhere(tok.RefreshToken) || agent.sawAnywhere(stored[0].RefreshToken) {
		t.Fatal("the agent was sent a refresh token")
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

func (as *scriptedAS) tokenRequests() []url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]url.Values(nil), as.forms...)
}

func TestRefreshRefusedIsSignIn(t *testing.T) {
	as := newScriptedAS(t, "invalid_grant")
	agent := newTokenAgent(t, func(string) bool { return false })
	c, _ := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789",
		RefreshToken: "old-refresh-0123456789", TokenURL: as.srv.URL + "/token", ClientID: "cli"}}})
	err := c.Probe(context.Background())
	se := signInErrorOf(err)
	if se == nil || !strings.Contains(se.Error(), "run `shim login`") || !a2a.IsUnauthorized(err) {
		t.Fatalf("got %v", err)
	}
	if n := len(as.tokenRequests()); n != 1 {
		t.Fatalf("%d refresh attempts, want 1", n)
	}
	if len(agent.rpcAuths()) != 1 {
		t.Fatalf("the call was sent %d times", len(agent.rpcAuths()))
	}
}

func TestRefreshOn401ThenRetryOnce(t *testing.T) {
	as := newScriptedAS(t, "")
	agent := newTokenAgent(t, func(tok string) bool { return strings.HasPrefix(tok, "fresh-access-") })
	var stored []auth.OAuthToken
	c, _ := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789",
		RefreshToken: "old-refresh-0123456789", Expiry: time.Now().Add(time.Hour), TokenURL: as.srv.URL + "/token", ClientID: "cli"},
		OnRefresh: func(t auth.OAuthToken) { stored = append(stored, t) }}})
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := as.tokenRequests()
	if len(reqs) != 1 || reqs[0].Get("grant_type") != "refresh_token" || reqs[0].Get("refresh_token") != "old-refresh-0123456789" {
		t.Fatalf("token requests %v", reqs)
	}
	if auths := agent.rpcAuths(); len(auths) != 2 || auths[1] != "Bearer fresh-access-x" {
		t.Fatalf("the agent saw %q", auths)
	}
	if len(stored) != 1 || stored[0].RefreshToken != "fresh-refresh-0123456789" || stored[0].TokenURL != as.srv.URL+"/token" {
		t.Fatalf("stored %+v", stored)
	}
	if agent.sawAnywhere("old-refresh-0123456789") || agent.sawAnywhere("fresh-refresh-0123456789") {
		t.Fatal("the agent was sent a refresh token")
	}
	// The renewed token is used from now on: no second refresh.
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(as.tokenRequests()) != 1 {
		t.Fatal("refreshed again")
	}
	// Every token held, the ones the refresh brought included, is
	// redacted wherever the process writes (SPEC §9).
	for _, tok := range []string{"old-access-0123456789", "old-refresh-0123456789", "fresh-access-x", "fresh-refresh-0123456789"} {
		if got := redact.Default.String("echo " + tok + " end"); got != "echo [redacted] end" {
			t.Errorf("%s is not redacted: %q", tok, got)
		}
	}
}

func TestExpiredTokenRefreshedBeforeTheCall(t *testing.T) {
	as := newScriptedAS(t, "")
	agent := newTokenAgent(t, func(tok string) bool { return strings.HasPrefix(tok, "fresh-access-") })
	c, _ := New(Config{URL: agent.srv.URL, Endpoint: "", OAuth: &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789",
		RefreshToken: "old-refresh-0123456789", Expiry: time.Now().Add(-time.Minute), TokenURL: as.srv.URL + "/token", ClientID: "cli"}}})
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if agent.sawAnywhere("old-access-0123456789") {
		t.Fatal("the expired access token was sent")
	}
	if auths := agent.rpcAuths(); len(auths) != 1 || auths[0] != "Bearer fresh-access-x" {
		t.Fatalf("the agent saw %q", auths)
	}
	if got := c.TokenExpiry(); got.Before(time.Now().Add(30 * time.Minute)) {
		t.Fatalf("expiry %v", got)
	}
}

func TestExpiredTokenRefreshRefusedIsSignIn(t *testing.T) {
	as := newScriptedAS(t, "invalid_grant")
	agent := newTokenAgent(t, func(string) bool { return true })
	c, _ := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789",
		RefreshToken: "old-refresh-0123456789", Expiry: time.Now().Add(-time.Minute), TokenURL: as.srv.URL + "/token", ClientID: "cli"}}})
	err := c.Probe(context.Background())
	if se := signInErrorOf(err); se == nil || !strings.Contains(se.Error(), "run `shim login`") || !a2a.IsUnauthorized(err) {
		t.Fatalf("got %v", err)
	}
	if len(agent.rpcAuths()) != 0 || agent.sawAnywhere("old-access-0123456789") {
		t.Fatal("the expired token was sent")
	}
}

// A stream answered 401 is renewed and sent again with the same body.
func TestRefreshOn401Stream(t *testing.T) {
	as := newScriptedAS(t, "")
	agent := newTokenAgent(t, func(tok string) bool { return strings.HasPrefix(tok, "fresh-access-") })
	c, _ := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789",
		RefreshToken: "old-refresh-0123456789", TokenURL: as.srv.URL + "/token", ClientID: "cli"}}})
	_, err := c.Stream(context.Background(), a2a.OutMessage{ContextID: "ctx-1"})
	var rpc *a2a.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32001 {
		t.Fatalf("got %v", err)
	}
	auths := agent.rpcAuths()
	if len(auths) != 2 || auths[0] != "Bearer old-access-0123456789" || auths[1] != "Bearer fresh-access-x" {
		t.Fatalf("the agent saw %q", auths)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	var bodies []string
	for _, d := range agent.seen {
		if strings.HasPrefix(d, "POST ") {
			bodies = append(bodies, d[strings.LastIndex(d, "\r\n")+2:])
		}
	}
	if len(bodies) != 2 || bodies[0] != bodies[1] || !strings.Contains(bodies[0], "ctx-1") {
		t.Fatalf("bodies %q", bodies)
	}
}

// memSignIn is a stored sign-in shared by clients of one process: the
// lock a mutex, the store a variable.
type memSignIn struct {
	lock  sync.Mutex
	mu    sync.Mutex
	token auth.OAuthToken
}

func (m *memSignIn) Lock(ctx context.Context) (auth.OAuthToken, bool, func(), error) {
	m.lock.Lock()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.token, true, m.lock.Unlock, nil
}

func (m *memSignIn) save(t auth.OAuthToken) {
	m.mu.Lock()
	m.token = t
	m.mu.Unlock()
}

// TestSharedSignInRenewsOnce: two clients that hold the same expired
// token of a provider that rotates refresh tokens and revokes the sign-in
// on reuse (SPEC §12.1 amended) both call at once: one renews, the other
// re-reads the stored sign-in under the lock and takes the renewed token.
// A 401 on a token another client renewed takes the stored one too.
func TestSharedSignInRenewsOnce(t *testing.T) {
	o := oidctest.New(t)
	_, tok := authCodeLogin(t, o)
	agent := newTokenAgent(t, o.Valid)
	shared := &memSignIn{token: tok}
	expired := tok
	expired.Expiry = time.Now().Add(-time.Minute)
	clients := make([]*Client, 2)
	for i := range clients {
		c, err := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: expired, Shared: shared, OnRefresh: shared.save}})
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Probe(context.Background())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n, reuses := o.Refreshes(); n != 1 || reuses != 0 {
		t.Fatalf("%d refreshes, %d reuses: want one renewal between the two clients", n, reuses)
	}
	if !o.Valid(shared.token.AccessToken) || shared.token.AccessToken == tok.AccessToken {
		t.Fatal("the stored token is not the renewed one")
	}

	// A third client still holding the first token (not expired by its
	// clock) is refused: it takes the stored token, refreshing nothing.
	c, _ := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: tok, Shared: shared, OnRefresh: shared.save}})
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, reuses := o.Refreshes(); n != 1 || reuses != 0 {
		t.Fatalf("after a 401: %d refreshes, %d reuses", n, reuses)
	}
}

// TestRenewalReported: a renewal in a call is told to the Reporter on the
// call's context: renewed, or refused with what to do (no secret in it);
// a call that renews nothing tells nothing.
func TestRenewalReported(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string // the token URL's: "" a token, else an error code
		want   a2a.ReportKind
	}{{"renewed", "", a2a.ReportTokenRenewed}, {"refused", "invalid_grant", a2a.ReportRenewalRefused}} {
		t.Run(tc.name, func(t *testing.T) {
			as := newScriptedAS(t, tc.answer)
			agent := newTokenAgent(t, func(tok string) bool { return strings.HasPrefix(tok, "fresh-access-") })
			c, _ := New(Config{URL: agent.srv.URL, OAuth: &auth.OAuth{Token: auth.OAuthToken{AccessToken: "old-access-0123456789",
				RefreshToken: "old-refresh-0123456789", Expiry: time.Now().Add(time.Hour), TokenURL: as.srv.URL + "/token", ClientID: "cli"}}})
			var got []a2a.Report
			ctx := a2a.WithReporter(context.Background(), func(r a2a.Report) { got = append(got, r) })
			_ = c.Probe(ctx)
			if len(got) != 1 || got[0].Kind != tc.want {
				t.Fatalf("reported %+v, want one of kind %d", got, tc.want)
			}
			if tc.want == a2a.ReportRenewalRefused && (!strings.Contains(got[0].Detail, "shim login") || strings.Contains(got[0].Detail, "0123456789")) {
				t.Errorf("detail %q", got[0].Detail)
			}
			got = nil
			if tc.want == a2a.ReportTokenRenewed {
				if err := c.Probe(ctx); err != nil || len(got) != 0 {
					t.Errorf("a call with a valid token: %v, reported %+v", err, got)
				}
			}
		})
	}
}
