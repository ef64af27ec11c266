package a2aclient

// The signatures of the agent card and of the extended card (SPEC §17),
// checked by package cardsig: a card refused stops the client, so that no
// request after the card's carries a credential (nor is sent at all).

import (
	"context"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/cardsig"
)

// gate is the credential of every request the client makes: once a card
// was refused, its Check fails with the refusal and nothing is sent.
type gate struct {
	auth.Credential
	c *Client
}

// Check fails with the card refused, if any, else is the credential's.
func (g gate) Check() error {
	if ce := g.c.refused.Load(); ce != nil {
		return ce
	}
	return g.Credential.Check()
}

// checkCard checks a card read from cardURL (the extended card: with the
// public card's URL, so against the same pin). nil without CardCheck.
// A refusal is an *a2a.CardError, and stops the client.
func (c *Client) checkCard(ctx context.Context, cardURL string, body []byte) (*cardsig.Verdict, error) {
	if c.cfg.CardCheck == nil {
		return nil, nil
	}
	v, err := c.cfg.CardCheck.Verify(ctx, cardURL, body)
	if err == nil {
		return &v, nil
	}
	ce := &a2a.CardError{Reason: cardsig.Reason, Err: err}
	if se, ok := err.(*cardsig.Error); ok {
		ce.Reason, ce.Pinned, ce.Offered = se.Reason(), se.Pinned, se.Offered
	}
	c.refused.CompareAndSwap(nil, ce)
	c.log.Warn("the agent card is refused: nothing more is sent to the agent", "card", cardURL, "err", err)
	return nil, ce
}

// CardSignature is what the check of the card in use found (SPEC §17):
// unsigned, or verified under a key. nil when none was checked (no
// CardCheck, only an endpoint, or the card not read yet).
func (c *Client) CardSignature() *cardsig.Verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.verdict
}
