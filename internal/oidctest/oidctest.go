// Package oidctest runs a real OAuth 2.0 / OpenID Connect authorization
// server (zitadel/oidc's OP with its example in-memory storage) in the
// test process, for shim's sign-in tests. Only tests import it.
package oidctest

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
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

// OP is a running authorization server.
type OP struct {
	Issuer  string
	Storage *storage.Storage
	srv     *httptest.Server
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
	provider, err := op.NewProvider(config, st, op.StaticIssuer(issuer), op.WithAllowInsecure())
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
	return &OP{Issuer: issuer, Storage: st, srv: srv}
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
