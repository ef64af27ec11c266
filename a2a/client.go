package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
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
	// Token is the bearer token, sent only to URL's origin.
	Token string
	// Version is "auto", "1.0" or "0.3".
	Version string
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
}

// Client talks to one remote agent. It is safe for concurrent use.
type Client struct {
	cfg       Config
	base      *url.URL
	origin    string
	log       *slog.Logger
	trace     *tracer
	unary     *retryablehttp.Client
	streaming *http.Client
	seq       atomic.Int64

	mu   sync.Mutex
	card *Card
	op   *Operator
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
	c := &Client{cfg: cfg, log: cfg.Log}
	raw := cfg.URL
	if raw == "" {
		raw = cfg.Endpoint
	}
	if raw == "" {
		return nil, errors.New("no agent URL: pass --url or run `shim login`")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent URL %q is not an http(s) URL", raw)
	}
	c.origin = origin(u)
	if cfg.URL != "" {
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

// retryPolicy retries connection errors and 502, 503 and 504.
func retryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true, nil
	}
	return false, nil
}

// leveled routes retryablehttp's logs to slog at debug level.
type leveled struct{ l *slog.Logger }

func (l leveled) Error(msg string, kv ...any) { l.l.Debug("http: "+msg, kv...) }
func (l leveled) Info(msg string, kv ...any)  { l.l.Debug("http: "+msg, kv...) }
func (l leveled) Debug(msg string, kv ...any) { l.l.Debug("http: "+msg, kv...) }
func (l leveled) Warn(msg string, kv ...any)  { l.l.Debug("http: "+msg, kv...) }

func origin(u *url.URL) string {
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

// Base returns the base URL every path is under (URL plus the slug prefix).
func (c *Client) Base() string {
	if c.base == nil {
		return ""
	}
	return c.base.String()
}

// Discover fetches the agent card once and chooses the endpoint and the
// dialect; with an explicit endpoint it fetches nothing.
func (c *Client) Discover(ctx context.Context) (*Card, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.card != nil {
		return c.card, nil
	}
	forced := dialectFor(c.cfg.Version)
	if c.cfg.Endpoint != "" {
		d := forced
		if d == 0 {
			d = V10
		}
		c.card = &Card{Endpoint: c.cfg.Endpoint, Dialect: d, Streaming: true}
		return c.card, nil
	}
	cardURL := c.base.String() + "/.well-known/agent-card.json"
	req, err := c.newRequest(ctx, http.MethodGet, cardURL, nil, V10)
	if err != nil {
		return nil, err
	}
	resp, err := c.unary.Do(req)
	if err != nil {
		return nil, c.transportError(cardURL, err)
	}
	body, err := readBody(resp)
	if err != nil {
		return nil, c.transportError(cardURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		herr := httpError(resp.StatusCode, cardURL, resp.Header.Get("Content-Type"), body)
		herr.Want = "an agent card"
		if herr.Unauthorized() {
			return nil, herr
		}
		return nil, fmt.Errorf("%w: %w", ErrNoCard, herr)
	}
	card, err := parseCard(body, forced)
	if err != nil {
		if !json.Valid(body) {
			herr := httpError(resp.StatusCode, cardURL, resp.Header.Get("Content-Type"), body)
			herr.Want = "an agent card"
			return nil, fmt.Errorf("%w: %w", ErrNoCard, herr)
		}
		return nil, fmt.Errorf("agent card at %s: %w", cardURL, err)
	}
	card.Endpoint = c.rebase(card.Endpoint)
	c.log.Debug("agent card", "name", card.Name, "endpoint", card.Endpoint, "dialect", card.Dialect.String(), "streaming", card.Streaming)
	c.card = card
	return card, nil
}

// KnownCard returns the card if discovery already ran, else nil.
func (c *Client) KnownCard() *Card {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.card
}

func dialectFor(v string) Dialect {
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v") {
	case "1", "1.0":
		return V10
	case "0.3", "0.3.0":
		return V03
	}
	return 0
}

type wireCard struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Version      string `json:"version"`
	URL          string `json:"url"`
	Preferred    string `json:"preferredTransport"`
	Preferred2   string `json:"preferred_transport"`
	Protocol     string `json:"protocolVersion"`
	Protocol2    string `json:"protocol_version"`
	Capabilities struct {
		Streaming *bool `json:"streaming"`
	} `json:"capabilities"`
	Interfaces  []wireInterface `json:"supportedInterfaces"`
	Interfaces2 []wireInterface `json:"supported_interfaces"`
	Additional  []wireInterface `json:"additionalInterfaces"`
}

