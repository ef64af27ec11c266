package a2aclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/cardsig"
	"github.com/shimdev/shim/a2a/remember"
	"github.com/shimdev/shim/internal/randid"
)

// Config configures a Client.
type Config struct {
	// URL is the remote agent's base URL (--url).
	URL string
	// Slug reaches a fleet member through a hub: paths get /agents/<slug>.
	Slug string
	// Endpoint is the JSON-RPC endpoint; it skips card discovery.
	Endpoint string
	// CardURL is the agent card's full URL (SPEC §12.8: --card-url, or a
	// --url that is a card URL), read instead of
	// <URL>/.well-known/agent-card.json. Without URL, the card URL's
	// origin is the base: the token's origin and where an endpoint on
	// another origin is rebased.
	CardURL string
	// Token is the bearer token, sent only to the origin of URL (else of
	// CardURL, else of Endpoint).
	Token string
	// Version is "auto", "1.0" or "0.3".
	Version string
	// Binding is "auto", "jsonrpc" or "http+json" (SPEC §12.3).
	Binding string
	// Codec, when set, fixes the binding, the dialect and how the bodies
	// are spelled, whatever the card says, and sends every call to the
	// base URL (URL, plus the slug's path; Endpoint when it is given): a
	// managed platform whose documentation fixes them sets it (SPEC
	// §12.7). It wins over Version and Binding. The card is still read
	// (CardURL) for the agent's name, skills, capabilities and security.
	Codec Codec
	// AllowInsecureHTTP allows the token over plain http to a non-loopback host.
	AllowInsecureHTTP bool
	// Stall is how long a silent stream is waited for (0: forever).
	Stall time.Duration
	// Timeout is one unary attempt's limit (default 20 s).
	Timeout time.Duration
	// UserAgent is sent with every request.
	UserAgent string
	// Transport carries the requests (default: a pooled transport).
	Transport http.RoundTripper
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// Trace, when set, receives every raw frame as a JSON line.
	Trace io.Writer
	// Profile is "auto" (or empty: recognise known servers by their card),
	// "generic" or "gemini-cli" (package gemini).
	Profile string
	// OAuth, when set, is the stored OAuth sign-in, renewed on expiry or
	// 401 (package auth).
	OAuth *auth.OAuth

	// What a managed platform (package platform) sets: nothing above this
	// client knows which platform it is.

	// Cards, when set, are where the agent card is read instead of
	// CardURL, tried in order: a card the first refuses (not a 401 or 403)
	// is read from the next.
	Cards []CardPlace
	// EndpointOverride, when set, is where every call goes whatever the
	// card's interface says (a platform that passes requests through to a
	// container whose card names the container's own address). Unlike
	// Endpoint, the card is still read.
	EndpointOverride string
	// Scheme, when set, is how the stored secret is put on whatever the
	// card says (auth.Options.Scheme).
	Scheme *a2a.Scheme
	// Credential, when set, is the credential of every request made from
	// the stored one (Token and OAuth, as Stored holds them): a platform's
	// own credential when none is stored, and its extra headers.
	Credential func(stored *auth.Stored) auth.Credential
	// NoOperator says the agent has no operator API (SPEC §3.4): it is
	// not asked.
	NoOperator bool
	// CardCheck checks the signatures of the agent card and of the
	// extended card (SPEC §17); nil checks none. Once it refuses a card,
	// the client sends nothing more: every call fails with the refusal,
	// an *a2a.CardError.
	CardCheck *cardsig.Verifier
	// NoStreaming says the agent never streams, whatever its card says
	// (a card that leaves streaming out is taken to stream): each task
	// is polled (SPEC §12.6).
	NoStreaming bool
	// Remember, when set, is what earlier launches kept of agents (SPEC
	// §19): the client reads and keeps only its origin's entry (the card
	// as served with its validators, the operator API routes not served).
	Remember *remember.File

	// Set by the tests (export_test.go): pollInterval is the longest wait
	// between the GetTask polls of a non-streaming agent's task (default
	// and at most 1 s), retryWait the first backoff between unary
	// attempts (default 250 ms).
	pollInterval, retryWait time.Duration
}

