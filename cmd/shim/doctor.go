package main

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
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/a2a/auth/platform"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
)

// Verdicts of doctor's rows. Only FAIL makes the exit status 1.
const (
	vOK     = "ok"
	vAbsent = "absent"
	vWarn   = "warn"
	vSkip   = "skip"
	vFail   = "FAIL"
)

type doctorTable struct {
	w      *tabwriter.Writer
	failed int
}

func (t *doctorTable) row(check, verdict, detail string) {
	if verdict == vFail {
		t.failed++
	}
	// A detail quotes the server (a card name, an error body) and paths.
	fmt.Fprintf(t.w, "%s\t%s\t%s\n", check, verdict, termsafe.String(detail))
}

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

// doctorAction checks what a session needs and prints a table.
func doctorAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return &exitError{code: 2, msg: fmt.Sprintf("shim doctor takes no arguments (got %q): give the URL with --url", c.Args().First())}
	}
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	t := &doctorTable{w: tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)}
	fmt.Fprintln(t.w, "CHECK\tVERDICT\tDETAIL")
	ctx, cancel := context.WithTimeout(c.Context, 2*time.Minute+probeMax)
	defer cancel()
	doctor{s: s}.checkServer(ctx, c, t)
	checkDir(t, "state dir", stateDir(c), "threads.json", "the thread index")
	checkDir(t, "config dir", configDir(c), credentials.FileName, "the credentials file")
	if err := t.w.Flush(); err != nil {
		return err
	}
	if t.failed > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("doctor: %d check(s) failed; a session would hit them (see the FAIL rows for what to do)", t.failed)}
	}
	return nil
}

// doctor checks the settings for `shim doctor`, a row at a time.
type doctor struct {
	s *settings
}

// checkServer fills in the rows about the agent: URL, token, card,
// dialect, endpoint, the auth probe and the optional operator API. A row
// that fails marks the rows after it skipped.
func (d doctor) checkServer(ctx context.Context, c *cli.Context, t *doctorTable) {
	s := d.s
	u, key := s.inUse.current()
	cardURL := s.inUse.cardURL()
	rest := []string{"agent card", "card signature", "dialect", "binding", "endpoint", "security scheme", "auth probe", "server APIs"}
	skip := func(why string) {
		for _, r := range rest {
			t.row(r, vSkip, why)
		}
	}
	if !d.checkTarget(t, u, key, cardURL) {
		skip("no agent URL")
		return
	}
	tok, src, err := s.resolveToken(c, key)
	plat := s.inUse.agent()
	if !checkToken(t, s.store.Path(), tok, src, err, plat != nil) {
		skip("the token cannot be read")
		return
	}
	if plat != nil && !platformRows(ctx, t, plat, tok, src, s.store.Path()) {
		skip("no credential for the platform")
		return
	}
	cfg := s.clientConfig(u, cardURL, 15*time.Second)
	cfg.Token, cfg.OAuth = tok, signIn{s: s}.oauthFor(c, key, tok, src)
	client, err := a2aclient.New(cfg)
	if err != nil {
		t.row("client", vFail, err.Error())
		skip("no client")
		return
	}
	card, err := client.Discover(ctx)
	if why := cardRow(t, client, card, err, key, src, s.endpoint != ""); why != "" {
		rest = rest[1:]
		if errors.As(err, new(*a2a.CardError)) {
			rest = rest[1:] // its row says why
		}
		skip(why)
		return
	}
	signatureRow(t, client, s.endpoint != "")
	d.cardRows(t, card)
	scheme := ""
	if plat != nil {
		scheme = plat.SchemeName(tok != "")
	}
	securityRows(t, client, s.endpoint != "", scheme) // the scheme and the token expiry (login_oauth.go)
	perr := client.Probe(ctx)
	probeRow(t, perr, tok, key, src, plat)
	if c.Bool("probe") && perr == nil {
		probeRows(ctx, t, client, client.KnownCard())
	} else {
		departureRows(t, client) // those discovery saw (the card's old path)
	}
	switch {
	case errors.As(perr, new(*a2a.CardError)):
		t.row("server APIs", vSkip, "the extended agent card is refused: nothing more is sent")
		return
	case plat != nil:
		t.row("server APIs", vSkip, plat.Platform.Title()+" serves no operator API")
		return
	case client.Base() == "":
		t.row("server APIs", vSkip, "no --url, only --endpoint")
		return
	}
	checkAPIs(ctx, t, client)
}

// checkTarget is the agent URL's row; false when there is none to check.
func (d doctor) checkTarget(t *doctorTable, u, key, cardURL string) bool {
	s := d.s
	switch {
	case u == "" && cardURL == "" && s.endpoint == "":
		t.row("agent URL", vFail, "none: run `shim login --url https://your-agent`, or pass --url")
		return false
	case key != "":
		t.row("agent URL", vOK, key)
	default:
		t.row("agent URL", vWarn, "none, only --endpoint: no stored token is used and the optional server APIs cannot be found; pass --url too")
	}
	return true
}

