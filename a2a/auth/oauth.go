package auth

// The credential on the wire: the scheme the card chose, the stored OAuth
// token refreshed once when it is past its expiry or answered 401 (SPEC
// §12.1). The refresh token goes only to the token URL.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/redact"
)

// OAuthToken is what an OAuth sign-in stores for a URL.
type OAuthToken struct {
	AccessToken  string
	RefreshToken string
	// Expiry is when the access token expires (zero: unknown).
	Expiry time.Time
	// TokenURL is where the refresh token goes, and nowhere else.
	TokenURL string
	ClientID string
}

// OAuth is an OAuth sign-in the client may renew.
type OAuth struct {
	Token OAuthToken
	// ClientSecret is sent to the token URL when refreshing, if set.
	ClientSecret string
	// OnRefresh is called with every renewed token (to store it). With
	// Shared, it is called before the lock is released.
	OnRefresh func(OAuthToken)
	// Shared, when set, is the sign-in as it is stored for every process
	// (SPEC §12.1): a renewal runs under its lock and starts from what
	// is stored then, so a token another process renewed is taken as it
	// is and a refresh token is never sent twice.
	Shared SharedSignIn
}

// SharedSignIn is a stored OAuth sign-in that several processes (two
// editor windows) or clients renew.
type SharedSignIn interface {
	// Lock takes the lock every renewal of the sign-in runs under, and
	// reads the sign-in stored now (ok false when none is). unlock
	// releases the lock.
	Lock(ctx context.Context) (stored OAuthToken, ok bool, unlock func(), err error)
}

// expiryDelta renews a token this long before it expires.
const expiryDelta = 10 * time.Second

// Options configure a Stored.
type Options struct {
	// Token is the stored secret (a bearer token, an API key,
	// user:password), put on requests as the card's scheme takes it.
	Token string
	// OAuth, when set, is the stored OAuth sign-in, renewed on expiry or
	// 401; its access token is the secret.
	OAuth *OAuth
	// Scheme, when set, is how Token is put on whatever the card says (a
	// managed platform's: ServiceNow's API key header). An OAuth access
	// token is a bearer token still.
	Scheme *a2a.Scheme
	// Origin is the agent's origin: a 401 from another is not renewed.
	Origin string
	// Transport carries the requests to the token URL.
	Transport http.RoundTripper
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
}

// Stored is the stored credential of one client: the secret, the scheme
// the card chose, and the OAuth sign-in that renews it. It is a
// Credential.
type Stored struct {
	origin string
	fixed  *a2a.Scheme
	base   http.RoundTripper
	now    func() time.Time
	log    *slog.Logger

	mu       sync.Mutex
	secret   string
	oauth    *OAuth
	security *a2a.Security
	// refused is the last refresh token the token URL refused: not
	// sent again.
	refused *refusedRefresh
}

// New returns the credential of opts; every secret in it is redacted
// wherever the process writes.
func New(opts Options) *Stored { return newStored(opts, time.Now) }

// newStored is New with the clock now.
func newStored(opts Options, now func() time.Time) *Stored {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	redact.Add(opts.Token)
	a := &Stored{origin: opts.Origin, fixed: opts.Scheme, base: opts.Transport, secret: opts.Token, now: now, log: opts.Log}
	if opts.OAuth != nil {
		o := *opts.OAuth
		a.oauth = &o
		if o.Token.AccessToken != "" {
			a.secret = o.Token.AccessToken
		}
		redact.Add(o.Token.AccessToken)
		redact.Add(o.Token.RefreshToken)
		redact.Add(o.ClientSecret)
	}
	return a
}

// SetSecurity records what the card says about signing in.
func (a *Stored) SetSecurity(s *a2a.Security) {
	a.mu.Lock()
	a.security = s
	a.mu.Unlock()
}

// Security returns what the card says about signing in, once discovery
// ran (nil: bearer, or not discovered yet).
func (a *Stored) Security() *a2a.Security {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.security
}

// Expiry returns the expiry of the OAuth access token in use, zero when
// unknown.
func (a *Stored) Expiry() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.oauth == nil {
		return time.Time{}
	}
	return a.oauth.Token.Expiry
}

// Empty implements Credential: no secret was given.
func (a *Stored) Empty() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.secret == ""
}

// Check implements Credential: it fails for a card requirement shim cannot
// meet.
func (a *Stored) Check() error {
	a.mu.Lock()
	sec := a.security
	a.mu.Unlock()
	if sec != nil && sec.Unmet != "" {
		return &a2a.SignInError{Msg: "the agent card asks for a sign-in shim cannot do: " + sec.Unmet +
			"; shim signs in with bearer tokens, basic, API keys, OAuth 2.0 and OpenID Connect"}
	}
	return nil
}

