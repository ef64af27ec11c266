package auth

// Signing in with OAuth 2.0 and OpenID Connect (SPEC §12.1): endpoints
// from the card or from RFC 8414 / OIDC discovery, then the device-code
// flow when offered, else authorization code with PKCE on a loopback
// redirect, else client credentials. golang.org/x/oauth2 speaks the
// protocol.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/redact"
)

// The flows OAuthLogin runs.
const (
	FlowDeviceCode        = "device code"
	FlowAuthorizationCode = "authorization code"
	FlowClientCredentials = "client credentials"
)

// ErrNoClientID is returned by OAuthLogin.Run without a client id.
var ErrNoClientID = errors.New("the agent signs in with OAuth 2.0 and shim needs a client id for it: " +
	"pass --oauth-client-id (the client registered for shim with the agent's authorization server)")

// OAuthLogin runs one OAuth sign-in.
type OAuthLogin struct {
	ClientID     string
	ClientSecret string
	// Scopes, when set, replace the scopes of the card (--oauth-scopes).
	Scopes []string
	// Transport carries the requests to the authorization server.
	Transport http.RoundTripper
	// DeviceCode is told the verification URL and the user code, once
	// they passed CheckPage and CheckUserCode; verificationURIComplete is
	// "" unless it passed too and has the origin of verificationURI.
	DeviceCode func(verificationURI, verificationURIComplete, userCode string)
	// OpenURL is told the authorization URL the user opens, once it
	// passed CheckPage.
	OpenURL func(authURL string)
	// CallbackAddr is the loopback address of the redirect listener
	// (default "127.0.0.1:0").
	CallbackAddr string
}

// OAuthPlan is what a sign-in will do: the flow and its endpoints.
type OAuthPlan struct {
	Flow   string
	Scopes []string
	a2a.OAuthFlow
}

type asMetadata struct {
	Issuer                 string   `json:"issuer"`
	AuthorizationEndpoint  string   `json:"authorization_endpoint"`
	TokenEndpoint          string   `json:"token_endpoint"`
	DeviceEndpoint         string   `json:"device_authorization_endpoint"`
	GrantTypesSupported    []string `json:"grant_types_supported"`
	ScopesSupported        []string `json:"scopes_supported"`
	CodeChallengeSupported []string `json:"code_challenge_methods_supported"`
}

// discover reads RFC 8414 or OpenID Connect discovery metadata.
func (l *OAuthLogin) discover(ctx context.Context, metaURL string) (*asMetadata, error) {
	if err := CheckEndpointURL(metaURL); err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metaURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := tokenHTTPClient(l.transport()).Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization server metadata at %s: %w", metaURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("authorization server metadata at %s: HTTP %d", metaURL, resp.StatusCode)
	}
	var m asMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("authorization server metadata at %s: not JSON", metaURL)
	}
	return &m, nil
}

func (l *OAuthLogin) transport() http.RoundTripper {
	if l.Transport != nil {
		return l.Transport
	}
	return http.DefaultTransport
}

// Plan chooses the flow: device code when offered, else authorization
// code, else client credentials (with a client secret); endpoints the
// card leaves out come from its metadata URL.
func (l *OAuthLogin) Plan(ctx context.Context, s *a2a.Scheme) (*OAuthPlan, error) {
	if !s.OAuth() {
		return nil, fmt.Errorf("%s is not an OAuth 2.0 scheme", s)
	}
	flows := schemeFlows{device: s.DeviceCode, code: s.AuthorizationCode, cc: s.ClientCredentials}
	if s.MetadataURL != "" && (s.Kind == a2a.SchemeOpenIDConnect || flows.none()) {
		m, err := l.discover(ctx, s.MetadataURL)
		if err != nil {
			return nil, err
		}
		flows.discovered(m)
	}
	p, ok := flows.plan()
	if !ok {
		return nil, fmt.Errorf("%s offers no flow shim runs (device code, authorization code, client credentials)", s)
	}
	for _, u := range []string{p.TokenURL, p.AuthorizationURL, p.DeviceAuthorizationURL, p.RefreshURL} {
		if u == "" {
			continue
		}
		if err := CheckEndpointURL(u); err != nil {
			return nil, fmt.Errorf("the %s flow: %w", p.Flow, err)
		}
	}
	p.Scopes = l.scopes(s, p)
	return p, nil
}

