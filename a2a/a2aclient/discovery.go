package a2aclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/binding"
)

// Discover fetches the agent card once, checks its signatures (Config.
// CardCheck) and chooses the endpoint and the dialect; with an explicit
// endpoint it fetches nothing.
func (c *Client) Discover(ctx context.Context) (*a2a.Card, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.card != nil {
		return c.card, nil
	}
	forced := a2a.ParseDialect(c.cfg.Version)
	bind, err := a2a.ParseBinding(c.cfg.Binding)
	if err != nil {
		return nil, err
	}
	pinned, isPinned := codecs[c.cfg.Codec]
	if isPinned {
		forced, bind = pinned.dialect, pinned.binding
	}
	if c.cfg.Endpoint != "" {
		d := forced
		if d == 0 {
			d = a2a.V10
		}
		if bind == 0 {
			bind = a2a.BindingJSONRPC
		}
		c.card = &a2a.Card{Endpoint: c.cfg.Endpoint, Dialect: d, Binding: bind, Streaming: true}
		return c.card, nil
	}
	card, body, where, err := c.fetchCard(ctx, forced, bind, isPinned)
	if err != nil {
		return nil, err
	}
	c.cardURL = where
	verdict, err := c.check.card(ctx, where, body)
	if err != nil {
		return nil, err
	}
	card.Streaming = card.Streaming && !c.cfg.NoStreaming
	switch {
	case c.cfg.EndpointOverride != "":
		card.Endpoint = c.cfg.EndpointOverride
	case isPinned:
		// The codec's calls go to the base, whatever interfaces the card
		// names (a platform's card may name the container behind it).
		card.Endpoint = c.at.base.String()
	default:
		card.Endpoint = c.at.rebase(card.Endpoint)
	}
	if isPinned {
		card.Tenant = ""
		card.Dialect, card.Binding = pinned.dialect, pinned.binding
	}
	card.Security = agentcard.ParseSecurity(body)
	c.stored.SetSecurity(card.Security)
	c.log.Debug("agent card", "name", card.Name, "endpoint", card.Endpoint, "dialect", card.Dialect.String(), "binding", card.Binding.String(), "streaming", card.Streaming)
	c.card, c.verdict = card, verdict
	return card, nil
}

// fetchCard reads and parses the card from the first of its places that
// answers with one: the card, its body as served and its URL.
func (c *Client) fetchCard(ctx context.Context, forced a2a.Dialect, bind a2a.Binding, isPinned bool) (*a2a.Card, []byte, string, error) {
	places := c.at.cardPlaces()
	for i, place := range places {
		card, body, err := c.readCard(ctx, place, forced, bind, isPinned)
		if err == nil {
			return card, body, place.URL, nil
		}
		if i == len(places)-1 {
			return c.cardAtOldPath(ctx, err, forced, bind, isPinned)
		}
		if a2a.IsUnauthorized(err) || !errors.Is(err, a2a.ErrNoCard) {
			return nil, nil, "", err
		}
		c.log.Info("no agent card there; trying the next place", "url", place.URL, "next", places[i+1].URL, "err", err)
	}
	return nil, nil, "", errors.New("no place to read the agent card from")
}

// ServedCard reads the agent card as served, from the first of its
// places that answers, without checking its signatures or using it: its
// URL and its bytes (what `shim login --trust-new-key` offers to trust).
// With only an endpoint there is no card: an error.
func (c *Client) ServedCard(ctx context.Context) (string, []byte, error) {
	if c.cfg.Endpoint != "" {
		return "", nil, errors.New("--endpoint skips the agent card")
	}
	forced := a2a.ParseDialect(c.cfg.Version)
	bind, err := a2a.ParseBinding(c.cfg.Binding)
	if err != nil {
		return "", nil, err
	}
	pinned, isPinned := codecs[c.cfg.Codec]
	if isPinned {
		forced, bind = pinned.dialect, pinned.binding
	}
	_, body, where, err := c.fetchCard(ctx, forced, bind, isPinned)
	return where, body, err
}

// readCard reads and parses the card at place.
// pinned: a codec fixes the dialect and binding, so a card naming no
// interface of theirs is taken for its name, skills and capabilities.
func (c *Client) readCard(ctx context.Context, place CardPlace, forced a2a.Dialect, bind a2a.Binding, pinned bool) (*a2a.Card, []byte, error) {
	d := place.Dialect
	if d == 0 {
		d = a2a.V10
	}
	req, err := c.conn.NewRequest(ctx, http.MethodGet, place.URL, nil, d)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.conn.Do(req)
	if err != nil {
		return nil, nil, c.conn.Error(place.URL, err)
	}
	body, err := c.conn.ReadBody(resp)
	if err != nil {
		return nil, nil, c.conn.Error(place.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		herr := binding.HTTPError(resp.StatusCode, place.URL, resp.Header.Get("Content-Type"), body)
		herr.Want = "an agent card"
		if herr.Unauthorized() {
			return nil, nil, herr
		}
		return nil, nil, fmt.Errorf("%w: %w", a2a.ErrNoCard, herr)
	}
	card, err := agentcard.Parse(body, forced, bind)
	if err != nil && !(pinned && card != nil) {
		if !json.Valid(body) {
			herr := binding.HTTPError(resp.StatusCode, place.URL, resp.Header.Get("Content-Type"), body)
			herr.Want = "an agent card"
			return nil, nil, fmt.Errorf("%w: %w", a2a.ErrNoCard, herr)
		}
		return nil, nil, fmt.Errorf("agent card at %s: %w", place.URL, err)
	}
	return card, body, nil
}

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
