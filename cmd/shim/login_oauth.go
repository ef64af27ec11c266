package main

// Sign-in by the card's security scheme (SPEC §12.1): `shim login` asks
// for the secret the scheme takes (a bearer token, an API key,
// user:password) or runs the OAuth flow; a stored OAuth sign-in is
// handed to the client to renew.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/cmd/shim/internal/console"
	"github.com/shimdev/shim/cmd/shim/internal/flags"
	"github.com/shimdev/shim/internal/redact"
	"github.com/shimdev/shim/internal/termsafe"
)

// signIn signs in to the agent the settings name: a secret checked and
// stored (login.go), the OAuth flow run, stored and renewed (this file and
// signin.go, from the editor), an agent card's new key trusted (cardkey.go).
// It reads the settings and the agent in use and keeps nothing itself.
type signIn struct {
	s *settings
}

// loginSecurity reads the card (without a credential) to learn how the
// agent signs in, and its name (agent, "" unknown); nil when it cannot be
// read (then a bearer token is asked for, as the card names no scheme).
// On a managed platform the platform says it, whatever its card says (and
// the card is not read without its credential): its own sign-in
// (Foundry: Entra's device code), else the secret it takes (nil: a bearer
// token). The card's signature is checked (SPEC §17): what was found is
// said on out (the key pinned, the key it verified under), and a card
// refused is the error, an *a2a.CardError.
func (g signIn) loginSecurity(ctx context.Context, out io.Writer, url, cardURL string) (sec *a2a.Security, agent string, err error) {
	s := g.s
	if plat := s.inUse.agent(); plat != nil {
		switch {
		case plat.Login != nil:
			return &a2a.Security{Scheme: plat.Login}, "", nil
		case plat.Scheme != nil:
			return &a2a.Security{Scheme: plat.Scheme}, "", nil
		}
		return nil, "", nil
	}
	if s.endpoint != "" {
		return nil, "", nil
	}
	client, err := a2aclient.New(s.clientConfig(url, cardURL, 10*time.Second)) // reached only without --endpoint
	if err != nil {
		return nil, "", nil
	}
	card, err := client.Discover(ctx)
	if errors.As(err, new(*a2a.CardError)) {
		return nil, "", err
	}
	if err != nil {
		s.log.Debug("could not read the agent card to learn its security scheme; asking for a bearer token", "err", err)
		return nil, "", nil
	}
	g.sayCardSignature(out, client)
	return card.Security, card.Name, nil
}

// secretLabel names what the scheme takes, for the prompt.
func secretLabel(sec *a2a.Security) string {
	if sec != nil && sec.Scheme != nil {
		switch sec.Scheme.Kind {
		case a2a.SchemeAPIKey:
			return "API key"
		case a2a.SchemeBasic:
			return "user:password"
		}
	}
	return "Bearer token"
}

