package platformtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// CloudPlatformScope is the scope Google's agent platforms want.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// jwtBearerGrant is the grant type of a service account's assertion
// (RFC 7523), as Google's OAuth 2.0 server takes it.
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// GoogleTokenServer is a loopback stand-in for Google's OAuth 2.0 token
// endpoint (https://oauth2.googleapis.com/token). A service-account JSON
// or authorized-user JSON it writes names it as token_uri, so
// golang.org/x/oauth2/google (CredentialsFromJSON, or ADC through
// GOOGLE_APPLICATION_CREDENTIALS) gets its tokens here. It verifies a
// service account's JWT bearer assertion (RS256 signature with the
// account's public key and key id, iss, aud = the token endpoint, iat and
// exp, a scope or a target_audience), or an authorized user's refresh
// token with its client id and secret, and issues an access token with an
// expiry (or, for a target_audience, an ID token). The platforms' fakes ask
// it whether a token is one it issued.
type GoogleTokenServer struct {
	// URL is the server's base URL; TokenURL is the token endpoint.
	URL string
	// Lifetime of the access tokens it issues (an hour by default).
	Lifetime time.Duration

	mu       sync.Mutex
	accounts map[string]serviceAccount // by client_email
	users    map[string]authorizedUser // by refresh token
	tokens   map[string]*GoogleToken
	idKey    *rsa.PrivateKey
	recorder
}

type serviceAccount struct {
	keyID string
	key   *rsa.PublicKey
}

type authorizedUser struct {
	clientID, clientSecret, account string
}

// GoogleToken is a token the server issued.
type GoogleToken struct {
	// Subject is the service account's email or the user's account.
	Subject string
	Scopes  []string
	Expiry  time.Time
	// ID is true for an ID token (which the platforms refuse).
	ID bool
}

// StartGoogleTokenServer starts a token server, closed when the test ends.
func StartGoogleTokenServer(t testing.TB) *GoogleTokenServer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &GoogleTokenServer{Lifetime: time.Hour, accounts: map[string]serviceAccount{},
		users: map[string]authorizedUser{}, tokens: map[string]*GoogleToken{}, idKey: key}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// TokenURL is the token endpoint, the token_uri of the JSON it writes.
func (g *GoogleTokenServer) TokenURL() string { return g.URL + "/token" }

// ServiceAccountJSON returns a service-account key file for a new account
// email in project (as the console downloads it), its token_uri this
// server; the server knows the account's public key.
func (g *GoogleTokenServer) ServiceAccountJSON(t testing.TB, email, project string) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyID := randomToken("", 20)
	g.mu.Lock()
	g.accounts[email] = serviceAccount{keyID: keyID, key: &key.PublicKey}
	g.mu.Unlock()
	b, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": project, "private_key_id": keyID,
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": email, "client_id": "1" + randomToken("", 10),
		"auth_uri": g.URL + "/auth", "token_uri": g.TokenURL(),
		"universe_domain": "googleapis.com",
	}, "", "  ")
	return b
}

// AuthorizedUserJSON returns the file `gcloud auth application-default
// login` writes for account, with quotaProject as its quota_project_id
// (none when empty) and this server as its token_uri.
func (g *GoogleTokenServer) AuthorizedUserJSON(t testing.TB, account, quotaProject string) []byte {
	t.Helper()
	u := authorizedUser{clientID: randomToken("", 8) + ".apps.googleusercontent.com",
		clientSecret: randomToken("", 12), account: account}
	refresh := randomToken("1//", 24)
	g.mu.Lock()
	g.users[refresh] = u
	g.mu.Unlock()
	m := map[string]string{"type": "authorized_user", "client_id": u.clientID, "client_secret": u.clientSecret,
		"refresh_token": refresh, "token_uri": g.TokenURL(), "account": account, "universe_domain": "googleapis.com"}
	if quotaProject != "" {
		m["quota_project_id"] = quotaProject
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return b
}

// Token returns what the server knows of token: nil when it never issued
// it.
func (g *GoogleTokenServer) Token(token string) *GoogleToken {
	g.mu.Lock()
	defer g.mu.Unlock()
	if it, ok := g.tokens[token]; ok {
		c := *it
		return &c
	}
	return nil
}

// ExpireAll makes every token issued so far expired.
func (g *GoogleTokenServer) ExpireAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, it := range g.tokens {
		it.Expiry = time.Now().Add(-time.Second)
	}
}

// oauthError answers as Google's token endpoint does.
func oauthError(status int, code, desc string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
}

// assertionClaims are the claims of a service account's assertion.
type assertionClaims struct {
	Iss            string `json:"iss"`
	Scope          string `json:"scope"`
	Aud            string `json:"aud"`
	Exp            int64  `json:"exp"`
	Iat            int64  `json:"iat"`
	TargetAudience string `json:"target_audience"`
}

