package a2aclient

// The signatures of the agent card and of the extended card (SPEC §17),
// checked by package cardsig: a card refused stops the client, so that no
// request after the card's carries a credential (nor is sent at all).

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/cardsig"
)

// cardCheck checks the cards a client reads (Config.CardCheck; nil
// checks nothing) and keeps the first it refused.
type cardCheck struct {
	verifier *cardsig.Verifier
	log      *slog.Logger
	// refused is the card refused: set once, it fails every request
	// before it is sent (gate). Not under the client's mu: the card's own
	// request is made with mu held.
	refused atomic.Pointer[a2a.CardError]
}

// gate is the credential of every request the client makes: once a card
// was refused, its Check fails with the refusal and nothing is sent.
type gate struct {
	auth.Credential
	check *cardCheck
}

// Check fails with the card refused, if any, else is the credential's.
func (g gate) Check() error {
	if ce := g.check.refused.Load(); ce != nil {
		return ce
	}
	return g.Credential.Check()
}

// card checks a card read from cardURL (the extended card: with the
// public card's URL, so against the same pin). nil without CardCheck.
// A refusal is an *a2a.CardError, and stops the client.
func (k *cardCheck) card(ctx context.Context, cardURL string, body []byte) (*cardsig.Verdict, error) {
	if k.verifier == nil {
		return nil, nil
	}
	v, err := k.verifier.Verify(ctx, cardURL, body)
	if err == nil {
		return &v, nil
	}
	ce := &a2a.CardError{Reason: cardsig.Reason, Err: err}
	if se, ok := err.(*cardsig.Error); ok {
		ce.Reason, ce.Pinned, ce.Offered = se.Reason(), se.Pinned, se.Offered
	}
	k.refused.CompareAndSwap(nil, ce)
	k.log.Warn("the agent card is refused: nothing more is sent to the agent", "card", cardURL, "err", err)
	return nil, ce
}

// checkExtended checks the extended card's signatures against what the
// public card was checked with (SPEC §17): when the public card verified
// (v, read from cardURL: under its pin, or the keys given), the extended
// card must verify the same way, and a refusal stops the client. An
// unsigned public card of a URL with no pin leaves the extended card
// unchecked: its key would be pinned for the public card's URL.
func (r *cardReader) checkExtended(ctx context.Context, v *cardsig.Verdict, cardURL string, raw []byte) error {
	if v == nil || v.Status != cardsig.Verified {
		return nil
	}
	_, err := r.check.card(ctx, cardURL, raw)
	return err
}
