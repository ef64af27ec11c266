package binding

import (
	"bytes"
	"context"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/sse"
)

// MaxEvent bounds one SSE event's data and one non-SSE response body
// (SPEC §13), counted on the decoded bytes: the transport has already
// inflated a compressed body when the reader sees it. A full-replace frame
// carries a whole answer, so this is far above any usual limit.
const MaxEvent = 64 << 20

// Options configure a Conn.
type Options struct {
	// Credential puts the credential on requests to Origin.
	Credential auth.Credential
	// Origin is the agent's origin: the only one credentials go to.
	Origin string
	// AllowInsecureHTTP allows a credential over plain http to a
	// non-loopback host.
	AllowInsecureHTTP bool
	// UserAgent is sent with every request.
	UserAgent string
	// Timeout is one unary attempt's limit (default 20 s).
	Timeout time.Duration
	// RetryWait is the first backoff between unary attempts (default 250 ms).
	RetryWait time.Duration
	// Stall is how long a silent stream is waited for (0: forever).
	Stall time.Duration
	// Base carries the requests (default: a pooled transport); Wrap, when
	// set, wraps it (the credential's renewal on 401).
	Base http.RoundTripper
	Wrap func(http.RoundTripper) http.RoundTripper
	// Dialer, when set, is Base's (NewTransport): Preconnect opens
	// connections ahead through it.
	Dialer *Dialer
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// Trace, when set, receives every raw frame as a JSON line.
	Trace io.Writer
	// MaxEvent bounds one SSE event and one body (0: MaxEvent; tests set
	// less).
	MaxEvent int
	// Departures, when set, records the server's departures from the
	// spec that the streams read anyway (SPEC §16).
	Departures *a2a.Departures
}

// Conn is the HTTP plumbing every call to one agent shares, whatever the
// binding: shim's headers, the credential's origin rule, the unary client
// with its retries, the streaming client, the read bounds and the frame
// trace. It is safe for concurrent use.
type Conn struct {
	opts      Options
	log       *slog.Logger
	trace     *tracer
	unary     *retryablehttp.Client
	streaming *http.Client
}

// New returns a Conn; it makes no network call.
func New(opts Options) *Conn {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.RetryWait == 0 {
		opts.RetryWait = 250 * time.Millisecond
	}
	if opts.Base == nil {
		opts.Base, opts.Dialer = NewTransport()
	}
	if opts.MaxEvent <= 0 {
		opts.MaxEvent = MaxEvent
	}
	c := &Conn{opts: opts, log: opts.Log}
	if opts.Trace != nil {
		c.trace = &tracer{w: opts.Trace}
	}
	c.clients(opts.Base)
	return c
}

// clients builds the unary and streaming clients over base.
func (c *Conn) clients(base http.RoundTripper) {
	rt := base
	if c.opts.Wrap != nil {
		rt = c.opts.Wrap(base)
	}
	noRedirect := func(req *http.Request, via []*http.Request) error {
		if c.opts.Credential != nil && !c.opts.Credential.Empty() {
			return http.ErrUseLastResponse
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return nil
	}
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: rt, Timeout: c.opts.Timeout, CheckRedirect: noRedirect}
	rc.RetryMax = 2
	rc.RetryWaitMin = c.opts.RetryWait
	rc.RetryWaitMax = 8 * c.opts.RetryWait
	// DefaultBackoff obeys a 503's Retry-After without bound (a proxy's
	// "Retry-After: 3600" would block a GetTask for an hour); cap it.
	rc.Backoff = func(lo, hi time.Duration, n int, resp *http.Response) time.Duration {
		return min(retryablehttp.DefaultBackoff(lo, hi, n, resp), hi)
	}
	rc.Logger = leveled{c.log}
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
	c.streaming = &http.Client{Transport: rt, CheckRedirect: noRedirect}
}

