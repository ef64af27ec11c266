package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/shimdev/shim/internal/redact"
)

// conn is the HTTP plumbing every call shares, whatever the binding:
// shim's headers, the token's origin rule, the unary client with its
// retries, the streaming client and the frame trace.
type conn struct {
	cfg       Config
	origin    string
	log       *slog.Logger
	trace     *tracer
	unary     *retryablehttp.Client
	streaming *http.Client
	auth      *authState // the credential and its scheme (auth.go)
	eventMax  int        // the bound of an SSE event and a body: maxEventSize, or a test's
}

// retryPolicy retries connection errors and 502, 503 and 504.
func retryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if isSignInError(err) { // hook: a failed OAuth renewal (auth.go)
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

// newRequest builds a request with shim's headers; the token goes only to
// the --url origin, and never over plain http to a non-loopback host.
func (c *conn) newRequest(ctx context.Context, method, target string, body []byte, d Dialect) (*retryablehttp.Request, error) {
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

func (c *conn) setHeaders(req *http.Request, d Dialect) error {
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
	if err := c.auth.check(); err != nil { // hook: a scheme shim cannot meet (auth.go)
		return err
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
	return c.auth.apply(req) // hook: the credential as the scheme takes it (auth.go)
}

func (c *conn) transportError(target string, err error) error {
	if errors.Is(err, ErrInsecure) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrTooLarge) || errors.Is(err, ErrBudget) {
		return err
	}
	if se := authErrorOf(err); se != nil { // hook: a failed OAuth renewal (auth.go)
		return se
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &UnreachableError{URL: target, Attempts: 3, Err: err}
}

// dialStream sends the request of stream s (Accept: text/event-stream).
// It retries only when the connection failed before the request was
// written. On an error s is closed.
func (c *conn) dialStream(s *Stream, method, target string, body []byte, d Dialect) (*http.Response, error) {
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
		if err := c.setHeaders(req, d); err != nil {
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
		return nil, c.transportError(target, lastErr)
	}
	return resp, nil
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