type wireInterface struct {
	URL       string `json:"url"`
	Binding   string `json:"protocolBinding"`
	Binding2  string `json:"protocol_binding"`
	Transport string `json:"transport"`
	Version   string `json:"protocolVersion"`
	Version2  string `json:"protocol_version"`
	Tenant    string `json:"tenant"`
}

func (i wireInterface) jsonrpc() bool {
	return strings.EqualFold(first(first(i.Binding, i.Binding2), i.Transport), "JSONRPC")
}

func (i wireInterface) dialect() Dialect {
	if strings.HasPrefix(strings.TrimPrefix(first(i.Version, i.Version2), "v"), "0.") {
		return V03
	}
	return V10
}

// parseCard reads a card of either dialect. forced, when not zero, is the
// dialect --a2a-version asks for.
func parseCard(body []byte, forced Dialect) (*Card, error) {
	var w wireCard
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	card := &Card{Name: w.Name, Description: w.Description, Version: w.Version,
		Streaming: w.Capabilities.Streaming == nil || *w.Capabilities.Streaming}
	ifaces := w.Interfaces
	if len(ifaces) == 0 {
		ifaces = w.Interfaces2
	}
	if len(ifaces) > 0 {
		var pick *wireInterface
		for i := range ifaces {
			in := &ifaces[i]
			if !in.jsonrpc() {
				continue
			}
			want := forced
			if want == 0 {
				want = V10
			}
			if in.dialect() == want {
				pick = in
				break
			}
			if pick == nil {
				pick = in
			}
		}
		if pick == nil {
			return nil, errors.New("the card offers no JSONRPC interface (shim speaks JSON-RPC only)")
		}
		card.Endpoint, card.Dialect, card.Tenant = pick.URL, pick.dialect(), pick.Tenant
		if forced != 0 {
			card.Dialect = forced
		}
		return card, nil
	}
	// A 0.3 card: url + preferredTransport (+ additionalInterfaces).
	card.Dialect = V03
	if forced != 0 {
		card.Dialect = forced
	}
	pref := first(w.Preferred, w.Preferred2)
	if w.URL != "" && (pref == "" || strings.EqualFold(pref, "JSONRPC")) {
		card.Endpoint = w.URL
		return card, nil
	}
	for _, in := range w.Additional {
		if in.jsonrpc() {
			card.Endpoint = in.URL
			return card, nil
		}
	}
	return nil, errors.New("the card names no JSON-RPC endpoint")
}

// rebase keeps the token on --url's origin: an endpoint on another origin,
// or on an unroutable host, gets its path put under --url's origin.
func (c *Client) rebase(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return c.base.String()
	}
	if u.Host == "" {
		// A relative endpoint: resolve it under the base (its path and
		// the /agents/<slug> prefix included).
		dir := *c.base
		dir.Path = strings.TrimSuffix(dir.Path, "/") + "/"
		if strings.HasPrefix(u.Path, "/") {
			u.Path = c.underBase(u.Path)
		}
		return dir.ResolveReference(u).String()
	}
	host := u.Hostname()
	unroutable := host == "0.0.0.0" || host == "::" || (IsLoopback(host) && !IsLoopback(c.base.Hostname()))
	if origin(u) == c.origin && !unroutable {
		return endpoint
	}
	nu := *c.base
	nu.Path, nu.RawPath = c.underBase(u.Path), ""
	nu.RawQuery = u.RawQuery
	c.log.Info("the agent card names another origin for its endpoint; using the --url origin instead",
		"card", origin(u), "using", nu.String())
	return nu.String()
}

// underBase puts an endpoint path under the base's path (a hub's
// /agents/<slug> prefix, a proxy's path), unless it is already there: a
// fleet member behind a hub names its own address, not the hub's path.
func (c *Client) underBase(p string) string {
	prefix := strings.TrimSuffix(c.base.Path, "/")
	if prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/") {
		return p
	}
	return prefix + "/" + strings.TrimPrefix(p, "/")
}

