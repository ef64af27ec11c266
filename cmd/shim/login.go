package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/cmd/shim/internal/checkup"
	"github.com/shimdev/shim/cmd/shim/internal/console"
	"github.com/shimdev/shim/cmd/shim/internal/flags"
	"github.com/shimdev/shim/internal/termsafe"
)

// loginAction runs `shim login`; newConsole gives the console it asks on.
func loginAction(c *cli.Context, newConsole func(prompt io.Writer) *console.Console) error {
	if c.NArg() > 0 {
		return &exitError{code: 2, msg: fmt.Sprintf("shim login takes no arguments (got %q): give the URL with --url and the token at the prompt or on stdin", c.Args().First())}
	}
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	out := c.App.ErrWriter
	if out == nil {
		out = os.Stderr
	}
	con := newConsole(out)
	g := signIn{s: s}
	url, key := s.inUse.current()
	card := s.inUse.cardURL()
	if s.flagCard == "" {
		// Asked on a terminal (a card URL may be typed too), offering the
		// URL given or remembered.
		answer, err := con.URL(cmp.Or(url, card), g.checkURL)
		if err != nil {
			return err
		}
		answer, plat, err := s.place(answer)
		switch {
		case isRefusal(err):
			return &exitError{code: 2, msg: err.Error()}
		case err != nil:
			return err
		}
		if url, card, key, err = target(answer, "", s.slug); err != nil {
			return err
		}
		s.inUse.setTarget(url, card, key, plat)
	}
	// The card says how the agent signs in (login_oauth.go); on a
	// managed platform the platform does.
	if flags.Bool(c, "trust-new-key") {
		return g.trustNewKey(c.Context, con, out, url, card)
	}
	sctx, scancel := context.WithTimeout(c.Context, 40*time.Second)
	sec, agent, err := g.loginSecurity(sctx, out, url, card)
	scancel()
	switch {
	case err != nil:
		return &exitError{code: 1, msg: err.Error() + "; nothing was stored"}
	case sec != nil && sec.Unmet != "":
		return &exitError{code: 1, msg: fmt.Sprintf("the agent card at %s asks for a sign-in shim cannot do: %s; nothing was stored", key, sec.Unmet)}
	case sec != nil && sec.Scheme.OAuth():
		return g.oauthLogin(c, out, url, card, key, sec.Scheme, agent)
	}
	label := secretLabel(sec)
	token, err := con.Token(key, label)
	if err != nil {
		return err
	}
	if label == "user:password" && !strings.Contains(token, ":") {
		return &exitError{code: 2, msg: "the agent signs in with HTTP basic: give user:password (the user name, a colon, the password); nothing was stored"}
	}
	addSecret(token)
	cfg := s.clientConfig(url, card, 10*time.Second)
	cfg.Token = token
	client, err := a2aclient.New(cfg)
	if err != nil {
		return err
	}
	if err := checkSignIn(c.Context, out, client, key, tokenCheck); err != nil {
		return err
	}
	return g.storeToken(out, key, token)
}

// checkURL says what is wrong with an agent URL typed at login's prompt.
func (g signIn) checkURL(line string) error {
	s := g.s
	u, _, err := s.place(line)
	if err != nil {
		return err
	}
	if _, err := credentials.Normalize(u, s.slug); err != nil {
		return urlError(u, err)
	}
	return nil
}

// storeToken stores a checked token for key, replacing an OAuth sign-in
// stored before, and says where it went.
func (g signIn) storeToken(out io.Writer, key, token string) error {
	s := g.s
	where, err := s.store.Save(key, token)
	if err == nil {
		err = s.store.ForgetOAuth(key) // an OAuth sign-in stored before is replaced
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "credentials: ")
		if errors.Is(err, credentials.ErrKeyringOn) {
			msg += "; start the OS keyring (Secret Service), or pass --keyring auto or off to use the credentials file"
		}
		return fmt.Errorf("storing the token: %s", msg)
	}
	switch where {
	case credentials.SourceKeyring:
		fmt.Fprintf(out, "Stored the token in the OS keyring (service %q, account %s).\n", credentials.Service, termsafe.String(key))
	default:
		fmt.Fprintf(out, "Stored the token in %s (mode 0600).\n", termsafe.String(s.store.Path()))
	}
	fmt.Fprintf(out, "Editors can now start `shim` without --url: it defaults to %s.\n", termsafe.String(key))
	return nil
}

