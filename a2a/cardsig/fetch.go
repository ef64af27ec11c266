package cardsig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// MaxKeyURLBody is the most a key URL's answer may hold.
const MaxKeyURLBody = 64 << 10

// origin is u's scheme and host, lowercased, without the scheme's default
// port.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// isLoopback reports whether host (no port) names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// keyURL checks a key URL (jku) against the card's URL: an absolute
// https URL, or http on this machine, with no user information, on the
// card's own origin. It says why not without fetching anything.
func keyURL(card *url.URL, jku string) (*url.URL, error) {
	u, err := url.Parse(jku)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, errors.New("it is not an absolute URL")
	}
	if u.User != nil {
		return nil, errors.New("it carries user information")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, errors.New("it is plain http to another machine")
		}
	default:
		return nil, fmt.Errorf("its scheme %q is not https", u.Scheme)
	}
	if origin(u) != origin(card) {
		return nil, fmt.Errorf("it is not on the card's own origin (%s)", origin(card))
	}
	return u, nil
}

// fetchKeys fetches the JWKS at u once: a GET through client with no
// credential of shim's (the caller's client carries none), no cookie jar,
// no redirect followed, an answer of at most MaxKeyURLBody bytes. It
// returns its public keys that checkKey accepts; others are skipped.
func fetchKeys(ctx context.Context, client *http.Client, u *url.URL) ([]jose.JSONWebKey, error) {
	if client == nil {
		return nil, errors.New("shim fetches no key here")
	}
	c := *client
	c.Jar = nil
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("it answered HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxKeyURLBody+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxKeyURLBody {
		return nil, fmt.Errorf("its answer is larger than %d KiB", MaxKeyURLBody>>10)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return nil, err
	}
	out := keys[:0]
	for i := range keys {
		if checkKey(&keys[i]) == nil {
			out = append(out, keys[i])
		}
	}
	return out, nil
}