// newRequest builds a request with shim's headers; the token goes only to
// the --url origin, and never over plain http to a non-loopback host.
func (c *Client) newRequest(ctx context.Context, method, target string, body []byte, d Dialect) (*retryablehttp.Request, error) {
	var rb any
	if body != nil {
		rb = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, target, rb)
	if err != nil {
		return nil, err
	}
	if err := c.setHeaders(req.Request, d); err != nil {
		return nil, err
	}
	return req, nil
}

func (c *Client) setHeaders(req *http.Request, d Dialect) error {
	if req.Method != http.MethodGet || req.ContentLength > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.cfg.UserAgent != "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	ext := strings.Join(Extensions, ", ")
	if d == V03 {
		req.Header.Set("X-A2A-Extensions", ext)
	} else {
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("A2A-Extensions", ext)
	}
	if c.cfg.Token == "" {
		return nil
	}
	if origin(req.URL) != c.origin {
		c.log.Warn("not sending the token to another origin", "origin", origin(req.URL))
		return nil
	}
	if req.URL.Scheme == "http" && !IsLoopback(req.URL.Hostname()) && !c.cfg.AllowInsecureHTTP {
		return ErrInsecure
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	return nil
}

func (c *Client) transportError(target string, err error) error {
	if errors.Is(err, ErrInsecure) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrTooLarge) || errors.Is(err, ErrBudget) {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &UnreachableError{URL: target, Attempts: 3, Err: err}
}

// rpcRequest is a JSON-RPC request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func (c *Client) encode(method string, params any) []byte {
	var longs []*longText
	collectLong(params, &longs)
	b, _ := marshalSpliced(rpcRequest{JSONRPC: "2.0", ID: c.seq.Add(1), Method: method, Params: params}, longs)
	return b
}

// call makes a unary JSON-RPC call with retries.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	card, err := c.Discover(ctx)
	if err != nil {
		return nil, err
	}
	if err := takeRequest(ctx); err != nil {
		return nil, err
	}
	body := c.encode(method, params)
	c.trace.frame("send", method, body)
	req, err := c.newRequest(ctx, http.MethodPost, card.Endpoint, body, card.Dialect)
	if err != nil {
		return nil, err
	}
	resp, err := c.unary.Do(req)
	if err != nil {
		return nil, c.transportError(card.Endpoint, err)
	}
	data, err := readBody(resp)
	if err != nil {
		return nil, c.transportError(card.Endpoint, err)
	}
	c.trace.frame("recv", method, data)
	return responseResult(resp, card.Endpoint, data)
}

// responseResult reads a JSON-RPC answer whatever its HTTP status (errors
// often come with 200 or 500), and anything else as an HTTP error.
func responseResult(resp *http.Response, target string, data []byte) (json.RawMessage, error) {
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, &HTTPError{StatusCode: resp.StatusCode, URL: target}
	}
	result, err := decodeResponse(data)
	var de *DecodeError
	if errors.As(err, &de) || (err == nil && resp.StatusCode/100 != 2) {
		return nil, httpError(resp.StatusCode, target, resp.Header.Get("Content-Type"), data)
	}
	return result, err
}

func (c *Client) method(d Dialect, v10, v03 string) string {
	if d == V03 {
		return v03
	}
	return v10
}

func (c *Client) params(card *Card, p map[string]any) map[string]any {
	if card.Dialect == V10 && card.Tenant != "" {
		p["tenant"] = card.Tenant
	}
	return p
}

// GetTask reads a task back; historyLength < 0 leaves it to the server.
func (c *Client) GetTask(ctx context.Context, id string, historyLength int) (*Task, error) {
	card, err := c.Discover(ctx)
	if err != nil {
		return nil, err
	}
	p := map[string]any{"id": id}
	if historyLength >= 0 {
		p["historyLength"] = historyLength
	}
	raw, err := c.call(ctx, c.method(card.Dialect, "GetTask", "tasks/get"), c.params(card, p))
	if err != nil {
		return nil, err
	}
	return decodeTask(raw)
}

