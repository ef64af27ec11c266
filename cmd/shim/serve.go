package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/a2a/auth/platform"
	"github.com/shimdev/shim/a2a/cardsig"
	"github.com/shimdev/shim/a2a/remember"
	"github.com/shimdev/shim/bridge"
	"github.com/shimdev/shim/cmd/shim/internal/flags"
	"github.com/shimdev/shim/internal/privfile"
	"github.com/shimdev/shim/internal/redact"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// settings is what every command reads from flags and environment, read
// once by readSettings and not changed after; what changes while serving
// is the agent in use (inUse). Signing in is signIn's, doctor's checks
// doctor's; settings builds the A2A client.
type settings struct {
	flagURL       string // --url or SHIM_URL, as given
	flagCard      string // --card-url or SHIM_CARD_URL, as given
	endpoint      string
	endpointKey   string // the normalized endpoint: the index key with --endpoint alone
	slug          string
	a2aVersion    string
	binding       string
	profile       string
	platform      platform.Name // --platform
	platformHosts []string      // --platform-host
	allowInsecure bool
	stall         time.Duration
	store         *credentials.Store
	cards         *cardsig.Verifier // checks the agent card's signatures (SPEC §17)
	log           *slog.Logger
	trace         io.Writer
	// remembered is what earlier launches kept of agents (SPEC §19):
	// serving only, so that doctor and login always ask the agent.
	remembered *remember.File

	inUse inUse // the agent in use and its credential's origin, which authenticate changes (inuse.go)
}

// errNoURL is what every command that needs a server says without one.
var errNoURL = errors.New("no agent URL is configured: run `shim login --url https://your-agent` in a terminal " +
	"(later runs default to it), or pass --url https://your-agent (in the editor: in the agent's \"args\")")

// loadSettings reads the configuration of a command; a missing URL is not
// an error, an agent address refused (SPEC §15) is (exit 2).
func loadSettings(c *cli.Context) (*settings, error) {
	s, err := readSettings(c)
	if err == nil && s.inUse.refused != nil {
		return nil, &exitError{code: 2, msg: s.inUse.refused.Error()}
	}
	return s, err
}

// readSettings reads the configuration; a missing URL is not an error, nor
// is an agent address refused: serving answers initialize, and every call
// that needs the agent fails saying why (inUse.refused).
func readSettings(c *cli.Context) (*settings, error) {
	log, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	mode, err := credentials.ParseMode(flags.String(c, "keyring"))
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "credentials: "))
	}
	s := &settings{
		flagURL:       strings.TrimSpace(flags.String(c, "url")),
		flagCard:      strings.TrimSpace(flags.String(c, "card-url")),
		endpoint:      flags.String(c, "endpoint"),
		slug:          flags.String(c, "slug"),
		a2aVersion:    flags.String(c, "a2a-version"),
		binding:       flags.String(c, "binding"),
		profile:       flags.String(c, "agent-profile"),
		allowInsecure: flags.Bool(c, "allow-insecure-http"),
		log:           log,
	}
	switch s.a2aVersion {
	case "auto", "1.0", "0.3", "":
	default:
		return nil, fmt.Errorf("--a2a-version %q: use auto, 1.0 or 0.3", s.a2aVersion)
	}
	if _, err := a2a.ParseBinding(s.binding); err != nil {
		return nil, fmt.Errorf("--binding %q: use auto, jsonrpc or http+json", s.binding)
	}
	switch s.profile {
	case a2aclient.ProfileAuto, a2aclient.ProfileGeneric, a2aclient.ProfileGeminiCLI, "":
	default:
		return nil, fmt.Errorf("--agent-profile %q: use auto, generic or gemini-cli", s.profile)
	}
	if s.stall, err = flags.Duration("stall", flags.String(c, "stall")); err != nil {
		return nil, err
	}
	if s.platform, err = platform.Parse(flags.String(c, "platform")); err != nil {
		return nil, err
	}
	for _, h := range flags.Slice(c, "platform-host") {
		for _, h := range strings.Split(h, ",") {
			if err := platform.CheckHostFlag(h); err != nil {
				return nil, err
			}
			s.platformHosts = append(s.platformHosts, strings.ToLower(strings.TrimSpace(h)))
		}
	}
	var kr credentials.Keyring
	if mode != credentials.ModeOff {
		kr = credentials.SystemKeyring()
	}
	s.store = credentials.NewStore(flags.ConfigDir(c), kr, mode, log)
	if s.cards, err = cardVerifier(c, log); err != nil {
		return nil, err
	}
	if s.endpoint != "" {
		// Unusable, it is said by the first call that needs it.
		s.endpointKey, _ = credentials.Normalize(s.endpoint, "")
	}
	u := s.flagURL
	if u == "" && s.flagCard == "" {
		u = s.lastURL()
	}
	u, plat, err := s.place(u)
	switch {
	case isRefusal(err):
		s.inUse.refused = err
		return s, nil
	case err != nil:
		return nil, err
	}
	url, card, key, err := target(u, s.flagCard, s.slug)
	if err != nil {
		return nil, err
	}
	s.inUse.url, s.inUse.card, s.inUse.key, s.inUse.plat = url, card, key, plat
	return s, nil
}

