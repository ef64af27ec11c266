package main

// The agent card's signing key as `shim login` tells it (SPEC §17): the
// key it pinned, and `--trust-new-key`, which shows the key a card is
// signed with now beside the pinned one and asks before pinning it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/cardsig"
	"github.com/shimdev/shim/cmd/shim/internal/console"
	"github.com/shimdev/shim/internal/termsafe"
)

// sayCardSignature says on out what the check of client's card found: the
// key it pinned now, or the key it verified under (nothing for an unsigned
// card).
func (g signIn) sayCardSignature(out io.Writer, client *a2aclient.Client) {
	s := g.s
	v := client.CardSignature()
	if v == nil || v.Status != cardsig.Verified {
		return
	}
	card := termsafe.String(client.CardURL())
	switch {
	case v.CardKeys != "":
		fmt.Fprintf(out, "The agent card at %s is signed (%s) by key %s of --card-keys %s.\n", card, v.Alg, v.Thumbprint, termsafe.String(v.CardKeys))
	case v.PinnedNow:
		fmt.Fprintf(out, "The agent card at %s is signed (%s). Pinned its key, thumbprint %s (RFC 7638), in %s:\n"+
			"a card signed by another key will be refused. Compare the thumbprint with the one the agent's owner gives.\n",
			card, v.Alg, v.Thumbprint, termsafe.String(s.cards.Pins.Path()))
	default:
		fmt.Fprintf(out, "The agent card at %s is signed (%s) by its pinned key %s (pinned %s).\n", card, v.Alg, v.Thumbprint, v.Pinned.UTC().Format(time.DateOnly))
	}
}

// trustNewKey is `shim login --trust-new-key`: it reads the card as
// served (without a credential), shows the key it is signed with beside
// the key pinned for it, and on a terminal asks whether to trust the new
// one. Without a terminal it changes nothing and exits 2.
func (g signIn) trustNewKey(ctx context.Context, con *console.Console, out io.Writer, url, cardURL string) error {
	s := g.s
	if s.cards.Keys != nil {
		return &exitError{code: 2, msg: fmt.Sprintf("the keys trusted for agent cards come from --card-keys %s: put the new key in that file; nothing was changed", s.cards.Keys.Path)}
	}
	if s.endpoint != "" {
		return &exitError{code: 2, msg: "--endpoint skips the agent card, so there is no card key to trust: give --url or --card-url"}
	}
	cfg := s.clientConfig(url, cardURL, 15*time.Second)
	cfg.CardCheck = nil // read as served: its check is what follows
	client, err := a2aclient.New(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	where, body, err := client.ServedCard(ctx)
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("reading the agent card: %v; nothing was changed", err)}
	}
	offer, err := s.cards.Offer(ctx, where, body)
	if err != nil {
		return &exitError{code: 1, msg: err.Error() + "; nothing was changed"}
	}
	showKeyOffer(out, offer)
	switch {
	case offer.Unsigned && offer.Current == nil:
		fmt.Fprintln(out, "The card is unsigned and no key is pinned for it: nothing to change.")
		return nil
	case !offer.Unsigned && offer.Current != nil && offer.Current.Thumbprint == offer.Thumbprint:
		fmt.Fprintln(out, "The card is signed by the pinned key: nothing to change.")
		return nil
	case !con.Terminal:
		return &exitError{code: 2, msg: "stdin is not a terminal, so shim login --trust-new-key cannot ask whether to trust the new key; " +
			"nothing was changed: run it in a terminal"}
	}
	question := "Trust the new key for this agent card? Check its thumbprint with the agent's owner first. [y/N]: "
	if offer.Unsigned {
		question = "Forget the pinned key, and take this agent card unsigned from now on? [y/N]: "
	}
	fmt.Fprint(out, question)
	line, err := con.In.ReadString('\n')
	if answer := strings.ToLower(strings.TrimSpace(line)); answer != "y" && answer != "yes" {
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the answer: %w", err)
		}
		return &exitError{code: 1, msg: "not trusted; nothing was changed"}
	}
	v, err := s.cards.Trust(offer)
	if err != nil {
		return err
	}
	if v.Status == cardsig.Unsigned {
		fmt.Fprintf(out, "Forgot the key pinned for %s in %s.\n", termsafe.String(offer.URL), termsafe.String(s.cards.Pins.Path()))
		return nil
	}
	fmt.Fprintf(out, "Pinned key %s for %s in %s.\n", v.Thumbprint, termsafe.String(offer.URL), termsafe.String(s.cards.Pins.Path()))
	return nil
}

// showKeyOffer prints the card, the key pinned for it and the key it is
// signed with now.
func showKeyOffer(out io.Writer, offer *cardsig.Offer) {
	fmt.Fprintf(out, "Agent card: %s\n", termsafe.String(offer.URL))
	if offer.Current != nil {
		fmt.Fprintf(out, "Pinned key: %s (pinned %s)\n", offer.Current.Thumbprint, offer.Current.Pinned.UTC().Format(time.DateOnly))
	} else {
		fmt.Fprintln(out, "Pinned key: none")
	}
	if offer.Unsigned {
		fmt.Fprintln(out, "New key:    none: the card comes unsigned now")
	} else {
		fmt.Fprintf(out, "New key:    %s (%s)\n", offer.Thumbprint, offer.Alg)
	}
}