// CancelTask asks the server to cancel a task.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	card, err := c.Discover(ctx)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, c.method(card.Dialect, "CancelTask", "tasks/cancel"), c.params(card, map[string]any{"id": id}))
	return err
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
	card, err := c.Discover(ctx)
	if err != nil {
		return nil, err
	}
	if card.Dialect != V10 {
		return nil, ErrUnsupported
	}
	if budgetOf(ctx) == nil {
		ctx = WithReadBudget(ctx, NewReadBudget(int64(maxEventSize), listPagesMax))
	}
	var all []Task
	token := ""
	seen := map[string]bool{}
	for {
		p := map[string]any{"contextId": contextID, "pageSize": 100, "includeArtifacts": true}
		if historyLength >= 0 {
			p["historyLength"] = historyLength
		}
		if token != "" {
			p["pageToken"] = token
		}
		raw, err := c.call(ctx, "ListTasks", c.params(card, p))
		if err != nil {
			if len(all) > 0 && (errors.Is(err, ErrBudget) || errors.Is(err, ErrTooLarge)) {
				return all, err
			}
			return nil, err
		}
		tasks, err := decodeTaskList(raw)
		if err != nil {
			return nil, err
		}
		all = append(all, tasks...)
		var next struct {
			Token  string `json:"nextPageToken"`
			Token2 string `json:"next_page_token"`
		}
		_ = json.Unmarshal(raw, &next)
		if token = first(next.Token, next.Token2); token == "" || len(tasks) == 0 || seen[token] {
			break
		}
		seen[token] = true
	}
	return all, nil
}

// Probe checks the credentials with a GetTask on an id that cannot exist:
// any JSON-RPC answer is success, 401/403 is a refused token.
func (c *Client) Probe(ctx context.Context) error {
	_, err := c.GetTask(ctx, "shim-probe-"+randid.Hex(8), 0)
	var rpc *RPCError
	if errors.As(err, &rpc) {
		return nil
	}
	return err
}

// Stream sends a message and returns the stream of its events. A server
// whose card says it cannot stream gets a blocking send whose result is
// returned as the events a stream would have carried.
func (c *Client) Stream(ctx context.Context, m OutMessage) (*Stream, error) {
	card, err := c.Discover(ctx)
	if err != nil {
		return nil, err
	}
	params := c.params(card, map[string]any{"message": encodeMessage(card.Dialect, m)})
	if !card.Streaming {
		return c.openStream(ctx, card, c.method(card.Dialect, "SendMessage", "message/send"), params)
	}
	return c.openStream(ctx, card, c.method(card.Dialect, "SendStreamingMessage", "message/stream"), params)
}

// Resubscribe reattaches to a live task's stream.
func (c *Client) Resubscribe(ctx context.Context, taskID string) (*Stream, error) {
	card, err := c.Discover(ctx)
	if err != nil {
		return nil, err
	}
	return c.openStream(ctx, card, c.method(card.Dialect, "SubscribeToTask", "tasks/resubscribe"),
		c.params(card, map[string]any{"id": taskID}))
}

// openStream posts a streaming request. It retries only when the
// connection failed before the request was written.
func (c *Client) openStream(ctx context.Context, card *Card, method string, params any) (*Stream, error) {
	body := c.encode(method, params)
	c.trace.frame("send", method, body)
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{c: c, method: method, cancel: cancel, ctx: ctx}
	s.stall = newStallReader(nil, c.cfg.Stall, cancel)
	var resp *http.Response
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		var written atomic.Bool
		tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { written.Store(true) },
		})
		req, err := http.NewRequestWithContext(tctx, http.MethodPost, card.Endpoint, bytes.NewReader(body))
		if err != nil {
			s.Close()
			return nil, err
		}
		if err := c.setHeaders(req, card.Dialect); err != nil {
			s.Close()
			return nil, err
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, lastErr = c.streaming.Do(req)
		if lastErr == nil {
			break
		}
		if written.Load() || ctx.Err() != nil {
			break
		}
		c.log.Debug("stream connection failed before the request was sent; retrying", "attempt", attempt, "err", lastErr)
		select {
		case <-time.After(time.Duration(attempt) * c.cfg.RetryWait):
		case <-ctx.Done():
		}
	}
	if lastErr != nil {
		stalled := s.stall.Stalled()
		s.Close()
		if stalled {
			return nil, ErrStalled
		}
		if ctx.Err() != nil && errors.Is(lastErr, context.Canceled) {
			return nil, context.Canceled
		}
		return nil, c.transportError(card.Endpoint, lastErr)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 == 2 && ct == "text/event-stream" {
		s.body = resp.Body
		s.stall.r = resp.Body
		s.stall.touch()
		s.sse = newSSEReader(s.stall)
		return s, nil
	}
	// One JSON-RPC response in a plain body (errors often come this way).
	data, err := readBody(resp)
	s.Close()
	if err != nil {
		return nil, c.transportError(card.Endpoint, err)
	}
	c.trace.frame("recv", method, data)
	result, err := responseResult(resp, card.Endpoint, data)
	if err != nil {
		return nil, err
	}
	events, err := decodeSendResult(result)
	if err != nil {
		return nil, err
	}
	s.queue = events
	s.sse = nil
	return s, nil
}