// isCardURL reports whether a --url names an agent card (its path ends in
// .json) rather than the agent's base URL (SPEC §12.8).
func isCardURL(u string) bool {
	p, err := neturl.Parse(strings.TrimSpace(u))
	return err == nil && strings.HasSuffix(strings.ToLower(p.Path), ".json")
}

// target reads the agent's address: the base URL u (a card URL when its
// path ends in .json) and the card URL card (--card-url). key is what the
// credential and the thread index are filed under: the normalized card
// URL whenever there is one (the slug is not in it: the card URL names the
// agent), else the normalized base URL with the slug.
func target(u, card, slug string) (url, cardURL, key string, err error) {
	if card == "" && isCardURL(u) {
		u, card = "", u
	}
	switch {
	case card != "":
		if key, err = credentials.Normalize(card, ""); err != nil {
			return "", "", "", cardURLError(card, err)
		}
		if u != "" {
			if _, err := credentials.Normalize(u, slug); err != nil {
				return "", "", "", urlError(u, err)
			}
		}
	case u != "":
		if key, err = credentials.Normalize(u, slug); err != nil {
			return "", "", "", urlError(u, err)
		}
	}
	return u, card, key, nil
}

// cardURLError explains a card URL that cannot be used.
func cardURLError(u string, err error) error {
	return fmt.Errorf("--card-url: %s (write it as https://host[:port]/path/agent-card.json)", strings.TrimPrefix(err.Error(), "credentials: "))
}

// urlError explains a URL that cannot be used.
func urlError(u string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "credentials: ")
	switch {
	case errors.Is(err, credentials.ErrBadSlug):
		return fmt.Errorf("--slug: %s", msg)
	case errors.Is(err, credentials.ErrNoScheme):
		return fmt.Errorf("--url: %s", msg)
	}
	return fmt.Errorf("--url: %s (write it as https://host[:port][/path])", msg)
}

// lastURL is the URL of the last `shim login`, the default --url. A login
// with --slug recorded the member's URL (…/agents/<slug>); with --slug
// given now, that suffix is dropped so the prefix is not added twice.
func (s *settings) lastURL() string {
	last, err := s.store.LastURL()
	if err != nil {
		s.log.Warn("could not read the URL of the last login; pass --url", "err", err)
		return ""
	}
	if s.slug != "" && !isCardURL(last) {
		if i := strings.LastIndex(last, "/agents/"); i >= 0 && !strings.Contains(last[i+len("/agents/"):], "/") {
			last = last[:i]
		}
	}
	return last
}

