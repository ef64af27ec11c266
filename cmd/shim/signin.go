package main

// Signing in from the editor (SPEC §14): the editor's "Sign in to
// <agent>" runs the OAuth flow the card offers as `shim login` does
// (login_oauth.go), its page and code shown by the editor (bridge), and
// stores the sign-in the same way.

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	neturl "net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/bridge"
	"github.com/shimdev/shim/cmd/shim/internal/flags"
)

// editorSignIn is the bridge's sign-in from the editor.
func (g signIn) editorSignIn(c *cli.Context) *bridge.SignIn {
	return &bridge.SignIn{
		Offer: func() (string, bool) { return g.signInOffer(c) },
		Run: func(ctx context.Context, page func(url, code string)) error {
			return g.signInFromEditor(ctx, c, page)
		},
	}
}

// signInOffer reports whether the editor is offered the sign-in: when the
// credential stored for the URL is an OAuth sign-in, or --oauth-client-id
// is set. agent names it: the agent's name stored with the sign-in, else
// the URL's host. It reads the credentials file only (initialize asks it:
// no network, no keyring).
func (g signIn) signInOffer(c *cli.Context) (agent string, ok bool) {
	s := g.s
	_, key := s.inUse.current()
	if key == "" {
		return "", false
	}
	agent, stored, err := s.store.SignIn(key)
	if err != nil {
		s.log.Debug("could not read whether an OAuth sign-in is stored", "url", key, "err", err)
	}
	if !stored && strings.TrimSpace(flags.String(c, "oauth-client-id")) == "" {
		return "", false
	}
	if agent == "" {
		if u, err := neturl.Parse(key); err == nil && u.Host != "" {
			agent = u.Host
		} else {
			agent = key
		}
	}
	return agent, true
}

// signInFromEditor runs the sign-in: the card read, its OAuth flow (device
// code, else PKCE) run with the page told to the editor, the token checked
// and stored as `shim login` stores it.
func (g signIn) signInFromEditor(ctx context.Context, c *cli.Context, page func(url, code string)) error {
	s := g.s
	if err := s.inUse.refusal(); err != nil {
		return err
	}
	url, key := s.inUse.current()
	cardURL := s.inUse.cardURL()
	sec, agent, err := g.loginSecurity(ctx, logLines{s.log}, url, cardURL)
	switch {
	case err != nil:
		return err
	case sec != nil && sec.Unmet != "":
		return fmt.Errorf("the agent card at %s asks for a sign-in shim cannot do: %s", key, sec.Unmet)
	case sec == nil || sec.Scheme == nil || !sec.Scheme.OAuth():
		return fmt.Errorf("the agent at %s does not sign in with OAuth 2.0 (or its card could not be read): run `shim login` in a terminal to store its %s",
			key, strings.ToLower(secretLabel(sec)))
	}
	secret, err := g.clientSecret(c)
	if err != nil {
		return err
	}
	clientID := strings.TrimSpace(flags.String(c, "oauth-client-id"))
	if clientID == "" {
		if rec, err := s.store.OAuth(key); err == nil && rec != nil {
			clientID = rec.ClientID // the client the stored sign-in was made with
		}
	}
	if plat := s.inUse.agent(); clientID == "" && plat != nil {
		clientID = plat.LoginClientID // the public client the platform's own tools sign in with
	}
	l := &auth.OAuthLogin{ClientID: clientID, ClientSecret: secret, Scopes: auth.ParseScopes(flags.String(c, "oauth-scopes")),
		DeviceCode: func(uri, complete, code string) { page(cmp.Or(complete, uri), code) },
		OpenURL:    func(u string) { page(u, "") },
	}
	if l.ClientID == "" {
		return auth.ErrNoClientID
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	plan, err := l.Plan(ctx, sec.Scheme)
	if err != nil {
		return err
	}
	s.log.Info("signing in from the editor", "url", key, "flow", plan.Flow)
	_, _, err = g.completeOAuth(ctx, logLines{s.log}, oauthTarget{url: url, card: cardURL, key: key, agent: agent}, l, plan)
	return err
}

// logLines is a writer whose lines go to the log (what `shim login` prints
// about its check).
type logLines struct{ l *slog.Logger }

func (w logLines) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimSpace(p), []byte("\n")) {
		if len(line) > 0 {
			w.l.Info(string(line))
		}
	}
	return len(p), nil
}
