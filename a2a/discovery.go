package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

func origin(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

// IsLoopback reports whether host (no port) names this machine.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Discover fetches the agent card once and chooses the endpoint and the
// dialect; with an explicit endpoint it fetches nothing.
func (c *Client) Discover(ctx context.Context) (*Card, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.card != nil {
		return c.card, nil
	}
	forced := dialectFor(c.cfg.Version)
	bind, err := ParseBinding(c.cfg.Binding)
	if err != nil {
		return nil, err
	}
	if c.cfg.Endpoint != "" {
		d := forced
		if d == 0 {
			d = V10
		}
		if bind == 0 {
			bind = BindingJSONRPC
		}
		c.card = &Card{Endpoint: c.cfg.Endpoint, Dialect: d, Binding: bind, Streaming: true}
		return c.card, nil
	}
	cardURL := c.CardURL()
	req, err := c.newRequest(ctx, http.MethodGet, cardURL, nil, V10)
	if err != nil {
		return nil, err
	}
	resp, err := c.unary.Do(req)
	if err != nil {
		return nil, c.transportError(cardURL, err)
	}
	body, err := c.readBody(resp)
	if err != nil {
		return nil, c.transportError(cardURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		herr := httpError(resp.StatusCode, cardURL, resp.Header.Get("Content-Type"), body)
		herr.Want = "an agent card"
		if herr.Unauthorized() {
			return nil, herr
		}
		return nil, fmt.Errorf("%w: %w", ErrNoCard, herr)
	}
	card, err := parseCard(body, forced, bind)
	if err != nil {
		if !json.Valid(body) {
			herr := httpError(resp.StatusCode, cardURL, resp.Header.Get("Content-Type"), body)
			herr.Want = "an agent card"
			return nil, fmt.Errorf("%w: %w", ErrNoCard, herr)
		}
		return nil, fmt.Errorf("agent card at %s: %w", cardURL, err)
	}
	card.Endpoint = c.rebase(card.Endpoint)
	card.Security = ParseSecurity(body) // hook: security schemes (security.go)
	c.auth.setSecurity(card.Security)
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
func (c *Client) KnownCard() *Card {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.card
}

func dialectFor(v string) Dialect {
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v") {
	case "1", "1.0":
		return V10
	case "0.3", "0.3.0":
		return V03
	}
	return 0
}

type wireCard struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Version      string `json:"version"`
	URL          string `json:"url"`
	Preferred    string `json:"preferredTransport"`
	Preferred2   string `json:"preferred_transport"`
	Protocol     string `json:"protocolVersion"`
	Protocol2    string `json:"protocol_version"`
	Capabilities struct {
		Streaming *bool `json:"streaming"`
	} `json:"capabilities"`
	Interfaces  []wireInterface `json:"supportedInterfaces"`
	Interfaces2 []wireInterface `json:"supported_interfaces"`
	Additional  []wireInterface `json:"additionalInterfaces"`
}

type wireInterface struct {
	URL       string `json:"url"`
	Binding   string `json:"protocolBinding"`
	Binding2  string `json:"protocol_binding"`
	Transport string `json:"transport"`
	Version   string `json:"protocolVersion"`
	Version2  string `json:"protocol_version"`
	Tenant    string `json:"tenant"`
}

func (i wireInterface) dialect() Dialect {
	if strings.HasPrefix(strings.TrimPrefix(first(i.Version, i.Version2), "v"), "0.") {
		return V03
	}
	return V10
}

// parseCard reads a card of either dialect. forced, when not zero, is the
// dialect --a2a-version asks for; bind, when not zero, the binding
// --binding asks for. A card with no usable interface is returned with
// the error (its name, skills and capabilities read).
func parseCard(body []byte, forced Dialect, bind Binding) (*Card, error) {
	var w wireCard
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	card := &Card{Name: w.Name, Description: w.Description, Version: w.Version,
		Streaming: w.Capabilities.Streaming == nil || *w.Capabilities.Streaming}
	cardExtras(body, card)
	ifaces := w.Interfaces
	if len(ifaces) == 0 {
		ifaces = w.Interfaces2
	}
	if len(ifaces) > 0 {
		pick, b, err := pickInterface(ifaces, forced, bind)
		if err != nil {
			return card, err
		}
		card.Endpoint, card.Dialect, card.Tenant, card.Binding = pick.URL, pick.dialect(), pick.Tenant, b
		if forced != 0 {
			card.Dialect = forced
		}
		return card, nil
	}
	// A 0.3 card: url + preferredTransport (+ additionalInterfaces).
	card.Dialect = V03
	if forced != 0 {
		card.Dialect = forced
	}
	ep, b, err := pickURL03(w.URL, first(w.Preferred, w.Preferred2), w.Additional, bind)
	if err != nil {
		return card, err
	}
	card.Endpoint, card.Binding = ep, b
	return card, nil
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
	unroutable := host == "0.0.0.0" || host == "::" || (IsLoopback(host) && !IsLoopback(c.base.Hostname()))
	if origin(u) == c.origin && !unroutable {
		return endpoint
	}
	nu := *c.base
	nu.Path, nu.RawPath = c.underBase(u.Path), ""
	nu.RawQuery = u.RawQuery
	c.log.Info("the agent card names another origin for its endpoint; using the --url origin instead",
		"card", origin(u), "using", nu.String())
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