// indexKey is what the thread index files this agent's threads under:
// the key of the card URL or the URL, or the normalized endpoint when
// --endpoint comes without --url or --card-url (SPEC §12.8): the endpoint
// names the agent, a URL remembered from an earlier login may not.
func (s *settings) indexKey() string {
	if s.flagURL == "" && s.flagCard == "" && s.endpointKey != "" {
		return s.endpointKey
	}
	_, key := s.inUse.current()
	return key
}

// tokenSources are the token flags and variables as given.
func tokenSources(c *cli.Context) credentials.Sources {
	return credentials.Sources{
		FlagToken:     flags.String(c, "token"),
		FlagTokenFile: flags.String(c, "token-file"),
		EnvToken:      os.Getenv("SHIM_TOKEN"),
		EnvTokenFile:  os.Getenv("SHIM_TOKEN_FILE"),
		Home:          flags.Home(),
	}
}

// resolveToken finds the bearer token in SPEC order (flags, environment,
// then the token stored for key alone) and registers it for redaction.
func (s *settings) resolveToken(c *cli.Context, key string) (token, source string, err error) {
	src := tokenSources(c)
	addSecret(strings.TrimSpace(src.FlagToken))
	addSecret(strings.TrimSpace(src.EnvToken))
	token, source, err = s.store.Lookup(key, src)
	if err != nil {
		return "", "", tokenError(err)
	}
	addSecret(token)
	if n := utf8.RuneCountInString(token); token != "" && n < redact.MinLen {
		if s.inUse.firstShortToken() {
			s.log.Warn(fmt.Sprintf("the token from %s has %d characters, fewer than %d: too short to redact from logs "+
				"and output without mangling other text; use the whole token", source, n, redact.MinLen))
		}
	}
	return token, source, nil
}

// tokenError says what to do about a token that cannot be read.
func tokenError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "credentials: ")
	var source *credentials.SourceError
	switch {
	case errors.As(err, &source) && source.File():
		return fmt.Errorf("%s: the token file must exist and hold only the token; fix the path, or drop --token-file / SHIM_TOKEN_FILE to use the token `shim login` stored", msg)
	case source != nil:
		return fmt.Errorf("%s: give the token alone, without spaces, quotes or \"Bearer \"", msg)
	case errors.Is(err, credentials.ErrKeyringOn):
		return fmt.Errorf("%s: start the OS keyring (Secret Service), or pass --keyring auto to use the credentials file", msg)
	case errors.Is(err, credentials.ErrCorrupt):
		return fmt.Errorf("%s", msg)
	}
	return fmt.Errorf("reading the stored token: %s", msg)
}

// client builds the A2A client with the current URL and credentials.
func (s *settings) client(c *cli.Context, timeout time.Duration) (*a2aclient.Client, error) {
	if err := s.inUse.refusal(); err != nil {
		return nil, err
	}
	url, key := s.inUse.current()
	if url == "" && s.inUse.cardURL() == "" && s.endpoint == "" {
		return nil, errNoURL
	}
	tok, src, err := s.resolveToken(c, key)
	if err != nil {
		return nil, err
	}
	s.inUse.setSource(tok, src)
	if tok != "" {
		s.log.Debug("bearer token found", "source", src, "url", key)
	} else {
		s.log.Debug("no bearer token for this URL", "url", key)
	}
	cfg := s.clientConfig(url, s.inUse.cardURL(), timeout)
	cfg.Token, cfg.Stall, cfg.Trace, cfg.Remember = tok, s.stall, s.trace, s.remembered
	cfg.OAuth = signIn{s: s}.oauthFor(c, key, tok, src) // a stored OAuth sign-in, renewed as needed (login_oauth.go)
	return a2aclient.New(cfg)
}