// Dedicated returns a Conn like c whose requests all go over one
// connection of their own (an agent that ends a run when its request's
// connection closes needs the task's requests on one connection), and a
// function that closes that connection when it is idle. A Base that is not
// an *http.Transport (a test's) is shared as it is.
func (c *Conn) Dedicated() (*Conn, func()) {
	nc := *c
	ht, ok := c.opts.Base.(*http.Transport)
	if !ok {
		nc.clients(c.opts.Base)
		return &nc, func() {}
	}
	own := ht.Clone()
	own.MaxConnsPerHost = 1
	own.MaxIdleConnsPerHost = 1
	own.DisableKeepAlives = false
	nc.clients(own)
	return &nc, own.CloseIdleConnections
}

// Preconnect opens n connections to the agent's origin ahead of n
// requests about to be sent at once (Dialer.Preconnect; nothing without a
// Dialer, over TLS, or through a proxy).
func (c *Conn) Preconnect(n int) {
	if c.opts.Dialer != nil {
		c.opts.Dialer.Preconnect(c.opts.Origin, n)
	}
}

// Log is where the Conn's diagnostics go.
func (c *Conn) Log() *slog.Logger { return c.log }

// MaxEvent is the bound of one SSE event and one body.
func (c *Conn) MaxEvent() int { return c.opts.MaxEvent }

// retryPolicy retries connection errors and 502, 503 and 504.
func retryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if errors.As(err, new(*a2a.SignInError)) { // a failed OAuth renewal
		return false, nil
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

// versionHeaders sets the headers of a dialect: its version and the
// extensions shim understands, under the dialect's header names.
var versionHeaders = map[a2a.Dialect]func(http.Header, string){
	a2a.V10: func(h http.Header, ext string) { h.Set("A2A-Version", "1.0"); h.Set("A2A-Extensions", ext) },
	a2a.V03: func(h http.Header, ext string) { h.Set("X-A2A-Extensions", ext) },
}

// NewRequest builds a unary request with shim's headers for dialect d;
// the credential goes only to the agent's origin, and never over plain
// http to a non-loopback host. The credential is put on last (a signature
// covers the other headers): nothing may change the request after.
func (c *Conn) NewRequest(ctx context.Context, method, target string, body []byte, d a2a.Dialect) (*retryablehttp.Request, error) {
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

func (c *Conn) setHeaders(req *http.Request, d a2a.Dialect) error {
	if req.Method != http.MethodGet || req.ContentLength > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" { // a stream asked for text/event-stream
		req.Header.Set("Accept", "application/json")
	}
	if c.opts.UserAgent != "" {
		req.Header.Set("User-Agent", c.opts.UserAgent)
	}
	if set, ok := versionHeaders[d]; ok {
		set(req.Header, strings.Join(a2a.Extensions, ", "))
	}
	// The editor's trace context, when the request it causes carries one.
	a2a.SetTraceHeaders(req.Context(), req.Header)
	cred := c.opts.Credential
	if cred == nil {
		return nil
	}
	if err := cred.Check(); err != nil { // a scheme shim cannot meet
		return err
	}
	if cred.Empty() {
		return nil
	}
	if auth.Origin(req.URL) != c.opts.Origin {
		c.log.Warn("not sending the token to another origin", "origin", auth.Origin(req.URL))
		return nil
	}
	if req.URL.Scheme == "http" && !auth.IsLoopback(req.URL.Hostname()) && !c.opts.AllowInsecureHTTP {
		return a2a.ErrInsecure
	}
	return cred.Apply(req)
}

// Do sends a unary request with retries.
func (c *Conn) Do(req *retryablehttp.Request) (*http.Response, error) { return c.unary.Do(req) }

// Call makes one unary call with retries: it takes a request from the
// context's ReadBudget, traces the body sent and the body read as name (an
// A2A call; "" traces nothing), and returns the answer with its body read
// whole.
func (c *Conn) Call(ctx context.Context, method, target string, body []byte, d a2a.Dialect, name string) (*http.Response, []byte, error) {
	if err := a2a.TakeRequest(ctx); err != nil {
		return nil, nil, err
	}
	if body != nil && name != "" {
		c.trace.frame("send", name, body)
	}
	req, err := c.NewRequest(ctx, method, target, body, d)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.unary.Do(req)
	if err != nil {
		return nil, nil, c.Error(target, err)
	}
	data, err := c.ReadBody(resp)
	if err != nil {
		return nil, nil, c.Error(target, err)
	}
	if name != "" {
		c.trace.frame("recv", name, data)
	}
	return resp, data, nil
}

// Error says what a failed call met: the request's own errors as they
// are, anything else as an unreachable server.
func (c *Conn) Error(target string, err error) error {
	if errors.Is(err, a2a.ErrInsecure) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, a2a.ErrTooLarge) || errors.Is(err, a2a.ErrBudget) {
		return err
	}
	if se := (*a2a.SignInError)(nil); errors.As(err, &se) { // a failed OAuth renewal
		return se
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &a2a.UnreachableError{URL: target, Attempts: 3, Err: err}
}

// dial sends the request of stream s (Accept: text/event-stream). It
// retries only when the connection failed before the request was
// written. On an error s is closed.
func (c *Conn) dial(s *Stream, method, target string, body []byte, d a2a.Dialect) (*http.Response, error) {
	ctx := s.ctx
	var resp *http.Response
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		var written atomic.Bool
		tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { written.Store(true) },
		})
		var rb io.Reader
		if body != nil {
			rb = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(tctx, method, target, rb)
		if err != nil {
			s.Close()
			return nil, err
		}
		// Before the credential: a signature covers the headers.
		req.Header.Set("Accept", "text/event-stream")
		if err := c.setHeaders(req, d); err != nil {
			s.Close()
			return nil, err
		}
		resp, lastErr = c.streaming.Do(req)
		if lastErr == nil {
			break
		}
		if written.Load() || ctx.Err() != nil {
			break
		}
		c.log.Debug("stream connection failed before the request was sent; retrying", "attempt", attempt, "err", lastErr)
		select {
		case <-time.After(time.Duration(attempt) * c.opts.RetryWait):
		case <-ctx.Done():
		}
	}
	if lastErr != nil {
		stalled := s.stall.Stalled()
		s.Close()
		if stalled {
			return nil, a2a.ErrStalled
		}
		if ctx.Err() != nil && errors.Is(lastErr, context.Canceled) {
			return nil, context.Canceled
		}
		return nil, c.Error(target, lastErr)
	}
	return resp, nil
}

