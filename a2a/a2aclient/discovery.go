package a2aclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/transport"
	"github.com/shimdev/shim/a2a/wire"
)

// Discover fetches the agent card once and chooses the endpoint and the
// dialect; with an explicit endpoint it fetches nothing.
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
	cardURL := c.CardURL()
	req, err := c.conn.NewRequest(ctx, http.MethodGet, cardURL, nil, a2a.V10)
	if err != nil {
		return nil, err
	}
	resp, err := c.conn.Do(req)
	if err != nil {
		return nil, c.conn.Error(cardURL, err)
	}
	body, err := c.conn.ReadBody(resp)
	if err != nil {
		return nil, c.conn.Error(cardURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		herr := transport.HTTPError(resp.StatusCode, cardURL, resp.Header.Get("Content-Type"), body)
		herr.Want = "an agent card"
		if herr.Unauthorized() {
			return nil, herr
		}
		return nil, fmt.Errorf("%w: %w", a2a.ErrNoCard, herr)
	}
	card, err := wire.ParseCard(body, forced, bind)
	if err != nil && !(isPinned && card != nil) {
		if !json.Valid(body) {
			herr := transport.HTTPError(resp.StatusCode, cardURL, resp.Header.Get("Content-Type"), body)
			herr.Want = "an agent card"
			return nil, fmt.Errorf("%w: %w", a2a.ErrNoCard, herr)
		}
		return nil, fmt.Errorf("agent card at %s: %w", cardURL, err)
	}
	if isPinned {
		// The codec's calls go to the base, whatever interfaces the card
		// names (a platform's card may name the container behind it).
		card.Endpoint, card.Tenant = c.base.String(), ""
		card.Dialect, card.Binding = pinned.dialect, pinned.binding
	} else {
		card.Endpoint = c.rebase(card.Endpoint)
	}
	card.Security = wire.ParseSecurity(body)
	c.auth.SetSecurity(card.Security)
	c.log.Debug("agent card", "name", card.Name, "endpoint", card.Endpoint, "dialect", card.Dialect.String(), "binding", card.Binding.String(), "streaming", card.Streaming)
	c.card = card
	return card, nil
}

// CardURL is where the agent card is read: the configured card URL, else
// <base>/.well-known/agent-card.json ("" with only an endpoint).
func (c *Client) CardURL() string {
	if c.cfg.CardURL != "" {
		return c.cfg.CardURL
	}
	if c.base == nil {
		return ""
	}
	return c.base.String() + "/.well-known/agent-card.json"
}

// KnownCard returns the card if discovery already ran, else nil.
func (c *Client) KnownCard() *a2a.Card {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.card
}

// rebase keeps the token on --url's origin: an endpoint on another origin,
// or on an unroutable host, gets its path put under --url's origin.
func (c *Client) rebase(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return c.base.String()
	}
	if u.Host == "" {
		// A relative endpoint: resolve it under the base (its path and
		// the /agents/<slug> prefix included).
		dir := *c.base
		dir.Path = strings.TrimSuffix(dir.Path, "/") + "/"
		if strings.HasPrefix(u.Path, "/") {
			u.Path = c.underBase(u.Path)
		}
		return dir.ResolveReference(u).String()
	}
	host := u.Hostname()
	unroutable := host == "0.0.0.0" || host == "::" || (auth.IsLoopback(host) && !auth.IsLoopback(c.base.Hostname()))
	if auth.Origin(u) == c.origin && !unroutable {
		return endpoint
	}
	nu := *c.base
	nu.Path, nu.RawPath = c.underBase(u.Path), ""
	nu.RawQuery = u.RawQuery
	c.log.Info("the agent card names another origin for its endpoint; using the --url origin instead",
		"card", auth.Origin(u), "using", nu.String())
	return nu.String()
}

// underBase puts an endpoint path under the base's path (a hub's
// /agents/<slug> prefix, a proxy's path), unless it is already there: a
// fleet member behind a hub names its own address, not the hub's path.
func (c *Client) underBase(p string) string {
	prefix := strings.TrimSuffix(c.base.Path, "/")
	if prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/") {
		return p
	}
	return prefix + "/" + strings.TrimPrefix(p, "/")
}