// Apply implements Credential: it puts the credential on req as the card's
// scheme takes it, first renewing an OAuth token that is past its expiry.
func (a *Stored) Apply(req *http.Request) error {
	a.mu.Lock()
	expired := a.oauth != nil && a.stale(a.oauth.Token)
	current := a.secret
	a.mu.Unlock()
	if expired {
		// Said as a refusal (an *HTTPError 401 inside), as the server would.
		refused := &a2a.HTTPError{StatusCode: http.StatusUnauthorized, URL: req.URL.Scheme + "://" + req.URL.Host + req.URL.Path}
		if _, err := a.refresh(req.Context(), current, refused); err != nil {
			return err
		}
	}
	a.mu.Lock()
	secret, sec := a.secret, a.security
	a.mu.Unlock()
	var s *a2a.Scheme
	if sec != nil {
		s = sec.Scheme
	}
	if a.fixed != nil {
		s = a.fixed
	}
	if a.oauth != nil {
		s = nil // an OAuth access token is a bearer token
	}
	applyCredential(req, s, secret)
	return nil
}

// stale reports whether t expires within the renewal margin (the margin
// golang.org/x/oauth2 uses too). The caller holds a.mu.
func (a *Stored) stale(t OAuthToken) bool {
	return !t.Expiry.IsZero() && !a.now().Before(t.Expiry.Add(-expiryDelta))
}

// refresh renews the OAuth token once: when the token in use is no longer
// sent (another request renewed it), it returns the new one. refused is
// the 401 answer that asked for it, if any. With a shared sign-in, it
// renews under the shared lock: a token another process stored since is
// taken instead, and a renewal starts from the stored refresh token.
func (a *Stored) refresh(ctx context.Context, sent string, refused error) (string, error) {
	// What the renewal did is told to the call's Reporter once the locks
	// are let go (deferred first, it runs last).
	var told *a2a.Report
	defer func() {
		if told != nil {
			a2a.Tell(ctx, *told)
		}
	}()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.oauth == nil {
		return "", refused
	}
	if a.secret != sent {
		return a.secret, nil
	}
	t := a.oauth.Token
	if sh := a.oauth.Shared; sh != nil {
		stored, ok, unlock, err := sh.Lock(ctx)
		switch {
		case err != nil:
			a.log.Warn("could not lock the stored OAuth sign-in; renewing without the lock", "err", redact.Default.String(err.Error()))
		default:
			defer unlock()
			if ok {
				redact.Add(stored.AccessToken)
				redact.Add(stored.RefreshToken)
			}
			if ok && stored.AccessToken != "" && stored.AccessToken != sent && !a.stale(stored) {
				// Renewed by another process (or client) since this one
				// read it: use that, and send no refresh token.
				a.oauth.Token = stored
				a.secret = stored.AccessToken
				return stored.AccessToken, nil
			}
			if ok && stored.RefreshToken != "" {
				// The newest refresh token: a rotating server has
				// revoked any this process read before.
				t.RefreshToken = stored.RefreshToken
				t.TokenURL = cmp.Or(stored.TokenURL, t.TokenURL)
				t.ClientID = cmp.Or(stored.ClientID, t.ClientID)
			}
		}
	}
	fail := func(why string, err error) error {
		msg := "the OAuth sign-in expired and could not be renewed (" + why + "): run `shim login` in a terminal to sign in again"
		if err != nil {
			msg = "the OAuth sign-in expired and could not be renewed (" + why + ": " + redact.Default.String(err.Error()) +
				"): run `shim login` in a terminal to sign in again"
		}
		told = &a2a.Report{Kind: a2a.ReportRenewalRefused, Detail: msg}
		return &a2a.SignInError{Msg: msg, Err: refused}
	}
	if t.RefreshToken == "" {
		return "", fail("no refresh token was stored", nil)
	}
	if err := a.refused.again(t.RefreshToken); err != nil {
		// Refused already (requests sent at once each met the 401): a
		// refresh token is never sent twice.
		return "", err
	}
	if err := CheckEndpointURL(t.TokenURL); err != nil {
		return "", fail("token URL: "+err.Error(), nil)
	}
	conf := &oauth2.Config{ClientID: t.ClientID, ClientSecret: a.oauth.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: authStyle(a.oauth.ClientSecret)}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, tokenHTTPClient(a.base))
	tok, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: t.RefreshToken, Expiry: time.Unix(1, 0)}).Token()
	if err != nil {
		ferr := fail("the token URL refused the refresh token", err)
		a.refused = refusal(t.RefreshToken, err, ferr)
		return "", ferr
	}
	next := fromOAuth2(tok, t.TokenURL, t.ClientID)
	if next.RefreshToken == "" {
		next.RefreshToken = t.RefreshToken
	}
	redact.Add(next.AccessToken)
	redact.Add(next.RefreshToken)
	a.oauth.Token = next
	a.secret = next.AccessToken
	if a.oauth.OnRefresh != nil {
		a.oauth.OnRefresh(next)
	}
	told = &a2a.Report{Kind: a2a.ReportTokenRenewed}
	return next.AccessToken, nil
}