// signInCheck is what checkSignIn says of one kind of credential.
type signInCheck struct {
	// what names the credential ("the token").
	what string
	// refused is the advice when the agent refuses it (%s the key, %d
	// the HTTP status).
	refused string
	// insecure is set when plain http to another machine fails the
	// sign-in (else it is a warning like any failed check).
	insecure bool
}

var (
	tokenCheck = signInCheck{what: "the token", insecure: true,
		refused: "the agent at %s refused the token (HTTP %d); nothing was stored. " +
			"Copy the token again (without \"Bearer \") and rerun `shim login`; check --url and --slug if the token is right."}
	oauthCheck = signInCheck{what: "the sign-in",
		refused: "the agent at %s refused the token the authorization server issued (HTTP %d); nothing was stored. " +
			"Check --oauth-client-id and --oauth-scopes."}
)

// checkSignIn probes the agent with the credential client sends and says
// what it answered: nil when the credential may be stored (accepted, or
// not checked: a warning says so), an exit error when it was refused.
func checkSignIn(ctx context.Context, out io.Writer, client *a2aclient.Client, key string, k signInCheck) error {
	ctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	perr := client.Probe(ctx)
	switch {
	case perr == nil:
		fmt.Fprintf(out, "The agent at %s accepted %s.\n", termsafe.String(key), k.what)
	case a2a.IsUnauthorized(perr):
		return &exitError{code: 1, msg: fmt.Sprintf(k.refused, key, checkup.HTTPStatus(perr))}
	case errors.As(perr, new(*a2a.CardError)): // the card, or the extended card (SPEC §17)
		return &exitError{code: 1, msg: perr.Error() + "; nothing was stored"}
	case k.insecure && errors.Is(perr, a2a.ErrInsecure):
		return &exitError{code: 1, msg: fmt.Sprintf("refusing to send the token over plain http to %s, which is not this machine; nothing was stored. "+
			"Use an https:// URL, or pass --allow-insecure-http if you trust the network.", key)}
	default:
		fmt.Fprintf(out, "warning: could not check %s: %s\n"+
			"warning: storing it anyway; run `shim doctor` once the agent is reachable.\n", k.what, termsafe.String(perr.Error()))
	}
	return nil
}

func logoutAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return &exitError{code: 2, msg: fmt.Sprintf("shim logout takes no arguments (got %q): give the URL with --url", c.Args().First())}
	}
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	_, key := s.inUse.current()
	if key == "" {
		return &exitError{code: 2, msg: "no agent URL: pass --url https://your-agent (the URL you gave `shim login`)"}
	}
	had, _, _ := s.store.Token(key)
	if err := s.store.Forget(key); err != nil {
		msg := strings.TrimPrefix(err.Error(), "credentials: ")
		if errors.Is(err, credentials.ErrKeyringOn) {
			msg += "; start the OS keyring, or pass --keyring auto"
		}
		return fmt.Errorf("forgetting the token: %s", msg)
	}
	if had == "" {
		fmt.Fprintf(c.App.Writer, "No token was stored for %s; nothing to forget.\n", termsafe.String(key))
	} else {
		fmt.Fprintf(c.App.Writer, "Forgot the token for %s.\n", termsafe.String(key))
	}
	for _, v := range []string{"SHIM_TOKEN", "SHIM_TOKEN_FILE"} {
		if os.Getenv(v) != "" {
			fmt.Fprintf(c.App.Writer, "Note: %s is set in the environment; shim still sends that token.\n", v)
		}
	}
	return nil
}