// clientConfig is the A2A client configuration every command builds on:
// the agent's address, dialect and binding as the flags give them. Each
// caller adds its credential (and serving its stall and trace).
func (s *settings) clientConfig(url, card string, timeout time.Duration) a2aclient.Config {
	cfg := a2aclient.Config{URL: url, CardURL: card, Slug: s.slug, Endpoint: s.endpoint, Version: s.a2aVersion, Binding: s.binding,
		Profile: s.profile, AllowInsecureHTTP: s.allowInsecure, Log: s.log, Timeout: timeout,
		UserAgent: "shim/" + versionOrDev(), CardCheck: s.cards}
	s.platformConfig(&cfg) // the managed platform's places and credential (platform.go)
	return cfg
}

// cardVerifier checks the agent card's signatures (SPEC §17): against the
// keys of --card-keys when given, else against the key pinned for the
// card's URL in <config-dir>/known_agents.json, the first one seen pinned.
// A key URL is fetched with a client of its own, which carries no
// credential.
func cardVerifier(c *cli.Context, log *slog.Logger) (*cardsig.Verifier, error) {
	if path := strings.TrimSpace(flags.String(c, "card-keys")); path != "" {
		keys, err := cardsig.LoadKeys(flags.ExpandHome(path))
		if err != nil {
			return nil, &exitError{code: 2, msg: err.Error()}
		}
		return &cardsig.Verifier{Keys: keys}, nil
	}
	return &cardsig.Verifier{Pins: cardsig.NewPins(flags.ConfigDir(c), log),
		Client: &http.Client{Transport: cleanhttp.DefaultTransport(), Timeout: 15 * time.Second}}, nil
}

// reload re-reads the URL (when --url is not given: the last login's may
// have changed) and the token; authenticate asks for this.
func (s *settings) reload(c *cli.Context) (*a2aclient.Client, error) {
	if s.flagURL == "" && s.flagCard == "" {
		if last := s.lastURL(); last != "" {
			last, plat, err := s.place(last)
			switch {
			case isRefusal(err):
				s.inUse.setRefused(err)
			case err == nil:
				if url, card, key, err := target(last, "", s.slug); err == nil {
					s.inUse.setTarget(url, card, key, plat)
				}
			}
		}
	}
	return s.client(c, 0)
}

// forget removes the stored token of the URL in use (ACP logout).
func (s *settings) forget() error {
	_, key := s.inUse.current()
	if key == "" {
		return nil
	}
	return s.store.Forget(key)
}

func versionOrDev() string {
	if version == "" {
		return "dev"
	}
	return version
}

