package platformtest

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// FoundryScope is the scope of a Microsoft Entra token for Foundry.
const FoundryScope = "https://ai.azure.com/.default"

const deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

// Entra is a loopback stand-in for the Microsoft Entra ID authority
// (https://login.microsoftonline.com), served over TLS with a test
// certificate because the Microsoft Authentication Library refuses an
// authority that is not https. azidentity's credentials reach it with the
// authority host set to URL (AZURE_AUTHORITY_HOST, or
// ClientOptions.Cloud), instance discovery off (it would ask
// login.microsoftonline.com) and Client as their transport. Per tenant it
// serves the OpenID configuration, the token endpoint (client credentials
// of a registered app, device code, refresh token) and the device
// authorization endpoint (/{tenant}/oauth2/v2.0/devicecode, for shim
// login). Tokens are opaque; the Foundry fake asks it about them.
type Entra struct {
	// URL is the authority host (https://127.0.0.1:port).
	URL string
	// Client trusts the server's certificate.
	Client *http.Client
	// Lifetime of the access tokens it issues (an hour by default).
	Lifetime time.Duration
	// Interval is the polling interval the device authorization answer
	// asks for, in seconds (1 by default).
	Interval int

	mu      sync.Mutex
	apps    map[string]string // confidential client id → secret
	public  map[string]bool   // public client ids (device code)
	devices map[string]*deviceGrant
	refresh map[string]*EntraToken
	tokens  map[string]*EntraToken
	cert    *x509.Certificate
	recorder
}

// EntraToken is a token the authority issued.
type EntraToken struct {
	Tenant, ClientID string
	// Subject is the signed-in user, or the app for client credentials.
	Subject string
	// Audience is the resource of the .default scope asked for.
	Audience string
	Expiry   time.Time
}

type deviceGrant struct {
	userCode, clientID, tenant, scope string
	approved                          bool
	expiry                            time.Time
}

// StartEntra starts the authority, closed when the test ends.
func StartEntra(t testing.TB) *Entra {
	t.Helper()
	e := &Entra{Lifetime: time.Hour, Interval: 1, apps: map[string]string{}, public: map[string]bool{},
		devices: map[string]*deviceGrant{}, refresh: map[string]*EntraToken{}, tokens: map[string]*EntraToken{}}
	srv := httptest.NewTLSServer(e)
	t.Cleanup(srv.Close)
	e.URL, e.Client, e.cert = srv.URL, srv.Client(), srv.Certificate()
	return e
}

// CertFile writes the server's certificate as PEM to a file of the test's
// and returns its path: SSL_CERT_FILE for a process (shim, its credential
// helper) that must trust the authority and nothing else.
func (e *Entra) CertFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "entra.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// AddApp registers a confidential client (an app registration with a
// client secret) and returns its id.
func (e *Entra) AddApp(secret string) string {
	id := newGUID()
	e.mu.Lock()
	e.apps[id] = secret
	e.mu.Unlock()
	return id
}

// AddPublicClient registers a public client (device code) and returns
// its id.
func (e *Entra) AddPublicClient() string {
	id := newGUID()
	e.mu.Lock()
	e.public[id] = true
	e.mu.Unlock()
	return id
}

// Approve signs in the user of a pending device code, as the person at
// the verification page would.
func (e *Entra) Approve(userCode string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range e.devices {
		if d.userCode == userCode {
			d.approved = true
			return nil
		}
	}
	return fmt.Errorf("no pending device code %q", userCode)
}

// Token returns what the authority knows of token: nil when it never
// issued it.
func (e *Entra) Token(token string) *EntraToken {
	e.mu.Lock()
	defer e.mu.Unlock()
	if it, ok := e.tokens[token]; ok {
		c := *it
		return &c
	}
	return nil
}

// ExpireAll makes every access token issued so far expired.
func (e *Entra) ExpireAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, it := range e.tokens {
		it.Expiry = time.Now().Add(-time.Second)
	}
}

// newGUID is a random GUID-shaped id.
func newGUID() string {
	h := randomToken("", 16)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// entraError answers as the v2.0 endpoints do (AADSTS codes).
func entraError(status int, code string, aadsts int, desc string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": code,
			"error_description": fmt.Sprintf("AADSTS%d: %s", aadsts, desc), "error_codes": []int{aadsts}})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