// readSecretFile reads a client secret file: trimmed, ~ expanded,
// registered for redaction.
func readSecretFile(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	p, err := credentials.ExpandHome(path, flags.Home())
	if err != nil {
		return "", err
	}
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("--oauth-client-secret-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, console.MaxSecret+1))
	if err != nil {
		return "", fmt.Errorf("--oauth-client-secret-file: %w", err)
	}
	if len(b) > console.MaxSecret {
		return "", fmt.Errorf("--oauth-client-secret-file: %s is larger than %d bytes", p, console.MaxSecret)
	}
	secret := strings.TrimSpace(string(b))
	if secret == "" {
		return "", fmt.Errorf("--oauth-client-secret-file: %s is empty", p)
	}
	addSecret(secret)
	return secret, nil
}

// oauthLogin runs the OAuth flow the card offers and stores the tokens.
func (g signIn) oauthLogin(c *cli.Context, out io.Writer, url, card, key string, scheme *a2a.Scheme, agent string) error {
	s := g.s
	secret, err := g.clientSecret(c)
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	clientID := strings.TrimSpace(flags.String(c, "oauth-client-id"))
	if plat := s.inUse.agent(); clientID == "" && plat != nil {
		clientID = plat.LoginClientID // the public client the platform's own tools sign in with
	}
	l := &auth.OAuthLogin{
		ClientID: clientID, ClientSecret: secret,
		Scopes: auth.ParseScopes(flags.String(c, "oauth-scopes")),
		DeviceCode: func(uri, complete, code string) {
			fmt.Fprintf(out, "To sign in, open %s and enter the code %s\n", termsafe.String(uri), termsafe.String(code))
			if complete != "" {
				fmt.Fprintf(out, "(or open %s)\n", termsafe.String(complete))
			}
			fmt.Fprintln(out, "Waiting for the sign-in to finish…")
		},
		OpenURL: func(u string) {
			fmt.Fprintf(out, "To sign in, open this URL in a browser on this machine:\n\n  %s\n\nWaiting for the sign-in to come back to shim…\n", termsafe.String(u))
		},
	}
	if l.ClientID == "" {
		return &exitError{code: 2, msg: fmt.Sprintf("the agent at %s signs in with %s: pass --oauth-client-id with the client id "+
			"registered for shim at its authorization server (SHIM_OAUTH_CLIENT_ID also works); nothing was stored", key, scheme)}
	}
	ctx, cancel := context.WithTimeout(c.Context, 15*time.Minute)
	defer cancel()
	plan, err := l.Plan(ctx, scheme)
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot sign in to %s: %v; nothing was stored", key, err)}
	}
	fmt.Fprintf(out, "The agent at %s signs in with OAuth 2.0 (%s flow).\n", termsafe.String(key), plan.Flow)
	tok, where, err := g.completeOAuth(ctx, out, oauthTarget{url: url, card: card, key: key, agent: agent}, l, plan)
	if err != nil {
		return err
	}
	switch where {
	case credentials.SourceKeyring:
		fmt.Fprintf(out, "Stored the sign-in in the OS keyring (service %q, account %s).\n", credentials.Service, termsafe.String(key))
	default:
		fmt.Fprintf(out, "Stored the sign-in in %s (mode 0600).\n", termsafe.String(s.store.Path()))
	}
	if !tok.Expiry.IsZero() {
		renew := "shim renews it with the refresh token"
		if tok.RefreshToken == "" {
			renew = "no refresh token was issued: run `shim login` again then"
		}
		fmt.Fprintf(out, "The access token expires at %s; %s.\n", tok.Expiry.UTC().Format(time.RFC3339), renew)
	}
	fmt.Fprintf(out, "Editors can now start `shim` without --url: it defaults to %s.\n", termsafe.String(key))
	return nil
}

// clientSecret reads --oauth-client-secret-file ("" without one), warning
// about a secret too short to redact.
func (g signIn) clientSecret(c *cli.Context) (string, error) {
	s := g.s
	secret, err := readSecretFile(flags.String(c, "oauth-client-secret-file"))
	if err != nil {
		return "", err
	}
	if secret != "" && utf8.RuneCountInString(secret) < redact.MinLen {
		s.log.Warn(fmt.Sprintf("the client secret has fewer than %d characters: too short to redact from logs and output without mangling other text", redact.MinLen))
	}
	return secret, nil
}

// oauthTarget is the agent an OAuth sign-in is for: its URL, card URL,
// key and name (the card's).
type oauthTarget struct{ url, card, key, agent string }

// completeOAuth runs the plan's flow, checks the token it gives against
// the agent and stores what passed (SPEC §12.1), with the agent's name:
// `shim login` and the editor's sign-in both end here. out hears the
// check.
func (g signIn) completeOAuth(ctx context.Context, out io.Writer, to oauthTarget, l *auth.OAuthLogin, plan *auth.OAuthPlan) (auth.OAuthToken, string, error) {
	s := g.s
	tok, err := l.Run(ctx, plan)
	if err != nil {
		if errors.Is(err, auth.ErrNoClientID) {
			return tok, "", &exitError{code: 2, msg: err.Error()}
		}
		return tok, "", &exitError{code: 1, msg: fmt.Sprintf("the sign-in to %s failed: %v; nothing was stored", to.key, err)}
	}
	cfg := s.clientConfig(to.url, to.card, 10*time.Second)
	// The check may renew the token (a 401, or one that expires within
	// the renewal margin): then what the renewal gave is what is stored,
	// the issued refresh token being spent (SPEC §12.1).
	var renewed sync.Mutex
	cfg.OAuth = &auth.OAuth{Token: tok, ClientSecret: l.ClientSecret, OnRefresh: func(t auth.OAuthToken) {
		renewed.Lock()
		tok = t
		renewed.Unlock()
	}}
	client, err := a2aclient.New(cfg)
	if err != nil {
		return tok, "", err
	}
	err = checkSignIn(ctx, out, client, to.key, oauthCheck)
	renewed.Lock()
	defer renewed.Unlock()
	if err != nil {
		return tok, "", err
	}
	rec := recordOf(tok)
	rec.Agent = to.agent
	where, err := s.store.SaveOAuth(to.key, tok.AccessToken, rec)
	if err != nil {
		return tok, "", fmt.Errorf("storing the sign-in: %s", strings.TrimPrefix(err.Error(), "credentials: "))
	}
	return tok, where, nil
}