// executable is the absolute path of the running binary, for the editor's
// terminal sign-in.
func executable() string {
	exe, err := os.Executable()
	if err != nil || exe == "" {
		exe, err = exec.LookPath(os.Args[0])
		if err != nil {
			return "shim"
		}
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	return exe
}

func serveAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("unknown command %q: see `shim --help`", c.Args().First())
	}
	s, err := readSettings(c)
	if err != nil {
		return err
	}
	grace, err := flags.Duration("steer-grace", flags.String(c, "steer-grace"))
	if err != nil {
		return err
	}
	busy, err := flags.Duration("busy-timeout", flags.String(c, "busy-timeout"))
	if err != nil {
		return err
	}
	if tf := flags.String(c, "trace-frames"); tf != "" {
		// Never through a link (it could point anywhere the user can
		// write), and 0600 even when the file was there before.
		f, err := privfile.OpenAppend(flags.ExpandHome(tf))
		switch {
		case errors.Is(err, privfile.ErrNotRegular):
			s.log.Error("--trace-frames: the path is a symbolic link or not a regular file; tracing is off", "path", flags.ExpandHome(tf))
		case err != nil:
			return fmt.Errorf("--trace-frames: %w", err)
		default:
			defer f.Close()
			s.trace = f
		}
	}
	wd, _ := os.Getwd()
	overrides, err := rootOverrides(flags.Slice(c, "root"), wd)
	if err != nil {
		return err
	}
	key := s.indexKey()
	s.remembered = remember.Open(flags.StateDir(c), s.log)
	defer s.remembered.Close(5 * time.Second)
	opts := bridge.Options{
		Version:          versionOrDev(),
		Executable:       executable(),
		ContextPrefix:    flags.String(c, "context-prefix"),
		SteerGrace:       grace,
		NoPreamble:       flags.Bool(c, "no-preamble"),
		ContextWindow:    flags.Int64(c, "context-window"),
		Models:           modelList(flags.String(c, "models")),
		BusyTimeout:      busy,
		ThreadsOnly:      flags.Bool(c, "threads-only"),
		ServerKey:        key,
		CurrentKey:       s.indexKey,
		Index:            threads.Open(flags.StateDir(c), s.log),
		Log:              s.log,
		Connect:          func() (*a2aclient.Client, error) { return s.reload(c) },
		Logout:           s.forget,
		SignIn:           signIn{s: s}.editorSignIn(c),
		RefusedAdvice:    s.inUse.refusedNow,
		CredentialSource: func() string { return s.inUse.credentialNow(s.store.Path()) },
		// Read ahead once initialize is answered (no request goes out):
		// what earlier launches remembered, and what a first card costs
		// the first time, so that session/new waits only for the agent
		// (SPEC §19).
		Answered: func() {
			s.remembered.Load()
			a2aclient.Warm()
		},
	}
	opts.RootOverrides, opts.Home = overrides, flags.Home()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s.log.Debug("serving ACP on stdio", "url", key)
	if term.IsTerminal(int(os.Stdin.Fd())) {
		fmt.Fprint(c.App.ErrWriter, terminalNotice)
	}
	// ACP messages quote server errors and answers: a server that echoes
	// the token must not get it onto stdout (editors log this stream).
	out := &afterFirstWrite{w: newJSONRedactor(os.Stdout), then: func() { go cancelOnSignal(ctx, stop) }}
	return bridge.Serve(ctx, os.Stdin, out, opts)
}

// cancelOnSignal calls cancel on SIGINT or SIGTERM, until ctx ends.
func cancelOnSignal(ctx context.Context, cancel func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(ch)
	select {
	case <-ch:
		cancel()
	case <-ctx.Done():
	}
}

// afterFirstWrite calls then once its first write is done. Serving
// watches SIGINT and SIGTERM from then on: the first signal.Notify of a
// process starts the runtime's signal thread (~0.2 ms here), which the
// editor's initialize answer need not wait for. Before that answer a
// signal ends the process as it ends any program that has nothing to
// clean up.
type afterFirstWrite struct {
	w    io.Writer
	once sync.Once
	then func()
}

func (a *afterFirstWrite) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.once.Do(a.then)
	return n, err
}

// modelList reads --models: comma-separated ids, trimmed, empty ones and
// repeats dropped, in the given order.
func modelList(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// rootOverrides parses the --root flags. A relative PATH is taken in dir,
// the working directory shim was started in: editors start it in the
// project, so `--root app=.` names the project itself.
func rootOverrides(specs []string, dir string) ([]roots.Root, error) {
	var out []roots.Root
	for _, spec := range specs {
		given := spec
		if name, path, ok := strings.Cut(spec, "="); ok && dir != "" {
			path = strings.TrimSpace(path)
			if path != "" && path != "~" && !strings.HasPrefix(path, "~/") && !strings.HasPrefix(path, `~\`) && !filepath.IsAbs(path) {
				spec = name + "=" + filepath.Join(dir, path)
			}
		}
		r, err := roots.ParseOverride(spec)
		if err != nil {
			return nil, fmt.Errorf("--root %q: %w", given, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// terminalNotice is said on stderr when stdin is a terminal: someone typed
// `shim` by hand.
const terminalNotice = `shim: this is an ACP agent: it speaks JSON-RPC on stdin/stdout and is started by an editor
(Zed, JetBrains, Neovim, Emacs), which sends it the messages. Put "shim --url https://your-agent"
in the editor's agent settings (shim --help, and the README's "Use it from Zed" and
examples/editors/ for each editor); "shim doctor" checks a setup from here.
Serving ACP on this terminal now; Ctrl-D ends.
`
