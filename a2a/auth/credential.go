package auth

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// A Credential puts the credential of a client's requests on them: the
// stored secret as the card's scheme takes it (Stored), and the managed
// platforms' own credentials (package platform: a signer, a token source,
// a header). The client's connection (package binding) asks it for each
// request bound for the agent's origin, after its own rules: the origin,
// and no credential over plain http to another machine.
type Credential interface {
	// Check fails for a sign-in shim cannot do (a card requirement it
	// cannot meet): no request is sent then.
	Check() error
	// Empty reports whether there is no credential to send.
	Empty() bool
	// Apply puts the credential on req.
	Apply(req *http.Request) error
}

var _ Credential = (*Stored)(nil)

// Origin is u's scheme and host, lowercased, without a default port: the
// unit a credential is sent to.
func Origin(u *url.URL) string {
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
