package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

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