func (e *Entra) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := begin(w, r)
	defer x.end(&e.recorder)
	tenant, rest, _ := strings.Cut(strings.TrimPrefix(x.seen.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && rest == "v2.0/.well-known/openid-configuration":
		base := e.URL + "/" + tenant
		writeJSON(x.w, map[string]any{
			"issuer":                        e.URL + "/" + tenant + "/v2.0",
			"authorization_endpoint":        base + "/oauth2/v2.0/authorize",
			"token_endpoint":                base + "/oauth2/v2.0/token",
			"device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
			"jwks_uri":                      base + "/discovery/v2.0/keys",
			"response_types_supported":      []string{"code", "id_token", "code id_token", "id_token token"},
			"scopes_supported":              []string{"openid", "profile", "email", "offline_access"},
			"grant_types_supported":         []string{"authorization_code", "refresh_token", "client_credentials", deviceCodeGrant},
			"tenant_region_scope":           "NA",
		})
	case r.Method == http.MethodPost && rest == "oauth2/v2.0/devicecode":
		e.serveDeviceCode(x, tenant)
	case r.Method == http.MethodPost && rest == "oauth2/v2.0/token":
		e.serveToken(x, tenant)
	default:
		x.refuse("no such endpoint", entraError(http.StatusNotFound, "invalid_request", 90002, "no such endpoint "+x.seen.Path))
	}
}

// resource is the audience of the one ".default" scope among scopes.
func resource(scopes string) (string, bool) {
	res := ""
	for _, s := range strings.Fields(scopes) {
		switch s {
		case "openid", "profile", "offline_access", "email":
			continue
		}
		aud, ok := strings.CutSuffix(s, "/.default")
		if !ok || res != "" {
			return "", false
		}
		res = aud
	}
	return res, res != ""
}

func (e *Entra) serveDeviceCode(x *exchange, tenant string) {
	_ = x.r.ParseForm()
	client, scope := x.r.PostForm.Get("client_id"), x.r.PostForm.Get("scope")
	e.mu.Lock()
	known := e.public[client]
	e.mu.Unlock()
	if !known {
		x.refuse("unknown public client", entraError(http.StatusBadRequest, "unauthorized_client", 700016,
			"Application with identifier '"+client+"' was not found in the directory."))
		return
	}
	if _, ok := resource(scope); !ok {
		x.refuse("no resource scope", entraError(http.StatusBadRequest, "invalid_scope", 70011, "The provided value for scope "+scope+" is not valid."))
		return
	}
	code := randomToken("DAQABAAEAAA", 32)
	user := strings.ToUpper(randomToken("", 4))
	e.mu.Lock()
	e.devices[code] = &deviceGrant{userCode: user, clientID: client, tenant: tenant, scope: scope, expiry: time.Now().Add(15 * time.Minute)}
	interval := e.Interval
	e.mu.Unlock()
	writeJSON(x.w, map[string]any{"device_code": code, "user_code": user, "verification_uri": "https://microsoft.com/devicelogin",
		"expires_in": 900, "interval": interval,
		"message": "To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code " + user + " to authenticate."})
}

