package a2a

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
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/redact"
)

// Dialect is the A2A protocol version spoken with the server.
type Dialect uint8

// The dialects.
const (
	V10 Dialect = iota + 1
	V03
)

func (d Dialect) String() string {
	switch d {
	case V10:
		return "1.0"
	case V03:
		return "0.3"
	}
	return "unknown"
}

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
	// PollInterval is the longest wait between the GetTask polls of a
	// non-streaming agent's task (default and at most 1 s).
	PollInterval time.Duration
	// AllowInsecureHTTP allows the token over plain http to a non-loopback host.
	AllowInsecureHTTP bool
	// Stall is how long a silent stream is waited for (0: forever).
	Stall time.Duration
	// Timeout is one unary attempt's limit (default 20 s).
	Timeout time.Duration
	// RetryWait is the first backoff between unary attempts (default 250 ms).
	RetryWait time.Duration
	// UserAgent is sent with every request.
	UserAgent string
	// Transport carries the requests (default: a pooled transport).
	Transport http.RoundTripper
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// Trace, when set, receives every raw frame as a JSON line.
	Trace io.Writer
	// Profile is "auto" (or empty: recognise known servers by their card),
	// "generic" or "gemini-cli" (gemini.go).
	Profile string
	// OAuth, when set, is the stored OAuth sign-in, renewed on expiry or
	// 401 (auth.go).
	OAuth *OAuth
}

// Card is what shim uses of an agent card.
type Card struct {
	Name        string
	Description string
	Version     string
	// Streaming is false only when the card says capabilities.streaming: false.
	Streaming bool
	Endpoint  string
	Dialect   Dialect
	Tenant    string
	// NoReplay is set when the agent's task history cannot be trusted to
	// replay a thread (its GetTask history is empty or partial).
	NoReplay bool
	// Security is what the card says about signing in (security.go).
	Security *Security
	// Binding is the transport the calls go over.
	Binding Binding
	// Skills are the card's skills in its order.
	Skills []Skill
	// Extensions are the extensions the card declares.
	Extensions []Extension
	// ExtendedCard is set when the card offers an extended card to
	// authenticated clients; Extended is set once it replaced this one.
	ExtendedCard bool
	Extended     bool
}

// Client talks to one remote agent. It is safe for concurrent use.
type Client struct {
	*conn
	base *url.URL

	mu       sync.Mutex
	card     *Card
	tr       transport
	op       *Operator
	onChange []func(*Card)
	extTried bool
}

