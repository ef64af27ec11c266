package checkup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/platform"
	"github.com/shimdev/shim/internal/randid"
)

// optionalAPIs are the operator API routes doctor asks about, each with a
// GET that changes nothing on the server. postOnly marks routes shim calls
// with POST: a GET answered 405 there means the route exists.
var optionalAPIs = []struct {
	name, path string
	postOnly   bool
}{
	{"sessions", "/api/chat/sessions?limit=1", false},
	{"turns", "/api/chat/sessions/{probe}/turns?limit=1", false},
	{"steer", "/api/chat/sessions/{probe}/steer", true},
	{"fs/roots", "/api/fs/roots", false},
	{"config", "/api/config", false},
	{"projects", "/api/projects", false},
	{"handoff", "/api/editor/handoff/claim", true},
}

// Target is the agent URL's row; false when there is none to check.
func Target(t *Table, u, key, cardURL string, endpoint bool) bool {
	switch {
	case u == "" && cardURL == "" && !endpoint:
		t.Row("agent URL", Fail, "none: run `shim login --url https://your-agent`, or pass --url")
		return false
	case key != "":
		t.Row("agent URL", OK, key)
	default:
		t.Row("agent URL", Warn, "none, only --endpoint: no stored token is used and the optional server APIs cannot be found; pass --url too")
	}
	return true
}

// Token is the token's row; false when it cannot be read. On a
// managed platform no token is no problem: the platform's own credential
// is used.
func Token(t *Table, file, tok, src string, err error, platform bool) bool {
	switch {
	case err != nil:
		t.Row("token", Fail, err.Error())
		return false
	case tok == "" && platform:
		t.Row("token", OK, "none stored for this URL: the platform's own credential is used")
	case tok == "":
		t.Row("token", Warn, "none for this URL: if the agent needs one, run `shim login`")
	default:
		t.Row("token", OK, "from "+Source(src, file))
	}
	return true
}

// Card is the agent card's row; it returns why the rows after it are
// skipped when the card could not be read.
func Card(t *Table, client *a2aclient.Client, card *a2a.Card, err error, key, src string, endpoint bool) string {
	switch {
	case errors.Is(err, a2a.ErrInsecure):
		t.Row("agent card", Fail, insecureAdvice(key))
		return "plain http refused"
	case a2a.IsUnauthorized(err):
		t.Row("agent card", Fail, fmt.Sprintf("the server refused the request (HTTP %d): %s", HTTPStatus(err), RefusedAdvice(src)))
		return "the card could not be read"
	case errors.As(err, new(*a2a.CardError)):
		t.Row("agent card", OK, "read from "+client.CardURL())
		t.Row("card signature", Fail, err.Error())
		return "the agent card is refused"
	case err != nil:
		t.Row("agent card", Fail, cardAdvice(err))
		return "the card could not be read"
	case endpoint:
		t.Row("agent card", Skip, "--endpoint given")
	default:
		name := card.Name
		if name == "" {
			name = "(unnamed)"
		}
		t.Row("agent card", OK, fmt.Sprintf("%s (%s)", name, client.CardURL()))
	}
	return ""
}

// Signature is the card's signature's row (SPEC §17): verified under
// which key, or unsigned.
func Signature(t *Table, client *a2aclient.Client, endpoint bool) {
	v := client.CardSignature()
	switch {
	case endpoint:
		t.Row("card signature", Skip, "--endpoint given")
	case v == nil:
		t.Row("card signature", Skip, "not checked")
	case v.PinnedNow:
		t.Row("card signature", OK, v.String()+"; this key is pinned for the card from now on")
	default:
		t.Row("card signature", OK, v.String())
	}
}

// Chosen is what the command line chose of the agent's protocol, and the
// managed platform's agent (nil: none).
type Chosen struct {
	Version, Binding, Endpoint string
	Platform                   *platform.Agent
}