func (g *GoogleTokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := begin(w, r)
	defer x.end(&g.recorder)
	if r.Method != http.MethodPost || x.seen.Path != "/token" {
		x.refuse("not the token endpoint", oauthError(http.StatusNotFound, "not_found", "no such endpoint"))
		return
	}
	if err := r.ParseForm(); err != nil {
		x.refuse("unreadable form", oauthError(http.StatusBadRequest, "invalid_request", err.Error()))
		return
	}
	switch r.PostForm.Get("grant_type") {
	case jwtBearerGrant:
		g.serveAssertion(x, r.PostForm.Get("assertion"))
	case "refresh_token":
		g.mu.Lock()
		u, ok := g.users[r.PostForm.Get("refresh_token")]
		g.mu.Unlock()
		if !ok || u.clientID != r.PostForm.Get("client_id") || u.clientSecret != r.PostForm.Get("client_secret") {
			x.refuse("unknown refresh token or client", oauthError(http.StatusBadRequest, "invalid_grant", "Bad Request"))
			return
		}
		g.issue(x, u.account, []string{CloudPlatformScope})
	default:
		x.refuse("unsupported grant type", oauthError(http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type")))
	}
}

// serveAssertion checks a service account's JWT bearer assertion.
func (g *GoogleTokenServer) serveAssertion(x *exchange, assertion string) {
	bad := func(why string) { x.refuse(why, oauthError(http.StatusBadRequest, "invalid_grant", why)) }
	jws, err := jose.ParseSignedCompact(assertion, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(jws.Signatures) != 1 {
		bad("Invalid JWT: not an RS256 JWS")
		return
	}
	var claims assertionClaims
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims); err != nil {
		bad("Invalid JWT: unreadable claims")
		return
	}
	g.mu.Lock()
	acct, ok := g.accounts[claims.Iss]
	g.mu.Unlock()
	if !ok {
		bad("Invalid JWT: unknown service account " + claims.Iss)
		return
	}
	if kid := jws.Signatures[0].Header.KeyID; kid != acct.keyID {
		bad("Invalid JWT Signature: key id " + kid + " is not the account's")
		return
	}
	if _, err := jws.Verify(acct.key); err != nil {
		bad("Invalid JWT Signature.")
		return
	}
	now := time.Now().Unix()
	switch {
	case claims.Aud != g.TokenURL():
		bad("Invalid JWT: aud is " + claims.Aud + ", not the token endpoint")
	case claims.Iat > now+300 || claims.Exp <= now || claims.Exp-claims.Iat > 3600:
		bad("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
	case claims.TargetAudience != "":
		g.issueID(x, claims.Iss, claims.TargetAudience)
	case strings.TrimSpace(claims.Scope) == "":
		x.refuse("no scope", oauthError(http.StatusBadRequest, "invalid_scope", "Invalid OAuth scope or ID token audience provided."))
	default:
		g.issue(x, claims.Iss, strings.Fields(claims.Scope))
	}
}

// issue answers an access token for subject.
func (g *GoogleTokenServer) issue(x *exchange, subject string, scopes []string) {
	tok := randomToken("ya29.", 32)
	g.mu.Lock()
	life := g.Lifetime
	g.tokens[tok] = &GoogleToken{Subject: subject, Scopes: scopes, Expiry: time.Now().Add(life)}
	g.mu.Unlock()
	x.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(x.w).Encode(map[string]any{"access_token": tok, "expires_in": int(life.Seconds()), "token_type": "Bearer"})
}

// issueID answers an ID token (a signed JWT) for subject and audience.
func (g *GoogleTokenServer) issueID(x *exchange, subject, audience string) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: g.idKey}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		x.refuse("signer: "+err.Error(), oauthError(http.StatusInternalServerError, "internal", err.Error()))
		return
	}
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{"iss": "https://accounts.google.com", "aud": audience, "sub": subject,
		"email": subject, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	obj, err := signer.Sign(claims)
	if err != nil {
		x.refuse("sign: "+err.Error(), oauthError(http.StatusInternalServerError, "internal", err.Error()))
		return
	}
	tok, _ := obj.CompactSerialize()
	g.mu.Lock()
	g.tokens[tok] = &GoogleToken{Subject: subject, Expiry: now.Add(time.Hour), ID: true}
	g.mu.Unlock()
	x.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(x.w).Encode(map[string]any{"id_token": tok})
}

// check says why token may not call a Google platform, or "".
func (g *GoogleTokenServer) check(token string) (reason string, scopeOK bool) {
	it := g.Token(token)
	switch {
	case token == "":
		return "no bearer token", false
	case it == nil:
		return "a token the token server never issued", false
	case it.ID:
		return "an ID token, not an access token", false
	case time.Now().After(it.Expiry):
		return fmt.Sprintf("a token that expired at %s", it.Expiry.Format(time.RFC3339)), false
	}
	return "", slices.Contains(it.Scopes, CloudPlatformScope)
}
