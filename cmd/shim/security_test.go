package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/oidctest"
)

// schemeAgent is a fake A2A agent whose card declares security schemes;
// allow decides whether a request's credential is good. It records every
// request as text (method, URL, headers, body).
type schemeAgent struct {
	srv   *httptest.Server
	allow func(r *http.Request) bool
	mu    sync.Mutex
	card  map[string]any
	dumps []string
}

func newSchemeAgent(t *testing.T, schemes map[string]any, reqs []any, allow func(r *http.Request) bool) *schemeAgent {
	a := &schemeAgent{allow: allow}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var d strings.Builder
		d.WriteString(r.Method + " " + r.URL.String() + "\n")
		r.Header.Write(&d)
		d.Write(body)
		a.mu.Lock()
		a.dumps = append(a.dumps, d.String())
		card := a.card
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			json.NewEncoder(w).Encode(card)
			return
		}
		if !a.allow(r) {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		var rpc struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &rpc)
		out := map[string]any{"jsonrpc": "2.0", "id": rpc.ID}
		switch rpc.Method {
		case "ListTasks":
			out["result"] = map[string]any{"tasks": []any{}}
		default:
			out["error"] = map[string]any{"code": -32001, "message": "Task not found"}
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(a.srv.Close)
	// Under the lock: the server's reads come from another process, which
	// the race detector cannot order after this write.
	a.mu.Lock()
	defer a.mu.Unlock()
	a.card = map[string]any{"name": "Secured Agent", "version": "1", "capabilities": map[string]any{"streaming": true},
		"supportedInterfaces": []any{map[string]any{"url": a.srv.URL + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		"securitySchemes":     schemes, "securityRequirements": reqs}
	return a
}

func (a *schemeAgent) saw(s string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.dumps {
		if strings.Contains(d, s) {
			return true
		}
	}
	return false
}

func requirement(name string, scopes ...string) []any {
	if scopes == nil {
		scopes = []string{}
	}
	return []any{map[string]any{"schemes": map[string]any{name: map[string]any{"list": scopes}}}}
}

// `shim login` asks for an "API key" when the card's scheme is one, and
// the key then goes in the header the card names, as --token does too.
func TestLoginAsksForAPIKey(t *testing.T) {
	const key = "api-key-0123456789abcdef"
	a := newSchemeAgent(t, map[string]any{"k": map[string]any{"apiKeySecurityScheme": map[string]any{"location": "header", "name": "X-Key"}}},
		requirement("k"), func(r *http.Request) bool { return r.Header.Get("X-Key") == key })
	dir := t.TempDir()
	con, screen, reads := fakeConsole(true, a.srv.URL+"\n", key)
	_, stderr, err := runInProcess(t, con, "login", "--config-dir", dir, "--keyring", "off")
	if err != nil || *reads != 1 {
		t.Fatalf("login: %v\n%s", err, stderr)
	}
	if !strings.Contains(screen.String(), "API key for "+a.srv.URL) || strings.Contains(screen.String(), "Bearer token") {
		t.Fatalf("screen %q", screen.String())
	}
	if !strings.Contains(stderr, "accepted") {
		t.Fatalf("stderr %q", stderr)
	}
	e := newShimEnv(t)
	e.config = dir
	if _, tokens := e.credentialsFile(t); tokens[a.srv.URL] != key {
		t.Fatalf("tokens %v", tokens)
	}
	// Doctor names the scheme and finds the key works.
	r := e.run(t, "", "doctor")
	if r.code != 0 || !regexp.MustCompile(`security scheme\s+ok\s+api key in header X-Key`).MatchString(r.stdout) || strings.Contains(r.stdout+r.stderr, key) {
		t.Fatalf("doctor: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "token expiry") {
		t.Fatalf("an expiry for a key: %s", r.stdout)
	}
}

// --token carries whatever the scheme takes: user:password for basic.
func TestTokenFlagCarriesBasic(t *testing.T) {
	a := newSchemeAgent(t, map[string]any{"pw": map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "basic"}}},
		requirement("pw"), func(r *http.Request) bool {
			u, p, ok := r.BasicAuth()
			return ok && u == "alice" && p == "wonder-land-0123"
		})
	e := newShimEnv(t)
	r := e.run(t, "", "doctor", "--url", a.srv.URL, "--token", "alice:wonder-land-0123")
	if r.code != 0 || !regexp.MustCompile(`security scheme\s+ok\s+basic`).MatchString(r.stdout) {
		t.Fatalf("doctor: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A card whose only requirement is mutual TLS: session/new answers
// -32000 naming the scheme; doctor fails the row.
func TestUnmetSchemeRefusesSession(t *testing.T) {
	a := newSchemeAgent(t, map[string]any{"client-cert": map[string]any{"mtlsSecurityScheme": map[string]any{}}},
		requirement("client-cert"), func(*http.Request) bool { return true })
	e := newShimEnv(t)
	p := e.start(t, "--url", a.srv.URL)
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	m := p.call(t, 2, "session/new", newSessionParams())
	rerr := rpcErrorOf(m)
	if rerr == nil || rerr["code"] != float64(-32000) || !strings.Contains(rerr["message"].(string), "mutual TLS") ||
		!strings.Contains(rerr["message"].(string), "client-cert") {
		t.Fatalf("session/new: %v", m)
	}
	r := e.run(t, "", "doctor", "--url", a.srv.URL)
	if r.code != 1 || !regexp.MustCompile(`security scheme\s+FAIL\s+.*mutual TLS`).MatchString(r.stdout) {
		t.Fatalf("doctor: %d\n%s", r.code, r.stdout)
	}
}

// loginProc runs `shim login` with its stderr watched.
func loginProc(t *testing.T, e *shimEnv, args ...string) *proc {
	t.Helper()
	p := e.start(t, append([]string{"login"}, args...)...)
	p.stdin.Close()
	return p
}

func waitExit(t *testing.T, p *proc) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("login did not end\n%s", p.logs())
	}
	return p.cmd.ProcessState.ExitCode()
}

type storedFile struct {
	Tokens map[string]string `json:"tokens"`
	OAuth  map[string]struct {
		RefreshToken string `json:"refreshToken"`
		Expiry       string `json:"expiry"`
		TokenURL     string `json:"tokenUrl"`
		ClientID     string `json:"clientId"`
		Agent        string `json:"agent"`
	} `json:"oauth"`
}

func readStored(t *testing.T, e *shimEnv) storedFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.config, "credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f storedFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// Device-code login against a real OpenID provider, found through the
// card's openIdConnectUrl: the code is printed, approved, the token stored
// with its expiry and token URL; doctor shows both; without a client id
// login says so and stores nothing.
func TestOAuthDeviceLoginAndDoctor(t *testing.T) {
	o := oidctest.New(t)
	a := newSchemeAgent(t, map[string]any{"corp": map[string]any{"openIdConnectSecurityScheme": map[string]any{"openIdConnectUrl": o.DiscoveryURL()}}},
		requirement("corp", "openid"), func(r *http.Request) bool {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			return o.Valid(tok)
		})
	e := newShimEnv(t)
	r := e.run(t, "", "login", "--url", a.srv.URL)
	if r.code != 2 || !strings.Contains(r.stderr, "--oauth-client-id") || !strings.Contains(r.stderr, "nothing was stored") {
		t.Fatalf("without a client id: %d\n%s", r.code, r.stderr)
	}
	secretFile := filepath.Join(e.home, "client-secret")
	os.WriteFile(secretFile, []byte(oidctest.DeviceSecret+"\n"), 0o600)
	p := loginProc(t, e, "--url", a.srv.URL, "--oauth-client-id", oidctest.DeviceClient, "--oauth-client-secret-file", secretFile)
	re := regexp.MustCompile(`open (\S+) and enter the code (\S+)`)
	logs := p.waitLogs(t, "Waiting for the sign-in")
	m := re.FindStringSubmatch(logs)
	if m == nil || !strings.HasPrefix(m[1], o.Issuer) {
		t.Fatalf("no code shown:\n%s", logs)
	}
	if err := o.Approve(m[2]); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, p); code != 0 || !strings.Contains(p.logs(), "accepted the sign-in") {
		t.Fatalf("login: %d\n%s", code, p.logs())
	}
	f := readStored(t, e)
	rec := f.OAuth[a.srv.URL]
	if !o.Valid(f.Tokens[a.srv.URL]) || rec.TokenURL != o.Issuer+"/oauth/token" || rec.Expiry == "" || rec.ClientID != oidctest.DeviceClient {
		t.Fatalf("stored %+v", f)
	}
	if rec.Agent != "Secured Agent" {
		t.Errorf("the agent's name stored with the sign-in: %q", rec.Agent)
	}
	if strings.Contains(p.logs(), f.Tokens[a.srv.URL]) || strings.Contains(p.logs(), oidctest.DeviceSecret) {
		t.Fatalf("a secret in the output:\n%s", p.logs())
	}
	d := e.run(t, "", "doctor")
	if d.code != 0 || !regexp.MustCompile(`security scheme\s+ok\s+openid connect`).MatchString(d.stdout) ||
		!regexp.MustCompile(`token expiry\s+ok\s+`+regexp.QuoteMeta(rec.Expiry)).MatchString(d.stdout) {
		t.Fatalf("doctor: %d\n%s\n%s", d.code, d.stdout, d.stderr)
	}
	if strings.Contains(d.stdout+d.stderr, f.Tokens[a.srv.URL]) {
		t.Fatal("doctor printed the access token")
	}
}

// Authorization code with PKCE through the loopback redirect (the printed
// URL is fetched as a browser would), then a session whose stored access
// token is refused: shim renews it at the provider once, retries, and
// stores the renewed tokens. The agent never sees a refresh token, and
// no output of shim holds one.
func TestOAuthAuthCodeLoginThenRenewWhileServing(t *testing.T) {
	o := oidctest.New(t)
	disc, err := http.Get(o.DiscoveryURL())
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Auth  string `json:"authorization_endpoint"`
		Token string `json:"token_endpoint"`
	}
	json.NewDecoder(disc.Body).Decode(&meta)
	disc.Body.Close()
	a := newSchemeAgent(t, map[string]any{"sso": map[string]any{"oauth2SecurityScheme": map[string]any{"flows": map[string]any{
		"authorizationCode": map[string]any{"authorizationUrl": meta.Auth, "tokenUrl": meta.Token, "pkceRequired": true,
			"scopes": map[string]any{"openid": "", "offline_access": ""}}}}}},
		requirement("sso"), func(r *http.Request) bool {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			return o.Valid(tok)
		})
	e := newShimEnv(t)
	p := loginProc(t, e, "--url", a.srv.URL, "--oauth-client-id", oidctest.NativeClient)
	logs := p.waitLogs(t, "Waiting for the sign-in")
	m := regexp.MustCompile(`(?m)^  (http\S+)$`).FindStringSubmatch(logs)
	if m == nil || !strings.Contains(m[1], "code_challenge=") || !strings.Contains(m[1], "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Fatalf("no URL to open:\n%s", logs)
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if code := waitExit(t, p); code != 0 || !strings.Contains(string(page), "Signed in") {
		t.Fatalf("login: %d %s\n%s", code, page, p.logs())
	}
	f := readStored(t, e)
	first := f.OAuth[a.srv.URL]
	if first.RefreshToken == "" || first.TokenURL != meta.Token {
		t.Fatalf("stored %+v", f)
	}
	// The access token goes stale.
	raw, _ := os.ReadFile(filepath.Join(e.config, "credentials.json"))
	stale := "stale-access-token-0123456789"
	raw = []byte(strings.ReplaceAll(string(raw), f.Tokens[a.srv.URL], stale))
	os.WriteFile(filepath.Join(e.config, "credentials.json"), raw, 0o600)

	sp := e.start(t, "--log-level", "debug")
	if m := sp.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	if m := sp.call(t, 2, "session/new", newSessionParams()); m["result"] == nil {
		t.Fatalf("session/new: %v\n%s", m, sp.logs())
	}
	g := readStored(t, e)
	renewed := g.Tokens[a.srv.URL]
	if renewed == stale || !o.Valid(renewed) || g.OAuth[a.srv.URL].RefreshToken == "" {
		t.Fatalf("after renewal %+v", g)
	}
	if !a.saw("Bearer "+stale) || !a.saw("Bearer "+renewed) {
		t.Fatal("the agent did not see the stale then the renewed token")
	}
	checkRefreshTokensKept(t, a, sp, p, first.RefreshToken, g.OAuth[a.srv.URL].RefreshToken)
	if !strings.Contains(sp.logs(), "renewed the OAuth access token") {
		t.Fatalf("logs:\n%s", sp.logs())
	}
}

// A stored OAuth sign-in whose access token is refused and whose refresh
// token the token URL refuses: session/new answers -32000 telling the
// user to run `shim login`. The refresh token went to the token URL only.
func TestOAuthRefusedRefreshAsksForLogin(t *testing.T) {
	var mu sync.Mutex
	var forms []string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		forms = append(forms, r.PostForm.Encode())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant"}`))
	}))
	t.Cleanup(as.Close)
	a := newSchemeAgent(t, nil, nil, func(*http.Request) bool { return false })
	e := newShimEnv(t)
	os.MkdirAll(e.config, 0o700)
	doc := map[string]any{"version": 1, "lastUrl": a.srv.URL, "tokens": map[string]string{a.srv.URL: "old-access-0123456789"},
		"oauth": map[string]any{a.srv.URL: map[string]any{"refreshToken": "old-refresh-0123456789", "tokenUrl": as.URL + "/token",
			"clientId": "cli", "expiry": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}}
	b, _ := json.Marshal(doc)
	os.WriteFile(filepath.Join(e.config, "credentials.json"), b, 0o600)
	p := e.start(t)
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	m := p.call(t, 2, "session/new", newSessionParams())
	rerr := rpcErrorOf(m)
	if rerr == nil || rerr["code"] != float64(-32000) || !strings.Contains(rerr["message"].(string), "run `shim login`") {
		t.Fatalf("session/new: %v\n%s", m, p.logs())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(forms) != 1 || !strings.Contains(forms[0], "refresh_token=old-refresh-0123456789") {
		t.Fatalf("token URL got %q", forms)
	}
	if a.saw("old-refresh-0123456789") || strings.Contains(p.logs(), "old-refresh-0123456789") {
		t.Fatal("the refresh token went elsewhere")
	}
}

// checkRefreshTokensKept checks that the agent was sent none of the
// refresh tokens and that none is in sp's or login's output.
func checkRefreshTokensKept(t *testing.T, a *schemeAgent, sp, login *proc, rts ...string) {
	t.Helper()
	for _, rt := range rts {
		if a.saw(rt) {
			t.Fatal("the agent was sent a refresh token")
		}
		if strings.Contains(sp.logs(), rt) || strings.Contains(login.logs(), rt) {
			t.Fatalf("a refresh token in shim's output:\n%s", sp.logs())
		}
	}
}