// New returns a client; it makes no network call.
func New(cfg Config) (*Client, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.RetryWait == 0 {
		cfg.RetryWait = 250 * time.Millisecond
	}
	if cfg.Transport == nil {
		cfg.Transport = cleanhttp.DefaultPooledTransport()
	}
	// Whatever a server echoes of the token is redacted wherever the
	// process writes it.
	redact.Add(cfg.Token)
	auth := newAuthState(&cfg) // hook: sign-in (auth.go)
	cfg.Transport = &authTransport{base: cfg.Transport, auth: auth}
	c := &Client{conn: &conn{cfg: cfg, log: cfg.Log, auth: auth, eventMax: maxEventSize}}
	raw := cmp.Or(cfg.URL, cfg.CardURL, cfg.Endpoint)
	if raw == "" {
		return nil, errors.New("no agent URL: pass --url or run `shim login`")
	}
	u, err := parseHTTP(raw)
	if err != nil {
		return nil, err
	}
	if cfg.CardURL != "" && raw != cfg.CardURL {
		if _, err := parseHTTP(cfg.CardURL); err != nil {
			return nil, err
		}
	}
	c.origin = origin(u)
	auth.origin = c.origin
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
		c.base = u
	}
	if cfg.Trace != nil {
		c.trace = &tracer{w: cfg.Trace}
	}
	noRedirect := func(req *http.Request, via []*http.Request) error {
		if cfg.Token != "" {
			return http.ErrUseLastResponse
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return nil
	}
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: cfg.Transport, Timeout: cfg.Timeout, CheckRedirect: noRedirect}
	rc.RetryMax = 2
	rc.RetryWaitMin = cfg.RetryWait
	rc.RetryWaitMax = 8 * cfg.RetryWait
	// DefaultBackoff obeys a 503's Retry-After without bound (a proxy's
	// "Retry-After: 3600" would block a GetTask for an hour); cap it.
	rc.Backoff = func(lo, hi time.Duration, n int, resp *http.Response) time.Duration {
		return min(retryablehttp.DefaultBackoff(lo, hi, n, resp), hi)
	}
	rc.Logger = leveled{cfg.Log}
	rc.CheckRetry = retryPolicy
	rc.ErrorHandler = func(resp *http.Response, err error, tries int) (*http.Response, error) {
		if resp != nil && err == nil {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	c.unary = rc
	c.streaming = &http.Client{Transport: cfg.Transport, CheckRedirect: noRedirect}
	return c, nil
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
	if c.base == nil {
		return ""
	}
	return c.base.String()
}

// transport returns the binding the card chose, discovering the card first.
func (c *Client) transport(ctx context.Context) (transport, *Card, error) {
	if _, err := c.Discover(ctx); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// The card in use now: the extended card may have replaced the one
	// Discover returned.
	card := c.card
	if err := card.unsupported(); err != nil {
		return nil, nil, err
	}
	if c.tr == nil {
		if card.Binding == BindingHTTPJSON {
			c.tr = newREST(c.conn, card)
		} else {
			c.tr = newJSONRPC(c.conn, card)
			if c.isGemini(card) {
				card.NoReplay = true
				c.tr = newGemini(c.conn, card)
				c.log.Info("the agent is Gemini CLI's A2A server: speaking its coderAgent protocol", "profile", c.cfg.Profile)
			}
		}
	}
	return c.tr, card, nil
}

// GetTask reads a task back with at most historyLength messages of its
// history; HistoryAll asks for all of it (in 0.3, history03Max messages).
func (c *Client) GetTask(ctx context.Context, id string, historyLength int) (*Task, error) {
	tr, _, err := c.transport(ctx)
	if err != nil {
		return nil, err
	}
	return tr.GetTask(ctx, id, historyLength)
}

// CancelTask asks the server to cancel a task.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	tr, _, err := c.transport(ctx)
	if err != nil {
		return err
	}
	return tr.CancelTask(ctx, id)
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
func (c *Client) ListTasks(ctx context.Context, contextID string, historyLength int) ([]Task, error) {
	tr, _, err := c.transport(ctx)
	if err != nil {
		return nil, err
	}
	if budgetOf(ctx) == nil {
		ctx = WithReadBudget(ctx, NewReadBudget(int64(c.eventMax), listPagesMax))
	}
	var all []Task
	token := ""
	seen := map[string]bool{}
	for {
		page, err := tr.ListTasks(ctx, taskQuery{ContextID: contextID, HistoryLength: historyLength, PageToken: token})
		if err != nil {
			if len(all) > 0 && (errors.Is(err, ErrBudget) || errors.Is(err, ErrTooLarge)) {
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
func (c *Client) Stream(ctx context.Context, m OutMessage) (*Stream, error) {
	tr, card, err := c.transport(ctx)
	if err != nil {
		return nil, err
	}
	if !card.Streaming {
		s, err := tr.Send(ctx, m, true)
		if err != nil {
			return nil, err
		}
		return c.poll(ctx, tr, s), nil
	}
	return tr.SendStreaming(ctx, m)
}

// Resubscribe reattaches to a live task's stream.
func (c *Client) Resubscribe(ctx context.Context, taskID string) (*Stream, error) {
	tr, _, err := c.transport(ctx)
	if err != nil {
		return nil, err
	}
	return tr.Subscribe(ctx, taskID)
}

// Probe checks the credentials with a GetTask on an id that cannot exist:
// any JSON-RPC answer is success, 401/403 is a refused token. After a
// success it reads the extended card when the card offers one (SPEC
// §12.2).
func (c *Client) Probe(ctx context.Context) error {
	_, err := c.GetTask(ctx, "shim-probe-"+randid.Hex(8), 0)
	var rpc *RPCError
	if err != nil && !errors.As(err, &rpc) {
		return err
	}
	return c.extend(ctx)
}