func recordOf(t auth.OAuthToken) credentials.OAuthRecord {
	rec := credentials.OAuthRecord{RefreshToken: t.RefreshToken, TokenURL: t.TokenURL, ClientID: t.ClientID}
	if !t.Expiry.IsZero() {
		rec.Expiry = t.Expiry.UTC().Format(time.RFC3339)
	}
	return rec
}

// oauthFor returns the stored OAuth sign-in behind a stored token, for the
// client to renew; nil for a token given by flag or variable, or a plain
// one.
func (g signIn) oauthFor(c *cli.Context, key, tok, src string) *auth.OAuth {
	s := g.s
	if tok == "" || key == "" || (src != credentials.SourceKeyring && src != credentials.SourceFile) {
		return nil
	}
	rec, err := s.store.OAuth(key)
	if err != nil {
		s.log.Warn("could not read the stored OAuth sign-in; the access token is used as it is", "url", key, "err", err)
		return nil
	}
	if rec == nil {
		return nil
	}
	secret, err := readSecretFile(flags.String(c, "oauth-client-secret-file"))
	if err != nil {
		s.log.Warn("the OAuth client secret cannot be read; renewing without it", "err", err)
	}
	clientID := rec.ClientID
	if clientID == "" {
		clientID = strings.TrimSpace(flags.String(c, "oauth-client-id"))
	}
	return &auth.OAuth{
		Token: auth.OAuthToken{AccessToken: tok, RefreshToken: rec.RefreshToken, Expiry: rec.ExpiryTime(),
			TokenURL: rec.TokenURL, ClientID: clientID},
		ClientSecret: secret,
		Shared:       storedSignIn{s: s, key: key, clientID: clientID},
		OnRefresh: func(t auth.OAuthToken) {
			if _, err := s.store.SaveOAuth(key, t.AccessToken, recordOf(t)); err != nil {
				s.log.Warn("could not store the renewed OAuth token; it is used until shim exits", "url", key, "err", err)
				return
			}
			s.log.Info("renewed the OAuth access token", "url", key)
		},
	}
}

// storedSignIn is the OAuth sign-in stored for key, as every shim process
// sees it: a renewal re-reads it under the store's renewal lock (SPEC
// §12.1), so two editor windows that find it expired renew it once.
type storedSignIn struct {
	s        *settings
	key      string
	clientID string // the --oauth-client-id fallback, as oauthFor takes it
}

func (st storedSignIn) Lock(ctx context.Context) (auth.OAuthToken, bool, func(), error) {
	unlock, err := st.s.store.LockRenewal(func() {
		st.s.log.Info("another shim is renewing the OAuth sign-in; waiting for it", "url", st.key)
	})
	if err != nil {
		return auth.OAuthToken{}, false, nil, err
	}
	tok, _, err := st.s.store.Token(st.key)
	var rec *credentials.OAuthRecord
	if err == nil && tok != "" {
		rec, err = st.s.store.OAuth(st.key)
	}
	if err != nil || rec == nil {
		if err != nil {
			st.s.log.Warn("could not re-read the stored OAuth sign-in; renewing the one read at start", "url", st.key, "err", err)
		}
		return auth.OAuthToken{}, false, unlock, nil
	}
	return auth.OAuthToken{AccessToken: tok, RefreshToken: rec.RefreshToken, Expiry: rec.ExpiryTime(),
		TokenURL: rec.TokenURL, ClientID: cmp.Or(rec.ClientID, st.clientID)}, true, unlock, nil
}
