// Package oidctest runs a real OAuth 2.0 / OpenID Connect authorization
// server (zitadel/oidc's OP with its example in-memory storage) in the
// test process, for shim's sign-in tests. Only tests import it.
package oidctest

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// The clients the OP knows.
const (
	// NativeClient is a public client (no secret, PKCE) allowed the
	// authorization code and refresh token grants, redirecting to
	// http://127.0.0.1/callback on any port (RFC 8252).
	NativeClient = "shim-native"
	// DeviceClient is a confidential client allowed the device code grant.
	DeviceClient = "shim-device"
	DeviceSecret = "device-secret-0123456789"
	// ServiceClient and ServiceSecret are the example storage's service
	// user, allowed the client credentials grant.
	ServiceClient = "sid1"
	ServiceSecret = "verysecret"
)

// OP is a running authorization server. It rotates refresh tokens (each
// refresh grant spends the one it was given) and, as the OAuth 2.0
// Security BCP advises, revokes the whole sign-in (every access and
// refresh token of that user and client) when a spent refresh token comes
// back.
type OP struct {
	Issuer  string
	Storage *storage.Storage
	srv     *httptest.Server

	mu            sync.Mutex
	lifetime      time.Duration
	beforeRefresh func()
	spent         map[string][2]string // spent refresh token → subject, client
	refreshes     int
	reuses        int
}

// rotating is the example storage with reuse detection and an announced
// access token lifetime of the test's choosing.
type rotating struct {
	*storage.Storage
	op *OP
}

func (r rotating) TokenRequestByRefreshToken(ctx context.Context, refreshToken string) (op.RefreshTokenRequest, error) {
	if err := r.op.reused(ctx, refreshToken); err != nil {
		return nil, err
	}
	return r.Storage.TokenRequestByRefreshToken(ctx, refreshToken)
}

func (r rotating) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	if current != "" {
		r.op.mu.Lock()
		hook := r.op.beforeRefresh
		r.op.mu.Unlock()
		if hook != nil {
			hook()
		}
		client := ""
		if rr, ok := req.(op.RefreshTokenRequest); ok {
			client = rr.GetClientID()
		}
		if err := r.op.spend(ctx, current, [2]string{req.GetSubject(), client}); err != nil {
			return "", "", time.Time{}, err
		}
	}
	id, next, exp, err := r.Storage.CreateAccessAndRefreshTokens(ctx, req, current)
	if err != nil {
		return id, next, exp, err
	}
	r.op.mu.Lock()
	defer r.op.mu.Unlock()
	if current != "" {
		r.op.refreshes++
	}
	if r.op.lifetime > 0 {
		exp = time.Now().Add(r.op.lifetime)
	}
	return id, next, exp, nil
}

// reused fails for a spent refresh token, revoking its sign-in.
func (o *OP) reused(ctx context.Context, refreshToken string) error {
	return o.spend(ctx, refreshToken, [2]string{})
}

// spend marks a refresh token spent (by who, when who is set) in one
// step with the check that it was not: of two grants racing with the same
// token, one is the reuse.
func (o *OP) spend(ctx context.Context, refreshToken string, who [2]string) error {
	o.mu.Lock()
	by, spent := o.spent[refreshToken]
	switch {
	case spent:
		o.reuses++
	case who != [2]string{}:
		o.spent[refreshToken] = who
	}
	o.mu.Unlock()
	if !spent {
		return nil
	}
	_ = o.Storage.TerminateSession(ctx, by[0], by[1])
	return oidc.ErrInvalidGrant().WithDescription("refresh token already used: the sign-in is revoked")
}

// SetLifetime makes the token responses announce d as the access tokens'
// lifetime (expires_in); the OP itself keeps accepting them for 5
// minutes. 0 goes back to those 5 minutes.
func (o *OP) SetLifetime(d time.Duration) {
	o.mu.Lock()
	o.lifetime = d
	o.mu.Unlock()
}

// SetBeforeRefresh makes every refresh grant run f first (nil: nothing).
func (o *OP) SetBeforeRefresh(f func()) {
	o.mu.Lock()
	o.beforeRefresh = f
	o.mu.Unlock()
}

// Refreshes is the number of refresh grants served; Reuses the number of
// spent refresh tokens that came back.
func (o *OP) Refreshes() (refreshes, reuses int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.refreshes, o.reuses
}

// New starts an OP on a loopback port; its login page approves every
// authorization request as the example user "test-user2".
func New(t testing.TB) *OP {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	clients := map[string]*storage.Client{
		NativeClient: storage.NativeClient(NativeClient, "http://127.0.0.1/callback"),
		DeviceClient: storage.DeviceClient(DeviceClient, DeviceSecret),
	}
	st := storage.NewStorageWithClients(storage.NewUserStore(issuer), clients)
	o := &OP{Issuer: issuer, Storage: st, srv: srv, spent: map[string][2]string{}}
	config := &op.Config{
		CryptoKey:             sha256.Sum256([]byte("shim test")),
		CodeMethodS256:        true,
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
		SupportedUILocales:    []language.Tag{language.English},
		DeviceAuthorization: op.DeviceAuthorizationConfig{
			Lifetime: 5 * time.Minute, PollInterval: time.Second,
			UserFormPath: "/device", UserCode: op.UserCodeBase20,
		},
	}
	provider, err := op.NewProvider(config, rotating{st, o}, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		t.Fatal(err)
	}
	callback := op.AuthCallbackURL(provider)
	mux := http.NewServeMux()
	mux.HandleFunc("/login/username", func(w http.ResponseWriter, r *http.Request) {
		id := r.FormValue("authRequestID")
		if err := st.CheckUsernamePassword("test-user2", "verysecure", id); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, callback(r.Context(), id), http.StatusFound)
	})
	mux.Handle("/", provider)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return o
}

// DiscoveryURL is the OP's OpenID Connect discovery document.
func (o *OP) DiscoveryURL() string { return o.Issuer + "/.well-known/openid-configuration" }

// Approve completes a device authorization as the example user.
func (o *OP) Approve(userCode string) error {
	return o.Storage.CompleteDeviceAuthorization(context.Background(), userCode, "id2")
}

// Valid reports whether the OP takes token as an access token (its
// userinfo endpoint answers 200).
func (o *OP) Valid(token string) bool {
	req, _ := http.NewRequest(http.MethodGet, o.Issuer+"/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
