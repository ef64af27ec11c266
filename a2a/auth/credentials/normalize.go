package credentials

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Normalize returns the normalized form of rawURL (SPEC §9), which is the key
// of stored tokens and of the thread index: scheme and host lowercased, the
// default port (:443 for https, :80 for http) dropped, trailing slashes
// dropped, the path kept as written, query and fragment dropped, and
// "/agents/<slug>" appended when slug is not empty.
//
// It fails for a URL that is not http or https, has no host, or carries user
// information (a password in a URL would end up in logs and in the index;
// `shim login` is the way to give a token). A slug must not be "." or "..",
// nor contain '/', '\\', '%', '?', '#', white space or control characters.
// Error messages never repeat the user information of rawURL.
func Normalize(rawURL, slug string) (string, error) {
	u, err := parseURL(strings.TrimSpace(rawURL))
	if err != nil {
		return "", err
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if slug != "" {
		if err := checkSlug(slug); err != nil {
			return "", err
		}
		path += "/agents/" + url.PathEscape(slug)
	}
	return strings.ToLower(u.Scheme) + "://" + hostOf(u) + path, nil
}

// parseURL parses an http(s) URL with a host and no user information.
func parseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("credentials: empty URL")
	}
	u, err := url.Parse(raw)
	if !strings.Contains(raw, "://") && (err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"))) && !strings.Contains(raw, "@") {
		// "localhost:7870" parses as scheme "localhost": say what is missing.
		return nil, fmt.Errorf("credentials: %q has no http:// or https://; write it as https://%s (or http://%s for an agent on this machine)%w",
			raw, raw, raw, quiet(ErrNoScheme))
	}
	if err != nil {
		// url.Error repeats the whole URL, user information included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("credentials: invalid URL: %v", err)
	}
	if u.User != nil {
		return nil, errors.New("credentials: the URL carries user information (user@ or user:password@); give the token with shim login, --token or --token-file instead")
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("credentials: URL scheme %q is not http or https; write the URL as https://host[:port][/path]", u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, errors.New("credentials: URL has no host; write it as https://host[:port][/path]")
	}
	return u, nil
}

// hostOf is u's host lowercased, without the scheme's default port.
func hostOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") { // IPv6 literal, maybe with a zone
		host = strings.ReplaceAll(host, "%", "%25")
	}
	if port != "" {
		return net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// ErrBadSlug is wrapped by Normalize's error for a slug it cannot use.
var ErrBadSlug = errors.New("bad slug")

// ErrNoScheme is wrapped by Normalize's error for a URL written without
// http:// or https:// ("localhost:7870", "agent.example").
var ErrNoScheme = errors.New("no http:// or https://")

func checkSlug(slug string) error {
	if slug == "." || slug == ".." {
		return fmt.Errorf("credentials: slug %q is not a name%w", slug, quiet(ErrBadSlug))
	}
	for _, r := range slug {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`/\%?#`, r) {
			return fmt.Errorf("credentials: slug %q: no '/', '\\', '%%', '?', '#', spaces or control characters%w", slug, quiet(ErrBadSlug))
		}
	}
	return nil
}

// quietErr wraps a sentinel without adding to the message.
type quietErr struct{ err error }

func (q quietErr) Error() string { return "" }
func (q quietErr) Unwrap() error { return q.err }

func quiet(err error) error { return quietErr{err} }

// checkNormalized fails unless url is its own normalized form, so that a
// token is never stored or looked up under a key that another spelling of
// the same URL would miss (or hit by accident).
func checkNormalized(u string) error {
	n, err := Normalize(u, "")
	if err != nil {
		return err
	}
	if n != u {
		return fmt.Errorf("credentials: URL %q is not normalized (want %q)", u, n)
	}
	return nil
}
