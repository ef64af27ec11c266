package a2aclient

import (
	"cmp"
	"context"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/cardsig"
)

// OnCardChange registers fn, called with the new card each time the card
// in use changes (the extended card replaced the public one, SPEC §12.2).
func (c *Client) OnCardChange(fn func(*a2a.Card)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onChange = append(c.onChange, fn)
}

// extend reads the extended card, once, when the card offers one, and
// uses its name, skills and capabilities (and its interface, under the
// --url origin rule) from then on. A failure to read it keeps the public
// card; a card whose signature is refused stops the client (SPEC §17). It
// returns that refusal, or the error of a required extension shim does not
// speak.
func (c *Client) extend(ctx context.Context) error {
	b, card, err := c.binding(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	tried := c.extTried
	c.extTried = true
	c.mu.Unlock()
	if !card.ExtendedCard || tried {
		return nil
	}
	raw, err := b.ExtendedCard(ctx)
	if err != nil {
		c.log.Warn("the extended agent card could not be read; keeping the public card", "err", err)
		return nil
	}
	c.mu.Lock()
	verdict, cardURL := c.verdict, c.cardURL
	c.mu.Unlock()
	if err := c.cards.checkExtended(ctx, verdict, cardURL, raw); err != nil {
		return err
	}
	forced := a2a.ParseDialect(c.cfg.Version)
	bind, _ := a2a.ParseBinding(c.cfg.Binding)
	pinned, isPinned := codecs[c.cfg.Codec]
	if isPinned {
		forced, bind = pinned.dialect, pinned.binding
	}
	ext, perr := agentcard.Parse(raw, forced, bind)
	if ext == nil {
		c.log.Warn("the extended agent card does not decode; keeping the public card", "err", perr)
		return nil
	}
	next := *card
	next.Name = cmp.Or(ext.Name, card.Name)
	next.Description = cmp.Or(ext.Description, card.Description)
	next.Version = cmp.Or(ext.Version, card.Version)
	next.Skills, next.Extensions, next.Streaming = ext.Skills, ext.Extensions, ext.Streaming
	next.Extended = true
	moved := false
	if perr == nil && ext.Endpoint != "" && !isPinned {
		ep := c.at.rebase(ext.Endpoint)
		if ep != card.Endpoint || ext.Binding != card.Binding || ext.Tenant != card.Tenant || ext.Dialect != card.Dialect {
			next.Endpoint, next.Binding, next.Tenant, next.Dialect = ep, ext.Binding, ext.Tenant, ext.Dialect
			moved = true
		}
	}
	c.mu.Lock()
	c.card = &next
	if moved {
		c.bound = nil
	}
	fns := append([]func(*a2a.Card){}, c.onChange...)
	c.mu.Unlock()
	c.log.Info("using the extended agent card", "name", next.Name, "skills", len(next.Skills), "endpoint", next.Endpoint)
	for _, fn := range fns {
		fn(&next)
	}
	return next.Unsupported()
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