// Stream is the event stream of one streaming call.
type Stream struct {
	c      *Client
	ctx    context.Context
	method string
	cancel context.CancelFunc
	body   io.ReadCloser
	sse    *sseReader
	stall  *stallReader
	queue  []Event
	closed atomic.Bool
}

// Next returns the next event. It returns io.EOF at the end of the stream,
// ErrStalled after a silence of the stall timeout, *RPCError for an error
// frame, and another error when the connection broke. Frames that do not
// decode are logged and skipped.
func (s *Stream) Next() (Event, error) {
	if s.sse == nil {
		if len(s.queue) == 0 {
			return Event{}, io.EOF
		}
		ev := s.queue[0]
		s.queue = s.queue[1:]
		return ev, nil
	}
	for {
		raw, err := s.sse.Next()
		if err != nil {
			switch {
			case s.stall.Stalled():
				return Event{}, ErrStalled
			case s.closed.Load() || s.ctx.Err() != nil:
				return Event{}, context.Canceled
			case errors.Is(err, io.EOF):
				return Event{}, io.EOF
			case errors.Is(err, ErrTooLarge):
				return Event{}, err
			}
			return Event{}, fmt.Errorf("a2a: the stream broke: %w", err)
		}
		if len(raw.Data) == 0 && raw.Event != "error" {
			continue
		}
		s.c.trace.frame("recv", s.method, raw.Data)
		if raw.Event == "error" {
			return Event{}, errorFrame(raw.Data)
		}
		ev, err := DecodeFrame(raw.Data)
		var de *DecodeError
		if errors.As(err, &de) {
			s.c.log.Warn("skipping an undecodable stream frame", "method", s.method, "err", err)
			continue
		}
		return ev, err
	}
}

// errorFrame reads an `event: error` frame: a JSON-RPC response, a bare
// error object, or text.
func errorFrame(data []byte) error {
	if _, err := decodeResponse(data); err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			return rpc
		}
	}
	var we wireError
	if json.Unmarshal(data, &we) == nil && we.Message != "" {
		return we.rpcError()
	}
	return &RPCError{Code: -32603, Message: strings.TrimSpace(strings.ToValidUTF8(string(data), "?"))}
}

// Close ends the stream and releases its connection.
func (s *Stream) Close() error {
	s.closed.Store(true)
	s.stall.Stop()
	s.cancel()
	if s.body != nil {
		return s.body.Close()
	}
	return nil
}

// tracer appends raw frames as JSON lines, every secret redacted.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *tracer) frame(dir, method string, raw []byte) {
	if t == nil {
		return
	}
	raw = redact.Default.JSON(raw)
	line := struct {
		Time   string          `json:"time"`
		Dir    string          `json:"dir"`
		Method string          `json:"method"`
		Frame  json.RawMessage `json:"frame,omitempty"`
		Text   string          `json:"text,omitempty"`
	}{Time: time.Now().UTC().Format(time.RFC3339Nano), Dir: dir, Method: method}
	if json.Valid(raw) {
		line.Frame = raw
	} else {
		line.Text = strings.ToValidUTF8(string(raw), "?")
	}
	b, _ := json.Marshal(line)
	b = redact.Default.Bytes(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(append(b, '\n'))
}
