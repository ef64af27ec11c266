package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/cmd/shim/internal/checkup"
	"github.com/shimdev/shim/cmd/shim/internal/flags"
)

// doctorAction checks what a session needs and prints a table.
func doctorAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return &exitError{code: 2, msg: fmt.Sprintf("shim doctor takes no arguments (got %q): give the URL with --url", c.Args().First())}
	}
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	t := checkup.NewTable(c.App.Writer)
	ctx, cancel := context.WithTimeout(c.Context, 2*time.Minute+checkup.ProbeMax)
	defer cancel()
	doctor{s: s}.checkServer(ctx, c, t)
	checkup.Dir(t, "state dir", flags.StateDir(c), "threads.json", "the thread index")
	checkup.Dir(t, "config dir", flags.ConfigDir(c), credentials.FileName, "the credentials file")
	if err := t.Flush(); err != nil {
		return err
	}
	if t.Failed() > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("doctor: %d check(s) failed; a session would hit them (see the FAIL rows for what to do)", t.Failed())}
	}
	return nil
}

// doctor checks the settings for `shim doctor`, a row at a time.
type doctor struct {
	s *settings
}

// checkServer fills in the rows about the agent: URL, token, card,
// dialect, endpoint, the auth probe and the optional operator API. A row
// that fails marks the rows after it skipped.
func (d doctor) checkServer(ctx context.Context, c *cli.Context, t *checkup.Table) {
	s := d.s
	u, key := s.inUse.current()
	cardURL := s.inUse.cardURL()
	rest := []string{"agent card", "card signature", "dialect", "binding", "endpoint", "security scheme", "auth probe", "server APIs"}
	skip := func(why string) {
		for _, r := range rest {
			t.Row(r, checkup.Skip, why)
		}
	}
	if !checkup.Target(t, u, key, cardURL, s.endpoint != "") {
		skip("no agent URL")
		return
	}
	tok, src, err := s.resolveToken(c, key)
	plat := s.inUse.agent()
	if !checkup.Token(t, s.store.Path(), tok, src, err, plat != nil) {
		skip("the token cannot be read")
		return
	}
	if plat != nil && !checkup.Platform(ctx, t, plat, tok, src, s.store.Path()) {
		skip("no credential for the platform")
		return
	}
	cfg := s.clientConfig(u, cardURL, 15*time.Second)
	cfg.Token, cfg.OAuth = tok, signIn{s: s}.oauthFor(c, key, tok, src)
	client, err := a2aclient.New(cfg)
	if err != nil {
		t.Row("client", checkup.Fail, err.Error())
		skip("no client")
		return
	}
	card, err := client.Discover(ctx)
	if why := checkup.Card(t, client, card, err, key, src, s.endpoint != ""); why != "" {
		rest = rest[1:]
		if errors.As(err, new(*a2a.CardError)) {
			rest = rest[1:] // its row says why
		}
		skip(why)
		return
	}
	checkup.Signature(t, client, s.endpoint != "")
	checkup.Choices(t, card, checkup.Chosen{Version: s.a2aVersion, Binding: s.binding, Endpoint: s.endpoint, Platform: plat})
	scheme := ""
	if plat != nil {
		scheme = plat.SchemeName(tok != "")
	}
	checkup.Security(t, client, s.endpoint != "", scheme) // the scheme and the token expiry
	perr := client.Probe(ctx)
	checkup.AuthProbe(t, perr, tok, key, src, plat)
	if c.Bool("probe") && perr == nil {
		checkup.Probe(ctx, t, client, client.KnownCard())
	} else {
		checkup.Departures(t, client) // those discovery saw (the card's old path)
	}
	switch {
	case errors.As(perr, new(*a2a.CardError)):
		t.Row("server APIs", checkup.Skip, "the extended agent card is refused: nothing more is sent")
		return
	case plat != nil:
		t.Row("server APIs", checkup.Skip, plat.Platform.Title()+" serves no operator API")
		return
	case client.Base() == "":
		t.Row("server APIs", checkup.Skip, "no --url, only --endpoint")
		return
	}
	checkup.APIs(ctx, t, client)
}