// Choices are the rows of what the card chose: dialect, binding and
// endpoint, each with what chose it.
func Choices(t *Table, card *a2a.Card, by Chosen) {
	plat := by.Platform
	how := "from the card"
	switch {
	case by.Version == "1.0" || by.Version == "0.3":
		how = "--a2a-version"
	case plat != nil && plat.Version != "":
		how = plat.Platform.Title() + "'s"
	case by.Endpoint != "":
		how = "default with --endpoint; --a2a-version changes it"
	}
	t.Row("dialect", OK, fmt.Sprintf("A2A %s (%s)", card.Dialect, how))
	how = "from the card"
	switch {
	case by.Binding != "" && by.Binding != "auto":
		how = "--binding"
	case plat != nil && plat.Binding != "":
		how = plat.Platform.Title() + "'s"
	case by.Endpoint != "":
		how = "default with --endpoint; --binding changes it"
	}
	t.Row("binding", OK, fmt.Sprintf("%s (%s)", card.Binding, how))
	ep := card.Endpoint
	switch {
	case plat != nil && plat.NoStreaming:
		ep += " (" + plat.Platform.Title() + " does not stream: each task is polled)"
	case !card.Streaming:
		ep += " (the card says no streaming: each task is polled)"
	}
	t.Row("endpoint", OK, ep)
}

// Security are doctor's rows about signing in: the scheme in use and
// the stored token's expiry when known. They make no network call.
// A managed platform's scheme (platform) is said as it is.
func Security(t *Table, client *a2aclient.Client, endpointOnly bool, platform string) {
	sec := client.Security()
	switch {
	case platform != "":
		t.Row("security scheme", OK, platform)
	case endpointOnly:
		t.Row("security scheme", OK, "bearer (--endpoint given: no card read)")
	case sec != nil && sec.Unmet != "":
		t.Row("security scheme", Fail, "the agent card asks for a sign-in shim cannot do: "+sec.Unmet)
	default:
		t.Row("security scheme", OK, sec.String())
	}
	if exp := client.TokenExpiry(); !exp.IsZero() {
		if time.Now().After(exp) {
			t.Row("token expiry", Warn, exp.UTC().Format(time.RFC3339)+" (expired: renewed with the refresh token on the next call, else run `shim login`)")
		} else {
			t.Row("token expiry", OK, exp.UTC().Format(time.RFC3339))
		}
	}
}

// AuthProbe is the auth probe's row.
func AuthProbe(t *Table, perr error, tok, key, src string, plat *platform.Agent) {
	switch {
	case perr == nil && tok == "" && plat != nil:
		t.Row("auth probe", OK, "the platform answered GetTask on a task that cannot exist: its credential works")
	case a2a.IsUnauthorized(perr) && tok == "" && plat != nil:
		t.Row("auth probe", Fail, fmt.Sprintf("the platform refused its credential (HTTP %d): check that it may call this agent, or run `shim login`", HTTPStatus(perr)))
	case perr == nil && tok == "":
		t.Row("auth probe", OK, "no token was sent, and the server answered GetTask on a task that cannot exist: this agent accepts calls without one")
	case perr == nil:
		t.Row("auth probe", OK, "the server answered GetTask on a task that cannot exist: the token works")
	case a2a.IsUnauthorized(perr):
		what := "the token"
		if tok == "" {
			what = "the request (no token was sent)"
		}
		t.Row("auth probe", Fail, fmt.Sprintf("the server refused %s (HTTP %d): %s", what, HTTPStatus(perr), RefusedAdvice(src)))
	case errors.Is(perr, a2a.ErrInsecure):
		t.Row("auth probe", Fail, insecureAdvice(key))
	case errors.As(perr, new(*a2a.CardError)):
		t.Row("auth probe", Fail, "the extended agent card is refused: "+perr.Error())
	default:
		t.Row("auth probe", Fail, fmt.Sprintf("%v: is the agent running, and is the endpoint right?", perr))
	}
}