// checkToken is the token's row; false when it cannot be read. On a
// managed platform no token is no problem: the platform's own credential
// is used.
func checkToken(t *doctorTable, file, tok, src string, err error, platform bool) bool {
	switch {
	case err != nil:
		t.row("token", vFail, err.Error())
		return false
	case tok == "" && platform:
		t.row("token", vOK, "none stored for this URL: the platform's own credential is used")
	case tok == "":
		t.row("token", vWarn, "none for this URL: if the agent needs one, run `shim login`")
	default:
		t.row("token", vOK, "from "+sourceName(src, file))
	}
	return true
}

// cardRow is the agent card's row; it returns why the rows after it are
// skipped when the card could not be read.
func cardRow(t *doctorTable, client *a2aclient.Client, card *a2a.Card, err error, key, src string, endpoint bool) string {
	switch {
	case errors.Is(err, a2a.ErrInsecure):
		t.row("agent card", vFail, insecureAdvice(key))
		return "plain http refused"
	case a2a.IsUnauthorized(err):
		t.row("agent card", vFail, fmt.Sprintf("the server refused the request (HTTP %d): %s", statusOf(err), refusedAdvice(src)))
		return "the card could not be read"
	case errors.As(err, new(*a2a.CardError)):
		t.row("agent card", vOK, "read from "+client.CardURL())
		t.row("card signature", vFail, err.Error())
		return "the agent card is refused"
	case err != nil:
		t.row("agent card", vFail, cardAdvice(err))
		return "the card could not be read"
	case endpoint:
		t.row("agent card", vSkip, "--endpoint given")
	default:
		name := card.Name
		if name == "" {
			name = "(unnamed)"
		}
		t.row("agent card", vOK, fmt.Sprintf("%s (%s)", name, client.CardURL()))
	}
	return ""
}

// signatureRow is the card's signature's row (SPEC §17): verified under
// which key, or unsigned.
func signatureRow(t *doctorTable, client *a2aclient.Client, endpoint bool) {
	v := client.CardSignature()
	switch {
	case endpoint:
		t.row("card signature", vSkip, "--endpoint given")
	case v == nil:
		t.row("card signature", vSkip, "not checked")
	case v.PinnedNow:
		t.row("card signature", vOK, v.String()+"; this key is pinned for the card from now on")
	default:
		t.row("card signature", vOK, v.String())
	}
}

// cardRows are the rows of what the card chose: dialect, binding and
// endpoint, each with what chose it.
func (d doctor) cardRows(t *doctorTable, card *a2a.Card) {
	s := d.s
	plat := s.inUse.agent()
	how := "from the card"
	switch {
	case s.a2aVersion == "1.0" || s.a2aVersion == "0.3":
		how = "--a2a-version"
	case plat != nil && plat.Version != "":
		how = plat.Platform.Title() + "'s"
	case s.endpoint != "":
		how = "default with --endpoint; --a2a-version changes it"
	}
	t.row("dialect", vOK, fmt.Sprintf("A2A %s (%s)", card.Dialect, how))
	how = "from the card"
	switch {
	case s.binding != "" && s.binding != "auto":
		how = "--binding"
	case plat != nil && plat.Binding != "":
		how = plat.Platform.Title() + "'s"
	case s.endpoint != "":
		how = "default with --endpoint; --binding changes it"
	}
	t.row("binding", vOK, fmt.Sprintf("%s (%s)", card.Binding, how))
	ep := card.Endpoint
	switch {
	case plat != nil && plat.NoStreaming:
		ep += " (" + plat.Platform.Title() + " does not stream: each task is polled)"
	case !card.Streaming:
		ep += " (the card says no streaming: each task is polled)"
	}
	t.row("endpoint", vOK, ep)
}

// probeRow is the auth probe's row.
func probeRow(t *doctorTable, perr error, tok, key, src string, plat *platform.Agent) {
	switch {
	case perr == nil && tok == "" && plat != nil:
		t.row("auth probe", vOK, "the platform answered GetTask on a task that cannot exist: its credential works")
	case a2a.IsUnauthorized(perr) && tok == "" && plat != nil:
		t.row("auth probe", vFail, fmt.Sprintf("the platform refused its credential (HTTP %d): check that it may call this agent, or run `shim login`", statusOf(perr)))
	case perr == nil && tok == "":
		t.row("auth probe", vOK, "no token was sent, and the server answered GetTask on a task that cannot exist: this agent accepts calls without one")
	case perr == nil:
		t.row("auth probe", vOK, "the server answered GetTask on a task that cannot exist: the token works")
	case a2a.IsUnauthorized(perr):
		what := "the token"
		if tok == "" {
			what = "the request (no token was sent)"
		}
		t.row("auth probe", vFail, fmt.Sprintf("the server refused %s (HTTP %d): %s", what, statusOf(perr), refusedAdvice(src)))
	case errors.Is(perr, a2a.ErrInsecure):
		t.row("auth probe", vFail, insecureAdvice(key))
	case errors.As(perr, new(*a2a.CardError)):
		t.row("auth probe", vFail, "the extended agent card is refused: "+perr.Error())
	default:
		t.row("auth probe", vFail, fmt.Sprintf("%v: is the agent running, and is the endpoint right?", perr))
	}
}