// schemeFlows are the flows a scheme offers (nil: not offered).
type schemeFlows struct{ device, code, cc *a2a.OAuthFlow }

func (f *schemeFlows) none() bool { return f.device == nil && f.code == nil && f.cc == nil }

// discovered takes the flows the authorization server's metadata offers.
func (f *schemeFlows) discovered(m *asMetadata) {
	grants := m.GrantTypesSupported
	offers := func(g string) bool { return len(grants) == 0 || slices.Contains(grants, g) }
	if m.DeviceEndpoint != "" && m.TokenEndpoint != "" && offers("urn:ietf:params:oauth:grant-type:device_code") {
		f.device = &a2a.OAuthFlow{DeviceAuthorizationURL: m.DeviceEndpoint, TokenURL: m.TokenEndpoint}
	}
	if m.AuthorizationEndpoint != "" && m.TokenEndpoint != "" && offers("authorization_code") {
		f.code = &a2a.OAuthFlow{AuthorizationURL: m.AuthorizationEndpoint, TokenURL: m.TokenEndpoint}
	}
	if m.TokenEndpoint != "" && slices.Contains(grants, "client_credentials") {
		f.cc = &a2a.OAuthFlow{TokenURL: m.TokenEndpoint}
	}
}

// plan picks device code, else authorization code, else client
// credentials.
func (f *schemeFlows) plan() (*OAuthPlan, bool) {
	switch {
	case f.device != nil:
		return &OAuthPlan{Flow: FlowDeviceCode, OAuthFlow: *f.device}, true
	case f.code != nil:
		return &OAuthPlan{Flow: FlowAuthorizationCode, OAuthFlow: *f.code}, true
	case f.cc != nil:
		return &OAuthPlan{Flow: FlowClientCredentials, OAuthFlow: *f.cc}, true
	}
	return nil, false
}

// scopes are --oauth-scopes, else the requirement's, else the flow's, else
// openid for OpenID Connect.
func (l *OAuthLogin) scopes(s *a2a.Scheme, p *OAuthPlan) []string {
	switch {
	case len(l.Scopes) > 0:
		return l.Scopes
	case len(s.Scopes) > 0:
		return s.Scopes
	case len(p.OAuthFlow.Scopes) > 0:
		return p.OAuthFlow.Scopes
	case s.Kind == a2a.SchemeOpenIDConnect:
		return []string{"openid"}
	}
	return nil
}

// Run signs in with the plan's flow and returns the token to store.
func (l *OAuthLogin) Run(ctx context.Context, p *OAuthPlan) (OAuthToken, error) {
	if l.ClientID == "" {
		return OAuthToken{}, ErrNoClientID
	}
	redact.Add(l.ClientSecret)
	ctx = context.WithValue(ctx, oauth2.HTTPClient, tokenHTTPClient(l.transport()))
	refreshAt := p.TokenURL
	if p.RefreshURL != "" {
		refreshAt = p.RefreshURL
	}
	var tok *oauth2.Token
	var err error
	switch p.Flow {
	case FlowDeviceCode:
		tok, err = l.device(ctx, p)
	case FlowAuthorizationCode:
		tok, err = l.authCode(ctx, p)
	case FlowClientCredentials:
		if l.ClientSecret == "" {
			return OAuthToken{}, errors.New("the agent offers only the client-credentials flow: pass --oauth-client-secret-file with the client secret")
		}
		cc := &clientcredentials.Config{ClientID: l.ClientID, ClientSecret: l.ClientSecret, TokenURL: p.TokenURL, Scopes: p.Scopes,
			AuthStyle: authStyle(l.ClientSecret)}
		tok, err = cc.Token(ctx)
	default:
		return OAuthToken{}, fmt.Errorf("unknown flow %q", p.Flow)
	}
	if err != nil {
		return OAuthToken{}, oauthError(err)
	}
	if tok.AccessToken == "" {
		return OAuthToken{}, errors.New("the token endpoint answered no access token")
	}
	redact.Add(tok.AccessToken)
	redact.Add(tok.RefreshToken)
	return fromOAuth2(tok, refreshAt, l.ClientID), nil
}