// Stream is the event stream of one call (Client.Stream, Resubscribe):
// Next gives its events, Close ends it.
type Stream = binding.Stream

// CardPlace is one place an agent card may be read.
type CardPlace struct {
	URL string
	// Dialect is the version whose headers the card's request carries
	// (0: 1.0's, as every card request).
	Dialect a2a.Dialect
}

// Client talks to one remote agent. It is safe for concurrent use.
type Client struct {
	cfg    Config
	log    *slog.Logger
	conn   *binding.Conn
	stored *auth.Stored
	// at is where the agent and its card are.
	at places
	// departures are the server's departures from the spec read anyway.
	departures *a2a.Departures
	// noStreaming: the agent's streaming call is not there, whatever its
	// card says (streamingNotServed); every message is polled.
	noStreaming atomic.Bool

	mu       sync.Mutex
	card     *a2a.Card
	cardURL  string // where the card was read
	bound    binding.Binding
	op       *Operator
	onChange []func(*a2a.Card)
	extTried bool
	// verdict is what CardCheck found of the card in use (nil: none
	// checked).
	verdict *cardsig.Verdict
	// mem is what is remembered of the agent's origin (nil: nothing),
	// shared with cards.
	mem *remember.Origin
	// cards reads the card, checks it (holding the one refused, SPEC §17)
	// and keeps it in mem.
	cards *cardReader
}

// New returns a client; it makes no network call.
func New(cfg Config) (*Client, error) { return newBounded(cfg, 0) }

// newBounded is New with SSE events and bodies bounded at maxEvent (0: the
// bound of SPEC §13).
func newBounded(cfg Config, maxEvent int) (*Client, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if _, ok := codecs[cfg.Codec]; cfg.Codec != "" && !ok {
		return nil, fmt.Errorf("codec %q: shim knows %s", cfg.Codec, CodecProtoJSON03)
	}
	raw := cmp.Or(cfg.URL, cfg.CardURL, cfg.Endpoint)
	if raw == "" {
		return nil, errors.New("no agent URL: pass --url or run `shim login`")
	}
	u, err := parseHTTP(raw)
	if err != nil {
		return nil, err
	}
	for _, extra := range append([]string{cfg.CardURL, cfg.EndpointOverride}, cardURLs(cfg.Cards)...) {
		if extra != "" && extra != raw {
			if _, err := parseHTTP(extra); err != nil {
				return nil, err
			}
		}
	}
	var dialer *binding.Dialer
	if cfg.Transport == nil {
		cfg.Transport, dialer = binding.NewTransport()
	}
	c := &Client{cfg: cfg, log: cfg.Log, departures: a2a.NewDepartures(cfg.Log),
		at: places{origin: auth.Origin(u), cardURL: cfg.CardURL, cards: cfg.Cards, log: cfg.Log}}
	if cfg.URL == "" && cfg.CardURL != "" {
		// The card names the agent: its origin is the base (a card
		// under the agent's own path says nothing of a common prefix).
		u.Path, u.RawPath = "", ""
	}
	if cfg.URL != "" || cfg.CardURL != "" {
		u.Path = strings.TrimSuffix(u.Path, "/")
		if cfg.Slug != "" {
			u.Path += "/agents/" + url.PathEscape(cfg.Slug)
		}
		u.RawQuery, u.Fragment = "", ""
		c.at.base = u
	}
	c.stored = auth.New(auth.Options{Token: cfg.Token, OAuth: cfg.OAuth, Scheme: cfg.Scheme, Origin: c.at.origin, Transport: cfg.Transport, Log: cfg.Log})
	var cred auth.Credential = c.stored
	if cfg.Credential != nil {
		cred = cfg.Credential(c.stored)
	}
	check := &cardCheck{verifier: cfg.CardCheck, log: cfg.Log}
	c.mem = cfg.Remember.For(c.at.origin)
	cred = gate{cred, check}
	c.conn = binding.New(binding.Options{Credential: cred, Origin: c.at.origin, AllowInsecureHTTP: cfg.AllowInsecureHTTP,
		UserAgent: cfg.UserAgent, Timeout: cfg.Timeout, RetryWait: cfg.retryWait, Stall: cfg.Stall,
		Base: cfg.Transport, Dialer: dialer, Wrap: c.stored.Wrap, Log: cfg.Log, Trace: cfg.Trace, MaxEvent: maxEvent, Departures: c.departures})
	c.cards = &cardReader{at: &c.at, conn: c.conn, check: check, mem: c.mem, departures: c.departures, log: cfg.Log,
		endpointOverride: cfg.EndpointOverride, codec: cfg.Codec, noStreaming: cfg.NoStreaming,
		setSecurity: c.stored.SetSecurity, changed: c.useChanged}
	return c, nil
}