// ReadBody reads a whole response body of at most MaxEvent bytes, or what
// the request's ReadBudget has left (counted decoded: the transport
// inflates a compressed body before this sees it), in chunks joined once
// at the end.
func (c *Conn) ReadBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	var b *a2a.ReadBudget
	if resp.Request != nil {
		b = a2a.BudgetOf(resp.Request.Context())
	}
	ceiling := int64(c.opts.MaxEvent)
	limit := b.Limit(ceiling)
	tooLarge := func() error {
		if b != nil && limit < ceiling {
			b.Exhaust()
			return a2a.ErrBudget
		}
		return &sse.TooLargeError{What: "a response body", Limit: limit}
	}
	var ch sse.Buffer
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if werr := ch.Write(buf[:n], int(limit), tooLarge); werr != nil {
			return nil, werr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	b.Spend(int64(ch.Len()))
	out := ch.Bytes()
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// titleRE is compiled on first use, not at every start.
var titleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`) })

// HTTPError builds the error for a body that is not the JSON expected:
// an HTML page's title, or the start of the body.
func HTTPError(status int, url, contentType string, body []byte) *a2a.HTTPError {
	e := &a2a.HTTPError{StatusCode: status, URL: url}
	s := strings.TrimSpace(strings.ToValidUTF8(string(body), "?"))
	lower := strings.ToLower(s)
	if strings.Contains(contentType, "html") || strings.HasPrefix(lower, "<!doctype html") || strings.HasPrefix(lower, "<html") {
		e.HTML = true
		if m := titleRE().FindStringSubmatch(s); m != nil {
			e.Detail = strings.TrimSpace(html.UnescapeString(m[1]))
		}
		return e
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	e.Detail = s
	return e
}
