package a2aclient

// The card in use: the card discovery read (or an earlier launch
// remembered), replaced by the extended card or by a remembered card that
// changed, what its signature check found, and those told of a change.

import (
	"cmp"
	"context"
	"slices"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/cardsig"
	"github.com/shimdev/shim/a2a/remember"
)

// CardURL is where the agent card is read: the one that answered once
// discovery ran, else the configured card URL, else the first of Cards,
// else <base>/.well-known/agent-card.json ("" with only an endpoint).
func (c *Client) CardURL() string {
	c.mu.Lock()
	read := c.cardURL
	c.mu.Unlock()
	if read != "" {
		return read
	}
	return c.at.configured()
}

// KnownCard returns the card if discovery already ran, else nil.
func (c *Client) KnownCard() *a2a.Card {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.card
}

// CardSignature is what the check of the card in use found (SPEC §17):
// unsigned, or verified under a key. nil when none was checked (no
// CardCheck, only an endpoint, or the card not read yet).
func (c *Client) CardSignature() *cardsig.Verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.verdict
}

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

// useChanged uses a card that changed since it was remembered, checked
// and kept (cardReader.cardChanged): the binding is made again when its
// endpoint, binding, dialect or tenant moved, and those told of a new card
// are told.
func (c *Client) useChanged(card *a2a.Card, served remember.Card, verdict *cardsig.Verdict) {
	c.mu.Lock()
	was := c.card
	next := c.cards.settle(card, served.Body)
	if was == nil || next.Endpoint != was.Endpoint || next.Binding != was.Binding || next.Dialect != was.Dialect || next.Tenant != was.Tenant {
		c.bound = nil
	}
	c.card, c.verdict, c.cardURL = next, verdict, served.URL
	c.extTried = false
	fns := slices.Clone(c.onChange)
	c.mu.Unlock()
	c.log.Info("the agent card changed since it was remembered; using the new one", "card", served.URL, "name", next.Name, "endpoint", next.Endpoint)
	for _, fn := range fns {
		fn(next)
	}
}