// refusedRefresh is a refresh token the token URL refused, and what its
// renewal answered.
type refusedRefresh struct {
	token string
	err   error
}

// refusal is what is kept of a renewal of token that failed with err
// (answered ferr): the refusal when the token URL answered (not a
// connection that failed), else nil.
func refusal(token string, err, ferr error) *refusedRefresh {
	if re := (*oauth2.RetrieveError)(nil); errors.As(err, &re) {
		return &refusedRefresh{token: token, err: ferr}
	}
	return nil
}

// again is the refusal kept when it was token's (nil r: none).
func (r *refusedRefresh) again(token string) error {
	if r == nil || r.token != token {
		return nil
	}
	return r.err
}

// authStyle is how the client authenticates at the token URL: a public
// client names itself in the form, a confidential one uses HTTP Basic
// (RFC 6749 §2.3.1). Never both in turn: one request per renewal.
func authStyle(secret string) oauth2.AuthStyle {
	if secret == "" {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

func fromOAuth2(tok *oauth2.Token, tokenURL, clientID string) OAuthToken {
	return OAuthToken{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry,
		TokenURL: tokenURL, ClientID: clientID}
}

// tokenHTTPClient talks to authorization servers: no credential of the
// agent's, no redirect followed (a redirected POST would resend the
// refresh token elsewhere).
func tokenHTTPClient(base http.RoundTripper) *http.Client {
	return &http.Client{Transport: base, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// CheckEndpointURL fails for an authorization server URL that is neither
// https nor on this machine.
func CheckEndpointURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && IsLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%s is not https (nor on this machine): shim sends no OAuth secret there", raw)
}

// Wrap returns base with the OAuth renewal: a request to the agent's
// origin answered 401 renews the token and is sent again, once.
func (a *Stored) Wrap(base http.RoundTripper) http.RoundTripper {
	return &renewing{base: base, auth: a}
}

// renewing renews an OAuth token answered with 401 and sends the request
// again, once.
type renewing struct {
	base http.RoundTripper
	auth *Stored
}

func (t *renewing) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || Origin(req.URL) != t.auth.origin {
		return resp, err
	}
	t.auth.mu.Lock()
	renewable := t.auth.oauth != nil
	t.auth.mu.Unlock()
	sent, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !renewable || !ok {
		return resp, nil
	}
	canResend := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	refused := &a2a.HTTPError{StatusCode: resp.StatusCode, URL: req.URL.Scheme + "://" + req.URL.Host + req.URL.Path}
	next, rerr := t.auth.refresh(req.Context(), sent, refused)
	if rerr != nil {
		resp.Body.Close()
		return nil, rerr
	}
	if !canResend {
		return resp, nil
	}
	resp.Body.Close()
	// Requests sent at once each renew in turn; a server that revokes
	// the access token a renewal replaced can refuse the one this request
	// was sent again with: it goes once more with the newest, which no
	// renewal of its own (no refresh token is sent for it).
	for range resendsAfterRenewal {
		r, err := t.resend(req, next)
		if err != nil || r.StatusCode != http.StatusUnauthorized {
			return r, err
		}
		t.auth.mu.Lock()
		newest := t.auth.secret
		t.auth.mu.Unlock()
		if newest == next {
			return r, nil
		}
		r.Body.Close()
		next = newest
	}
	return t.resend(req, next)
}

// resendsAfterRenewal bounds how many times a request renewed for is sent
// again with a newer token another request's renewal stored meanwhile.
const resendsAfterRenewal = 3

// resend sends req again with the access token secret.
func (t *renewing) resend(req *http.Request, secret string) (*http.Response, error) {
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		again.Body = body
	}
	again.Header.Set("Authorization", "Bearer "+secret)
	return t.base.RoundTrip(again)
}