func (l *OAuthLogin) config(p *OAuthPlan) *oauth2.Config {
	return &oauth2.Config{ClientID: l.ClientID, ClientSecret: l.ClientSecret, Scopes: p.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthorizationURL, DeviceAuthURL: p.DeviceAuthorizationURL, TokenURL: p.TokenURL,
			AuthStyle: authStyle(l.ClientSecret)}}
}

func (l *OAuthLogin) device(ctx context.Context, p *OAuthPlan) (*oauth2.Token, error) {
	conf := l.config(p)
	da, err := conf.DeviceAuth(ctx)
	if err != nil {
		return nil, err
	}
	// The page and code are checked before anything is shown or polled
	// (SPEC §15): a flow whose page fails ends here.
	page, err := devicePage(da.VerificationURI, da.VerificationURIComplete, da.UserCode)
	if err != nil {
		return nil, err
	}
	if l.DeviceCode != nil {
		l.DeviceCode(page.URI, page.Complete, page.Code)
	}
	// DeviceAccessToken polls at the server's interval, slower after
	// slow_down, on through authorization_pending, and gives up at the
	// code's expiry.
	tok, err := conf.DeviceAccessToken(ctx, da)
	if errors.Is(err, context.DeadlineExceeded) && !da.Expiry.IsZero() && !time.Now().Before(da.Expiry) {
		return nil, errExpiredCode
	}
	return tok, err
}

var errExpiredCode = errors.New("the sign-in code expired before the sign-in was finished: run `shim login` again and enter the new code in time")

func (l *OAuthLogin) authCode(ctx context.Context, p *OAuthPlan) (*oauth2.Token, error) {
	addr := l.CallbackAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in redirect: %w", err)
	}
	defer ln.Close()
	conf := l.config(p)
	conf.RedirectURL = fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	verifier := oauth2.GenerateVerifier()
	state := randid.Hex(16)
	type answer struct {
		code string
		err  error
	}
	got := make(chan answer, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var a answer
		switch {
		case q.Get("state") != state:
			http.Error(w, "this sign-in link is not the one shim is waiting for", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			a.err = fmt.Errorf("the authorization server refused the sign-in: %s %s", q.Get("error"), q.Get("error_description"))
		case q.Get("code") == "":
			a.err = errors.New("the authorization server sent no code")
		default:
			a.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if a.err != nil {
			fmt.Fprintln(w, "Sign-in failed; see the terminal.")
		} else {
			fmt.Fprintln(w, "Signed in; you can close this tab and go back to the terminal.")
		}
		select {
		case got <- a:
		default:
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))
	if err := CheckPage("the sign-in page built from the authorization URL", authURL); err != nil {
		return nil, err
	}
	if l.OpenURL != nil {
		l.OpenURL(authURL)
	}
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		return nil, fmt.Errorf("no sign-in came back to %s: %w", conf.RedirectURL, ctx.Err())
	}
	if a.err != nil {
		return nil, a.err
	}
	redact.Add(a.code)
	return conf.Exchange(ctx, a.code, oauth2.VerifierOption(verifier))
}

// oauthError says what an authorization server answered.
func oauthError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch re.ErrorCode {
		case "expired_token":
			return errExpiredCode
		case "access_denied":
			return errors.New("the sign-in was denied at the authorization server")
		}
		if re.ErrorCode != "" {
			msg := "the authorization server refused: " + re.ErrorCode
			if re.ErrorDescription != "" {
				msg += " (" + re.ErrorDescription + ")"
			}
			return errors.New(redact.Default.String(msg))
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return fmt.Errorf("the authorization server answered HTTP %d", status)
	}
	return err
}

// ParseScopes splits --oauth-scopes at spaces and commas.
func ParseScopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
}