// Platform are doctor's rows about the platform: which one and how it
// was chosen, and the credential in use (where it came from and when it
// expires, never the credential). They load the platform's credential
// (its library may read files, run a command or call a token endpoint).
// false when a session could not sign in.
func Platform(ctx context.Context, t *Table, plat *platform.Agent, tok, src, file string) bool {
	how := "--platform " + string(plat.Platform)
	if plat.Detected {
		how = "--platform auto, from the URL's host"
	}
	t.Row("platform", OK, fmt.Sprintf("%s (%s)", plat.Platform.Title(), how))
	t.Row("credential host", OK, fmt.Sprintf("%s (%s): the only host the credential is sent to", plat.Host, plat.HostWhy))
	amb := plat.Ambient()
	switch {
	case tok != "":
		what := "the stored secret from " + Source(src, file)
		if amb != nil {
			what += " (it wins over " + amb.Loaded() + ")"
		}
		t.Row("credential", OK, what)
		return true
	case amb == nil:
		t.Row("credential", Fail, fmt.Sprintf("none: %s takes an API key (or a token) that `shim login` stores: run `shim login`", plat.Platform.Title()))
		return false
	}
	info, err := amb.Describe(ctx)
	if err != nil {
		t.Row("credential", Fail, err.Error())
		return false
	}
	t.Row("credential", OK, info.From)
	switch {
	case info.Expiry.IsZero():
		t.Row("credential expiry", OK, "none (the credential does not expire)")
	case time.Now().After(info.Expiry):
		t.Row("credential expiry", Warn, info.Expiry.UTC().Format(time.RFC3339)+" (expired: its library renews it on the next call, else sign in again)")
	default:
		t.Row("credential expiry", OK, info.Expiry.UTC().Format(time.RFC3339)+" (renewed by its library)")
	}
	return true
}

// APIs asks each optional operator API route with a harmless GET,
// through the a2a client's own rules for the token.
func APIs(ctx context.Context, t *Table, client *a2aclient.Client) {
	op := client.Operator()
	probeID := "shim-doctor-" + randid.Hex(6)
	for _, api := range optionalAPIs {
		p := strings.ReplaceAll(api.path, "{probe}", probeID)
		code, err := op.Check(ctx, p)
		path := strings.SplitN(api.path, "?", 2)[0]
		switch {
		case errors.Is(err, a2a.ErrInsecure):
			t.Row("server APIs", Skip, "plain http with a token refused")
			return
		case err != nil:
			t.Row("api "+api.name, Warn, fmt.Sprintf("GET %s: %v", p, err))
		case code/100 == 2:
			t.Row("api "+api.name, OK, fmt.Sprintf("%s answers", path))
		case code == http.StatusMethodNotAllowed && api.postOnly:
			t.Row("api "+api.name, OK, fmt.Sprintf("%s is there (POST only; doctor does not post)", path))
		case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
			t.Row("api "+api.name, Absent, fmt.Sprintf("%s: HTTP %d, this server does not offer it (optional)", path, code))
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			t.Row("api "+api.name, Warn, fmt.Sprintf("%s: HTTP %d, the token is not accepted here", path, code))
		default:
			t.Row("api "+api.name, Warn, fmt.Sprintf("%s: HTTP %d", path, code))
		}
	}
}

// Dir reports a directory shim writes to and the file in it that
// must stay private. Neither is needed for a session (shim creates them,
// and a thread index that cannot be written is only logged), so problems
// are warnings.
func Dir(t *Table, check, dir, file, what string) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Row(check, OK, dir+" (created with mode 0700 on first use)")
		return
	case err != nil:
		t.Row(check, Warn, fmt.Sprintf("%v: %s cannot be kept", err, what))
		return
	case !fi.IsDir():
		t.Row(check, Warn, fmt.Sprintf("%s is not a directory: %s cannot be kept; remove it or pass another directory", dir, what))
		return
	}
	if f, err := os.CreateTemp(dir, ".shim-doctor-*"); err != nil {
		t.Row(check, Warn, fmt.Sprintf("%s is not writable (%v): %s cannot be kept", dir, err, what))
		return
	} else {
		f.Close()
		os.Remove(f.Name())
	}
	if runtime.GOOS == "windows" {
		t.Row(check, OK, dir)
		return
	}
	var loose []string
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		loose = append(loose, fmt.Sprintf("%s is %#o", dir, m))
	}
	p := filepath.Join(dir, file)
	if ffi, err := os.Stat(p); err == nil && ffi.Mode().Perm()&0o077 != 0 {
		loose = append(loose, fmt.Sprintf("%s is %#o", file, ffi.Mode().Perm()))
	}
	if len(loose) > 0 {
		t.Row(check, Warn, strings.Join(loose, ", ")+": others can read it; shim puts 0700/0600 back on its next write (or chmod it now)")
		return
	}
	t.Row(check, OK, fmt.Sprintf("%s (%#o)", dir, fi.Mode().Perm()))
}
