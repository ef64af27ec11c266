package a2aclient

import (
	"log/slog"
	"net/url"
	"strings"

	"github.com/shimdev/shim/a2a/auth"
)

// places is where the agent is, as the configuration says: its base URL
// (every path is under it; nil with only an endpoint), its origin (the
// only one the credential goes to) and where its card is read. Set once
// by New, then only read.
type places struct {
	base    *url.URL
	origin  string
	cardURL string      // Config.CardURL
	cards   []CardPlace // Config.Cards
	log     *slog.Logger
}

// cardPlaces are the places the card is read from, in order.
func (at *places) cardPlaces() []CardPlace {
	if at.cardURL == "" && len(at.cards) > 0 {
		return at.cards
	}
	return []CardPlace{{URL: at.configured()}}
}

// oldPath is <base>/.well-known/agent.json when the card is read at the
// default place (no card URL, no platform's places), else "": where a
// server of A2A 0.2's age serves it (cardAtOldPath).
func (at *places) oldPath() string {
	if at.cardURL != "" || len(at.cards) > 0 || at.base == nil {
		return ""
	}
	return at.base.String() + "/.well-known/agent.json"
}

// configured is where the card is read first.
func (at *places) configured() string {
	if at.cardURL == "" && len(at.cards) > 0 {
		return at.cards[0].URL
	}
	if at.cardURL != "" {
		return at.cardURL
	}
	if at.base == nil {
		return ""
	}
	return at.base.String() + "/.well-known/agent-card.json"
}

// rebase keeps the token on --url's origin: an endpoint on another origin,
// or on an unroutable host, gets its path put under --url's origin.
func (at *places) rebase(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return at.base.String()
	}
	if u.Host == "" {
		// A relative endpoint: resolve it under the base (its path and
		// the /agents/<slug> prefix included).
		dir := *at.base
		dir.Path = strings.TrimSuffix(dir.Path, "/") + "/"
		if strings.HasPrefix(u.Path, "/") {
			u.Path = at.underBase(u.Path)
		}
		return dir.ResolveReference(u).String()
	}
	host := u.Hostname()
	unroutable := host == "0.0.0.0" || host == "::" || (auth.IsLoopback(host) && !auth.IsLoopback(at.base.Hostname()))
	if auth.Origin(u) == at.origin && !unroutable {
		return endpoint
	}
	nu := *at.base
	nu.Path, nu.RawPath = at.underBase(u.Path), ""
	nu.RawQuery = u.RawQuery
	at.log.Info("the agent card names another origin for its endpoint; using the --url origin instead",
		"card", auth.Origin(u), "using", nu.String())
	return nu.String()
}

// underBase puts an endpoint path under the base's path (a hub's
// /agents/<slug> prefix, a proxy's path), unless it is already there: a
// fleet member behind a hub names its own address, not the hub's path.
func (at *places) underBase(p string) string {
	prefix := strings.TrimSuffix(at.base.Path, "/")
	if prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/") {
		return p
	}
	return prefix + "/" + strings.TrimPrefix(p, "/")
}