func (e *Entra) serveToken(x *exchange, tenant string) {
	_ = x.r.ParseForm()
	f := x.r.PostForm
	client := f.Get("client_id")
	switch f.Get("grant_type") {
	case "client_credentials":
		e.mu.Lock()
		secret, ok := e.apps[client]
		e.mu.Unlock()
		if !ok {
			x.refuse("unknown app", entraError(http.StatusBadRequest, "unauthorized_client", 700016,
				"Application with identifier '"+client+"' was not found in the directory."))
			return
		}
		if f.Get("client_secret") != secret {
			x.refuse("wrong client secret", entraError(http.StatusUnauthorized, "invalid_client", 7000215,
				"Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID."))
			return
		}
		aud, ok := resource(f.Get("scope"))
		if !ok {
			x.refuse("not one .default scope", entraError(http.StatusBadRequest, "invalid_scope", 1002012,
				"The provided value for scope "+f.Get("scope")+" is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier."))
			return
		}
		e.issue(x, &EntraToken{Tenant: tenant, ClientID: client, Subject: client, Audience: aud}, false)
	case deviceCodeGrant, "device_code": // MSAL sends the short form, which Entra takes
		e.mu.Lock()
		d, ok := e.devices[f.Get("device_code")]
		e.mu.Unlock()
		switch {
		case !ok || d.clientID != client || d.tenant != tenant:
			x.refuse("unknown device code", entraError(http.StatusBadRequest, "invalid_grant", 70000, "The provided value for the input parameter 'device_code' is not valid."))
		case time.Now().After(d.expiry):
			x.refuse("device code expired", entraError(http.StatusBadRequest, "expired_token", 70020, "The provided value for the input parameter 'device_code' is not valid. This device code has expired."))
		case !d.approved:
			x.refuse("authorization pending", entraError(http.StatusBadRequest, "authorization_pending", 70016, "OAuth 2.0 device flow error. Authorization is pending. Continue polling."))
		default:
			e.mu.Lock()
			delete(e.devices, f.Get("device_code"))
			e.mu.Unlock()
			aud, _ := resource(d.scope)
			e.issue(x, &EntraToken{Tenant: tenant, ClientID: client, Subject: "alice@contoso.example", Audience: aud}, true)
		}
	case "refresh_token":
		e.mu.Lock()
		old, ok := e.refresh[f.Get("refresh_token")]
		if ok {
			delete(e.refresh, f.Get("refresh_token")) // refresh tokens rotate
		}
		e.mu.Unlock()
		if !ok || old.ClientID != client {
			x.refuse("unknown refresh token", entraError(http.StatusBadRequest, "invalid_grant", 70000, "The provided value for the input parameter 'refresh_token' is not valid."))
			return
		}
		aud := old.Audience
		if a, ok := resource(f.Get("scope")); ok {
			aud = a
		}
		e.issue(x, &EntraToken{Tenant: tenant, ClientID: client, Subject: old.Subject, Audience: aud}, true)
	default:
		x.refuse("unsupported grant type", entraError(http.StatusBadRequest, "unsupported_grant_type", 70003, "The app requested an unsupported grant type '"+f.Get("grant_type")+"'."))
	}
}

// issue answers an access token (with a refresh token, an ID token and
// client_info for a signed-in user).
func (e *Entra) issue(x *exchange, tok *EntraToken, user bool) {
	e.mu.Lock()
	life := e.Lifetime
	tok.Expiry = time.Now().Add(life)
	access := randomToken("eyJ0eXAiOiJKV1Qi.", 32)
	e.tokens[access] = tok
	res := map[string]any{"token_type": "Bearer", "scope": tok.Audience + "/.default", "expires_in": int(life.Seconds()),
		"ext_expires_in": int(life.Seconds()), "access_token": access}
	if user {
		refresh := randomToken("1.AQ", 32)
		c := *tok
		e.refresh[refresh] = &c
		res["refresh_token"] = refresh
		oid := newGUID()
		res["client_info"] = b64(map[string]string{"uid": oid, "utid": tok.Tenant})
		res["id_token"] = b64(map[string]string{"alg": "none", "typ": "JWT"}) + "." + b64(map[string]any{
			"aud": tok.ClientID, "iss": e.URL + "/" + tok.Tenant + "/v2.0", "iat": time.Now().Unix(), "exp": tok.Expiry.Unix(),
			"oid": oid, "tid": tok.Tenant, "sub": oid, "preferred_username": tok.Subject, "name": "Alice", "ver": "2.0"}) + "."
	}
	e.mu.Unlock()
	writeJSON(x.w, res)
}

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// check says why token may not call Foundry, or "".
func (e *Entra) check(token, audience string) string {
	it := e.Token(token)
	switch {
	case token == "":
		return "no bearer token"
	case it == nil:
		return "a token the authority never issued"
	case time.Now().After(it.Expiry):
		return "a token that expired at " + it.Expiry.Format(time.RFC3339)
	case it.Audience != audience:
		return "a token for " + it.Audience + ", not " + audience
	}
	return ""
}
