package platform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/internal/redact"
)

// Name names a platform, as --platform takes it.
type Name string

// The platforms (SPEC §12.7), and auto (from the URL's host) and none.
const (
	Auto             Name = "auto"
	None             Name = "none"
	AgentCore        Name = "agentcore"
	Vertex           Name = "vertex"
	GeminiEnterprise Name = "gemini-enterprise"
	Foundry          Name = "foundry"
	ServiceNow       Name = "servicenow"
)

// Names are the values --platform takes, in the order help lists them:
// auto, none, then the registry's (set with it).
var Names []Name

// Parse reads a --platform value ("" is auto).
func Parse(s string) (Name, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return Auto, nil
	}
	for _, n := range Names {
		if string(n) == s {
			return n, nil
		}
	}
	use := make([]string, len(Names))
	for i, n := range Names {
		use[i] = string(n)
	}
	return "", fmt.Errorf("--platform %q: use %s or %s", s, strings.Join(use[:len(use)-1], ", "), use[len(use)-1])
}

// Title is the platform's name as its vendor writes it.
func (n Name) Title() string {
	if r, ok := lookup(n); ok {
		return r.title
	}
	return string(n)
}

// Detect names the platform of what the console shows (a URL, an
// AgentCore runtime ARN, a Google resource name) by its host (the table
// of hosts.go); None for any other agent.
func Detect(raw string) Name {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "arn:") || strings.HasPrefix(raw, "projects/") {
		for _, r := range registry {
			if r.owns != nil && r.owns(raw) {
				return r.name
			}
		}
		return None
	}
	u, err := url.Parse(raw)
	if err != nil {
		return None
	}
	if n := detectHost(strings.ToLower(u.Hostname())); n != "" {
		return n
	}
	return None
}

// Options configure what Resolve returns.
type Options struct {
	// Version is --a2a-version ("auto", "1.0", "0.3"): which of Foundry's
	// cards are read.
	Version string
	// Helper finds the credential helper (shim-platform) that loads the
	// AWS and Azure credentials; nil is Find (beside shim's executable,
	// then the PATH).
	Helper Locate
	// Hosts are the hosts outside the platform's domains its credential
	// may go to all the same (--platform-host: a private endpoint with a
	// DNS name of its own).
	Hosts []string
}

// Card is one place the agent's card may be read, in order.
type Card struct {
	URL string
	// Dialect is the version whose headers its request carries (0: 1.0).
	Dialect a2a.Dialect
}

// Agent is an agent on a managed platform, as shim reaches it: where it
// is, where its card is, the binding it speaks, and the platform's own
// credential. Building it reads nothing from disk or the network; the
// credential's library is loaded by the first request.
type Agent struct {
	Platform Name
	// Detected is set when --platform auto named the platform from the
	// URL's host.
	Detected bool
	// URL is the agent's base URL: the origin the credential goes to, and
	// what its stored token and its threads are filed under.
	URL string
	// Host is the host the credential goes to, and HostWhy why it may:
	// the platform's domain, this machine, or --platform-host.
	Host, HostWhy string
	// Cards are where its card is read, in order.
	Cards []Card
	// Endpoint, when set, is where every call goes whatever the card says.
	Endpoint string
	// Version and Binding are the dialect and binding it speaks when the
	// flags leave them to the card ("" for the card's).
	Version, Binding string
	// Codec, when set, is the binding and the spelling of its bodies the
	// platform speaks whatever the card and the flags say
	// (a2aclient.Config.Codec: "protojson-0.3" for Google's platforms).
	Codec string
	// NoStreaming: the platform never streams (ServiceNow), whatever
	// the card says.
	NoStreaming bool
	// Scheme, when set, is how a stored secret is put on (ServiceNow's
	// API key header); nil is a bearer token.
	Scheme *a2a.Scheme
	// Login, when set, is the OAuth sign-in `shim login` runs (Foundry's
	// device code against Microsoft Entra), with LoginClientID when no
	// --oauth-client-id is given.
	Login         *a2a.Scheme
	LoginClientID string

	// ambient is the platform's own credential (nil: none, ServiceNow),
	// and signs what it does ("AWS Signature Version 4").
	ambient Ambient
	signs   string
	// decorate puts the platform's extra headers on every request.
	decorate func(*http.Request)
}

// Info says where a credential came from and when it expires; never the
// credential.
type Info struct {
	// From is where it came from ("AWS profile dev (IAM Identity
	// Center)", "ADC user alice@example.com", "Azure CLI").
	From string
	// Expiry is when it expires (zero: it does not, or unknown).
	Expiry time.Time
}