func cardURLs(cards []CardPlace) []string {
	out := make([]string, len(cards))
	for i, cs := range cards {
		out[i] = cs.URL
	}
	return out
}

// parseHTTP parses an http(s) URL with a host.
func parseHTTP(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent URL %q is not an http(s) URL", raw)
	}
	return u, nil
}

// Base returns the base URL every path is under (URL plus the slug prefix).
func (c *Client) Base() string {
	if c.at.base == nil {
		return ""
	}
	return c.at.base.String()
}

// Security returns what the card says about signing in, once discovery
// ran (nil: bearer, or not discovered yet).
func (c *Client) Security() *a2a.Security { return c.stored.Security() }

// TokenExpiry returns the expiry of the OAuth access token in use, zero
// when unknown.
func (c *Client) TokenExpiry() time.Time { return c.stored.Expiry() }

// dialect is the dialect of the card in use (1.0 before discovery).
// binding returns the binding the card chose, discovering the card first.
func (c *Client) binding(ctx context.Context) (binding.Binding, *a2a.Card, error) {
	if _, err := c.Discover(ctx); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// The card in use now: the extended card may have replaced the one
	// Discover returned.
	card := c.card
	if err := card.Unsupported(); err != nil {
		return nil, nil, err
	}
	if c.bound == nil {
		b, err := bind(c.conn, card, c.cfg.Profile, c.log)
		if err != nil {
			return nil, nil, err
		}
		c.bound = b
	}
	return c.bound, card, nil
}

// GetTask reads a task back with at most historyLength messages of its
// history; a2a.HistoryAll asks for all of it (in 0.3, 1,000 messages).
func (c *Client) GetTask(ctx context.Context, id string, historyLength int) (*a2a.Task, error) {
	b, _, err := c.binding(ctx)
	if err != nil {
		return nil, err
	}
	return b.GetTask(ctx, id, historyLength)
}

// CancelTask asks the server to cancel a task.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	b, _, err := c.binding(ctx)
	if err != nil {
		return err
	}
	return b.CancelTask(ctx, id)
}

// listPagesMax bounds the pages ListTasks reads when its context carries
// no ReadBudget of its own.
const listPagesMax = 100

// ListTasks lists the tasks of a context (1.0 servers only), following
// nextPageToken. It draws on the context's ReadBudget, or on one of 64 MiB
// and 100 pages when there is none: a server whose pages never run dry
// cannot hold it. When the budget or the size limit cuts the listing, it
// returns the tasks read so far with an error that is ErrBudget or
// ErrTooLarge.
func (c *Client) ListTasks(ctx context.Context, contextID string, historyLength int) ([]a2a.Task, error) {
	b, _, err := c.binding(ctx)
	if err != nil {
		return nil, err
	}
	if a2a.BudgetOf(ctx) == nil {
		ctx = a2a.WithReadBudget(ctx, a2a.NewReadBudget(int64(c.conn.MaxEvent()), listPagesMax))
	}
	var all []a2a.Task
	token := ""
	seen := map[string]bool{}
	for {
		page, err := b.ListTasks(ctx, binding.TaskQuery{ContextID: contextID, HistoryLength: historyLength, PageToken: token})
		if err != nil {
			if len(all) > 0 && (errors.Is(err, a2a.ErrBudget) || errors.Is(err, a2a.ErrTooLarge)) {
				return all, err
			}
			return nil, err
		}
		all = append(all, page.Tasks...)
		if token = page.Next; token == "" || len(page.Tasks) == 0 || seen[token] {
			break
		}
		seen[token] = true
	}
	return all, nil
}

