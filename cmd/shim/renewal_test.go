package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/internal/oidctest"
)

// oauthAgent is an agent whose card signs in with the authorization code
// flow of a real OpenID provider, and which takes the access tokens that
// provider still holds valid.
func oauthAgent(t *testing.T, o *oidctest.OP) *schemeAgent {
	t.Helper()
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
	return newSchemeAgent(t, map[string]any{"sso": map[string]any{"oauth2SecurityScheme": map[string]any{"flows": map[string]any{
		"authorizationCode": map[string]any{"authorizationUrl": meta.Auth, "tokenUrl": meta.Token, "pkceRequired": true,
			"scopes": map[string]any{"openid": "", "offline_access": ""}}}}}},
		requirement("sso"), func(r *http.Request) bool {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			return o.Valid(tok)
		})
}

// authCodeLogin runs `shim login` through the authorization code flow,
// opening the printed URL as a browser would.
func authCodeLogin(t *testing.T, e *shimEnv, a *schemeAgent, args ...string) *proc {
	t.Helper()
	p := loginProc(t, e, append([]string{"--url", a.srv.URL, "--oauth-client-id", oidctest.NativeClient}, args...)...)
	logs := p.waitLogs(t, "Waiting for the sign-in")
	m := regexp.MustCompile(`(?m)^  (http\S+)$`).FindStringSubmatch(logs)
	if m == nil {
		t.Fatalf("no URL to open:\n%s", logs)
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if code := waitExit(t, p); code != 0 {
		t.Fatalf("login: exit %d\n%s", code, p.logs())
	}
	return p
}

// secretService returns the D-Bus session bus of a Secret Service, or
// skips the test when none answers (CI runs one, see .ci/run).
func secretService(t *testing.T) string {
	t.Helper()
	bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if bus == "" {
		t.Skip("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset); run under dbus-run-session with gnome-keyring-daemon --unlock --components=secrets")
	}
	if _, err := credentials.SystemKeyring().Get(credentials.Service, "https://shim-probe.invalid"); err != nil && !errors.Is(err, credentials.ErrNotFound) {
		t.Skipf("no Secret Service answers on the session bus (%v)", err)
	}
	return bus
}

// TestOAuthRenewalsAgainstRotatingServer: against a real OpenID provider
// that rotates refresh tokens and revokes the sign-in when a spent one
// comes back (SPEC §12.1 amended), with the sign-in in the credentials
// file and in the OS keyring:
//   - `shim login`'s own check renews a token that expires within the
//     renewal margin, and login stores what the renewal gave: the next
//     session renews with it and is served;
//   - two shims that find the stored token expired at once renew it once
//     between them: the second waits for the first (held at the provider
//     until the second has come for the lock) and takes its token; no
//     refresh token is ever sent twice.
func TestOAuthRenewalsAgainstRotatingServer(t *testing.T) {
	for _, mode := range []string{"off", "on"} {
		t.Run("keyring "+mode, func(t *testing.T) { oauthRenewalsRotating(t, mode) })
	}
}

func oauthRenewalsRotating(t *testing.T, mode string) {
	o := oidctest.New(t)
	a := oauthAgent(t, o)
	e := newShimEnv(t)
	var kr credentials.Keyring
	if mode == "on" {
		e.vars = append(e.vars, "DBUS_SESSION_BUS_ADDRESS="+secretService(t))
		kr = credentials.SystemKeyring()
		t.Cleanup(func() {
			_ = kr.Delete(credentials.Service, a.srv.URL)
			_ = kr.Delete(credentials.Service, a.srv.URL+"#oauth")
		})
	}
	stored := func() (access, refresh string) {
		t.Helper()
		return readSignIn(t, e, kr, mode, a.srv.URL)
	}
	// After the --keyring off every command line starts with.
	run := func(args ...string) []string { return append([]string{"--keyring", mode}, args...) }

	o.SetLifetime(5 * time.Second) // within the 10 s margin: every use renews
	authCodeLogin(t, e, a, "--keyring", mode)
	if n, reuses := o.Refreshes(); n == 0 || reuses != 0 {
		t.Fatalf("login's check: %d refreshes, %d reuses; want renewals and no reuse", n, reuses)
	}
	access, _ := stored()
	if !o.Valid(access) {
		t.Fatal("login stored an access token the provider no longer takes (the one its renewal replaced)")
	}
	p := e.start(t, run()...)
	p.call(t, 1, "initialize", initParams(false))
	if m := p.call(t, 2, "session/new", newSessionParams()); m["result"] == nil {
		t.Fatalf("session after login: %v\n%s", m, p.logs())
	}
	before, reuses := o.Refreshes()
	if reuses != 0 {
		t.Fatalf("after the session: %d reuses", reuses)
	}

	// The stored token (5 s) is now past the margin for both.
	o.SetLifetime(time.Hour)
	var once sync.Once
	release := make(chan struct{})
	open := func() { once.Do(func() { close(release) }) }
	var mu sync.Mutex
	arrived := 0
	o.SetBeforeRefresh(func() {
		mu.Lock()
		arrived++
		if arrived == 2 {
			open() // a second renewal at once: let both go
		}
		mu.Unlock()
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
	})
	shims := []*proc{e.start(t, run()...), e.start(t, run()...)}
	for _, s := range shims {
		s.call(t, 1, "initialize", initParams(false))
	}
	stop := make(chan struct{})
	defer close(stop)
	go openWhenWaiting(shims, open, stop) // the first renewal waits until the other shim waits for it
	res := make(chan map[string]any, 2)
	for _, s := range shims {
		go func() { res <- s.call(t, 2, "session/new", newSessionParams()) }()
	}
	for range shims {
		if m := <-res; m["result"] == nil {
			t.Errorf("session/new: %v", m)
		}
	}
	n, reuses := o.Refreshes()
	if n-before != 1 || reuses != 0 {
		t.Errorf("two shims at once: %d refreshes (want 1 between them), %d reuses", n-before, reuses)
	}
	if access, _ := stored(); !o.Valid(access) {
		t.Error("the stored access token is revoked")
	}
	if t.Failed() {
		t.Logf("shim 1:\n%s\nshim 2:\n%s", shims[0].logs(), shims[1].logs())
	}
}

// readSignIn reads the stored access and refresh tokens for url.
func readSignIn(t *testing.T, e *shimEnv, kr credentials.Keyring, mode, url string) (access, refresh string) {
	t.Helper()
	st := credentials.NewStore(e.config, kr, credentials.Mode(mode), nil)
	tok, _, err := st.Token(url)
	rec, rerr := st.OAuth(url)
	if err != nil || rerr != nil || rec == nil {
		t.Fatalf("stored sign-in: %v %v %v", err, rerr, rec)
	}
	return tok, rec.RefreshToken
}

// openWhenWaiting calls open once one of shims logs that it waits for
// another shim's renewal, or returns when stop closes.
func openWhenWaiting(shims []*proc, open func(), stop <-chan struct{}) {
	for {
		for _, s := range shims {
			if strings.Contains(s.logs(), "another shim is renewing the OAuth sign-in") {
				open()
				return
			}
		}
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}