// cardAdvice says what a failed card fetch got and what to check, once,
// chosen by the kind of error.
func cardAdvice(err error) string {
	var unreachable *a2a.UnreachableError
	switch {
	case errors.Is(err, a2a.ErrNoCard):
		return fmt.Sprintf("%v: check --url (and --slug), or pass --endpoint to skip the card, "+
			"or --card-url with the card's URL (a server hosting several agents keeps each card under the agent's own path)", err)
	case errors.As(err, &unreachable):
		return fmt.Sprintf("%v: is the agent running, and is --url right?", err)
	}
	return err.Error()
}

// refusedAdvice says what to do about a refused token, by where it came
// from: a token given by flag or variable wins over the one `shim login`
// stores, so logging in again cannot help.
func refusedAdvice(src string) string {
	switch src {
	case credentials.SourceFlagToken, credentials.SourceFlagTokenFile, credentials.SourceEnvToken, credentials.SourceEnvTokenFile:
		return fmt.Sprintf("the token from %s was refused; fix it or remove it (it wins over the token `shim login` stores)", src)
	case "":
		return "run `shim login` to store a token"
	}
	return "run `shim login` to store a valid one"
}

func insecureAdvice(key string) string {
	return fmt.Sprintf("refusing to send the token over plain http to %s, which is not this machine: use https, or pass --allow-insecure-http if you trust the network", key)
}

func sourceName(src, file string) string {
	switch src {
	case credentials.SourceKeyring:
		return "the OS keyring"
	case credentials.SourceFile:
		return file
	}
	return src
}

// checkAPIs asks each optional operator API route with a harmless GET,
// through the a2a client's own rules for the token.
func checkAPIs(ctx context.Context, t *doctorTable, client *a2aclient.Client) {
	op := client.Operator()
	probeID := "shim-doctor-" + randid.Hex(6)
	for _, api := range optionalAPIs {
		p := strings.ReplaceAll(api.path, "{probe}", probeID)
		code, err := op.Check(ctx, p)
		path := strings.SplitN(api.path, "?", 2)[0]
		switch {
		case errors.Is(err, a2a.ErrInsecure):
			t.row("server APIs", vSkip, "plain http with a token refused")
			return
		case err != nil:
			t.row("api "+api.name, vWarn, fmt.Sprintf("GET %s: %v", p, err))
		case code/100 == 2:
			t.row("api "+api.name, vOK, fmt.Sprintf("%s answers", path))
		case code == http.StatusMethodNotAllowed && api.postOnly:
			t.row("api "+api.name, vOK, fmt.Sprintf("%s is there (POST only; doctor does not post)", path))
		case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
			t.row("api "+api.name, vAbsent, fmt.Sprintf("%s: HTTP %d, this server does not offer it (optional)", path, code))
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			t.row("api "+api.name, vWarn, fmt.Sprintf("%s: HTTP %d, the token is not accepted here", path, code))
		default:
			t.row("api "+api.name, vWarn, fmt.Sprintf("%s: HTTP %d", path, code))
		}
	}
}

// checkDir reports a directory shim writes to and the file in it that
// must stay private. Neither is needed for a session (shim creates them,
// and a thread index that cannot be written is only logged), so problems
// are warnings.
func checkDir(t *doctorTable, check, dir, file, what string) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.row(check, vOK, dir+" (created with mode 0700 on first use)")
		return
	case err != nil:
		t.row(check, vWarn, fmt.Sprintf("%v: %s cannot be kept", err, what))
		return
	case !fi.IsDir():
		t.row(check, vWarn, fmt.Sprintf("%s is not a directory: %s cannot be kept; remove it or pass another directory", dir, what))
		return
	}
	if f, err := os.CreateTemp(dir, ".shim-doctor-*"); err != nil {
		t.row(check, vWarn, fmt.Sprintf("%s is not writable (%v): %s cannot be kept", dir, err, what))
		return
	} else {
		f.Close()
		os.Remove(f.Name())
	}
	if runtime.GOOS == "windows" {
		t.row(check, vOK, dir)
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
		t.row(check, vWarn, strings.Join(loose, ", ")+": others can read it; shim puts 0700/0600 back on its next write (or chmod it now)")
		return
	}
	t.row(check, vOK, fmt.Sprintf("%s (%#o)", dir, fi.Mode().Perm()))
}