// Ambient is a platform's own credential, from the platform's own
// library, loaded by the first request that needs it. It is an
// auth.Credential.
type Ambient interface {
	auth.Credential
	// Describe loads the credential (which may read files, run a command
	// or call a token endpoint) and says where it came from.
	Describe(ctx context.Context) (Info, error)
	// Loaded says where the credential came from once a request loaded
	// it, else what will be asked ("AWS default credential chain").
	Loaded() string
}

// Resolve reads what the console shows (raw: a URL, a runtime ARN, a
// resource name) into the agent on platform name. For auto it names the
// platform from the host; it returns nil for an agent on no platform.
func Resolve(name Name, raw string, opts Options) (*Agent, error) {
	raw = strings.TrimSpace(raw)
	detected := false
	if name == Auto || name == "" {
		name, detected = Detect(raw), true
	}
	if name == None {
		return nil, nil
	}
	r, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("--platform %q: unknown", name)
	}
	a, err := r.resolve(raw, opts)
	var refused *a2a.RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, fmt.Errorf("--url for %s: %w", name.Title(), err)
	case err != nil && detected:
		return nil, fmt.Errorf("--url for %s (--platform auto, from the host): %w; or pass --platform none for an agent on no platform", name.Title(), err)
	case err != nil:
		return nil, fmt.Errorf("--url for %s: %w", name.Title(), err)
	}
	a.Platform, a.Detected = name, detected
	if a.Host, a.HostWhy, err = a.allowed(opts.Hosts); err != nil {
		return nil, fmt.Errorf("--url for %s: %w", name.Title(), err)
	}
	return a, nil
}

// allowed checks that every place of the agent (its URL, where its cards
// are read, where calls go) is on one host its platform's credential may
// go to (hosts.go), and returns that host and why it may.
func (a *Agent) allowed(named []string) (host, why string, err error) {
	places := []string{a.URL, a.Endpoint}
	for _, c := range a.Cards {
		places = append(places, c.URL)
	}
	for _, p := range places {
		if p == "" {
			continue
		}
		u, err := url.Parse(p)
		if err != nil {
			return "", "", &a2a.RefusedError{Msg: fmt.Sprintf("%q is not a URL", p)}
		}
		h := strings.ToLower(u.Hostname())
		switch {
		case host == "":
			if why, err = allowHost(a.Platform, h, named); err != nil {
				return "", "", err
			}
			host = h
		case h != host:
			return "", "", &a2a.RefusedError{Msg: fmt.Sprintf("the agent's places are on two hosts (%s and %s)", quoteHost(host), quoteHost(h))}
		}
	}
	return host, why, nil
}

// SchemeName says how requests sign in: with the stored secret (stored),
// else with the platform's own credential.
func (a *Agent) SchemeName(stored bool) string {
	switch {
	case stored && a.Scheme != nil:
		return a.Scheme.String() + " (stored)"
	case stored || a.ambient == nil:
		return "bearer (stored)"
	}
	return a.signs
}

// Ambient is the platform's own credential; nil when the platform has
// none (ServiceNow takes a stored API key or token).
func (a *Agent) Ambient() Ambient { return a.ambient }

// Credential is the credential of every request to the agent: the stored
// secret when there is one (a stored token or `shim login` wins over the
// ambient credential), else the platform's own; with the platform's extra
// headers put on first (a signature covers them).
func (a *Agent) Credential(stored *auth.Stored) auth.Credential {
	return &credential{stored: stored, ambient: a.ambient, decorate: a.decorate}
}

type credential struct {
	stored   *auth.Stored
	ambient  Ambient
	decorate func(*http.Request)
}

// Check implements auth.Credential: the platform says how to sign in, not the
// card, so a scheme of the card shim cannot meet is no obstacle.
func (s *credential) Check() error { return nil }

func (s *credential) Empty() bool { return s.stored.Empty() && s.ambient == nil && s.decorate == nil }

func (s *credential) Apply(req *http.Request) error {
	if s.decorate != nil {
		s.decorate(req)
	}
	switch {
	case !s.stored.Empty():
		return s.stored.Apply(req)
	case s.ambient != nil:
		return s.ambient.Apply(req)
	}
	return nil
}

// parseHTTPS parses a console URL: http(s) with a host (plain http is
// for a platform's stand-in on this machine).
func parseHTTPS(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an https URL", raw)
	}
	return u, nil
}

// origin is u's scheme and host.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// signInError is a credential the platform's library could not produce,
// with what to do about it; the library's words are redacted (they may
// quote a file).
func signInError(msg string, err error) error {
	if err != nil {
		msg += " (" + redact.Default.String(strings.TrimSpace(err.Error())) + ")"
	}
	return &a2a.SignInError{Msg: msg}
}