// Stream sends a message and returns the stream of its events. A server
// whose card says it cannot stream is asked to answer at once and its
// task is polled (SPEC §12.6); one that blocks anyway has its result
// returned as the events a stream would have carried.
func (c *Client) Stream(ctx context.Context, m a2a.OutMessage) (*Stream, error) {
	b, card, err := c.binding(ctx)
	if err != nil {
		return nil, err
	}
	if !card.Streaming || c.noStreaming.Load() {
		return c.polled(ctx, b, m)
	}
	s, err := b.SendStreaming(ctx, m)
	if err != nil && streamingNotServed(c.departures, &c.noStreaming, err) {
		return c.polled(ctx, b, m)
	}
	if err != nil {
		return nil, err
	}
	s.Watch(failureUnderUnknownTask(c.departures, m.ContextID))
	return s, nil
}

// polled sends m asking for an answer at once and polls its task (SPEC
// §12.6).
func (c *Client) polled(ctx context.Context, b binding.Binding, m a2a.OutMessage) (*Stream, error) {
	s, err := b.Send(ctx, m, true)
	if err != nil {
		return nil, err
	}
	return binding.Poll(ctx, b, s, c.cfg.pollInterval), nil
}

// Resubscribe reattaches to a live task's stream.
func (c *Client) Resubscribe(ctx context.Context, taskID string) (*Stream, error) {
	b, _, err := c.binding(ctx)
	if err != nil {
		return nil, err
	}
	return b.Subscribe(ctx, taskID)
}

// Probe checks the credentials with a GetTask on an id that cannot exist:
// any JSON-RPC answer is success, 401/403 is a refused token. With a
// remembered card, it then waits for the card asked again in parallel: its
// refusal is the probe's (SPEC §17), and a probe that failed under the
// remembered card is made again under a changed one. After a success it
// reads the extended card when the card offers one (SPEC §12.2).
func (c *Client) Probe(ctx context.Context) error {
	probe := func() error {
		_, err := c.GetTask(ctx, "shim-probe-"+randid.Hex(8), 0)
		var rpc *a2a.RPCError
		if err != nil && !errors.As(err, &rpc) {
			return err
		}
		return nil
	}
	err := probe()
	changed, cerr := c.cards.awaitCard(ctx)
	if cerr != nil {
		return cerr
	}
	if err != nil && changed {
		err = probe()
	}
	if err != nil {
		return err
	}
	return c.extend(ctx)
}

// Preconnect opens n connections to the agent's origin ahead of n
// requests about to be sent at once, over plain HTTP/1.1 (one request a
// connection): opened while the card is read, they cost the requests no
// handshake (SPEC §19). Once per process; nothing over TLS (HTTP/2), with
// a transport of the caller's, or through a proxy; nothing when the card
// is known or remembered (no card read to open them beside: the requests
// open what they need, and what a relaunch remembers absent is not sent).
func (c *Client) Preconnect(n int) {
	if c.cardToRead() {
		c.conn.Preconnect(n)
	}
}

// cardToRead tells whether discovery will read the card from the agent:
// none known yet, none remembered.
func (c *Client) cardToRead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.card == nil && !c.cards.cardRemembered()
}

// Warm readies, off the editor's requests, what a launch's first card
// and first ids cost the first time (SPEC §19): the card decoder's types
// (~0.8 ms) and the system random source's first read (~0.2 ms). A
// process calls it once, after its first answer to the editor.
func Warm() {
	agentcard.Warm()
	_ = randid.Hex(1)
}

// Departed records a departure from the spec that the caller read of
// this client's agent (a turn's, SPEC §16): said once in the log, and
// among Departures. A nil client records nothing.
func (c *Client) Departed(d a2a.Departure, attrs ...any) {
	if c != nil {
		c.departures.Saw(d, attrs...)
	}
}

// Departures returns the departures from the spec this client has seen
// the agent make and read anyway, in the order first seen.
func (c *Client) Departures() []a2a.Departure { return c.departures.Seen() }
