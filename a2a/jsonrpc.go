package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
)

// jsonrpcTransport is the JSON-RPC binding, in both dialects: 1.0
// (SendMessage, GetTask, …, a tenant in every request's params) and 0.3
// (message/send, tasks/get, …).
type jsonrpcTransport struct {
	*conn
	endpoint string
	dialect  Dialect
	tenant   string
	seq      atomic.Int64
}

var _ transport = (*jsonrpcTransport)(nil)

func newJSONRPC(c *conn, card *Card) *jsonrpcTransport {
	return &jsonrpcTransport{conn: c, endpoint: card.Endpoint, dialect: card.Dialect, tenant: card.Tenant}
}

// rpcRequest is a JSON-RPC request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func (c *jsonrpcTransport) encode(method string, params any) []byte {
	var longs []*longText
	collectLong(params, &longs)
	b, _ := marshalSpliced(rpcRequest{JSONRPC: "2.0", ID: c.seq.Add(1), Method: method, Params: params}, longs)
	return b
}

// call makes a unary JSON-RPC call with retries.
func (c *jsonrpcTransport) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := takeRequest(ctx); err != nil {
		return nil, err
	}
	body := c.encode(method, params)
	c.trace.frame("send", method, body)
	req, err := c.newRequest(ctx, http.MethodPost, c.endpoint, body, c.dialect)
	if err != nil {
		return nil, err
	}
	resp, err := c.unary.Do(req)
	if err != nil {
		return nil, c.transportError(c.endpoint, err)
	}
	data, err := c.readBody(resp)
	if err != nil {
		return nil, c.transportError(c.endpoint, err)
	}
	c.trace.frame("recv", method, data)
	return responseResult(resp, c.endpoint, data)
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

// method picks the dialect's name of a method.
func (c *jsonrpcTransport) method(v10, v03 string) string {
	if c.dialect == V03 {
		return v03
	}
	return v10
}

// params adds the card's tenant to a 1.0 request's params.
func (c *jsonrpcTransport) params(p map[string]any) map[string]any {
	if c.dialect == V10 && c.tenant != "" {
		p["tenant"] = c.tenant
	}
	return p
}

// GetTask implements transport.
func (c *jsonrpcTransport) GetTask(ctx context.Context, id string, historyLength int) (*Task, error) {
	p := map[string]any{"id": id}
	if n, ok := historyParam(c.dialect, historyLength); ok {
		p["historyLength"] = n
	}
	raw, err := c.call(ctx, c.method("GetTask", "tasks/get"), c.params(p))
	if err != nil {
		return nil, err
	}
	return decodeTask(raw)
}

// CancelTask implements transport.
func (c *jsonrpcTransport) CancelTask(ctx context.Context, id string) error {
	_, err := c.call(ctx, c.method("CancelTask", "tasks/cancel"), c.params(map[string]any{"id": id}))
	return err
}

// ListTasks implements transport (1.0 only: 0.3 has no listing).
func (c *jsonrpcTransport) ListTasks(ctx context.Context, q taskQuery) (taskPage, error) {
	if c.dialect != V10 {
		return taskPage{}, ErrUnsupported
	}
	p := map[string]any{"contextId": q.ContextID, "pageSize": 100, "includeArtifacts": true}
	if n, ok := historyParam(c.dialect, q.HistoryLength); ok {
		p["historyLength"] = n
	}
	if q.PageToken != "" {
		p["pageToken"] = q.PageToken
	}
	raw, err := c.call(ctx, "ListTasks", c.params(p))
	if err != nil {
		return taskPage{}, err
	}
	return decodeTaskPage(raw)
}

// decodeTaskPage decodes a ListTasks answer: its tasks and next page token.
func decodeTaskPage(raw []byte) (taskPage, error) {
	tasks, err := decodeTaskList(raw)
	if err != nil {
		return taskPage{}, err
	}
	var next struct {
		Token  string `json:"nextPageToken"`
		Token2 string `json:"next_page_token"`
	}
	_ = json.Unmarshal(raw, &next)
	return taskPage{Tasks: tasks, Next: first(next.Token, next.Token2)}, nil
}

// SendStreaming implements transport.
func (c *jsonrpcTransport) SendStreaming(ctx context.Context, m OutMessage) (*Stream, error) {
	return c.openStream(ctx, c.method("SendStreamingMessage", "message/stream"),
		c.params(map[string]any{"message": encodeMessage(c.dialect, m)}))
}

// Send implements transport.
func (c *jsonrpcTransport) Send(ctx context.Context, m OutMessage, immediate bool) (*Stream, error) {
	p := map[string]any{"message": encodeMessage(c.dialect, m)}
	if immediate {
		p["configuration"] = sendConfiguration(c.dialect)
	}
	return c.openStream(ctx, c.method("SendMessage", "message/send"), c.params(p))
}

// sendConfiguration asks a blocking send to answer once the task exists.
func sendConfiguration(d Dialect) map[string]any {
	if d == V03 {
		return map[string]any{"blocking": false}
	}
	return map[string]any{"returnImmediately": true}
}

// ExtendedCard implements transport.
func (c *jsonrpcTransport) ExtendedCard(ctx context.Context) ([]byte, error) {
	if c.dialect == V03 {
		return c.call(ctx, "agent/getAuthenticatedExtendedCard", map[string]any{})
	}
	return c.call(ctx, "GetExtendedAgentCard", c.params(map[string]any{}))
}

// Subscribe implements transport.
func (c *jsonrpcTransport) Subscribe(ctx context.Context, taskID string) (*Stream, error) {
	return c.openStream(ctx, c.method("SubscribeToTask", "tasks/resubscribe"),
		c.params(map[string]any{"id": taskID}))
}

// openStream posts a request whose answer is an SSE stream of JSON-RPC
// responses, or one JSON-RPC response in a plain body (a blocking send's
// result, or an error).
func (c *jsonrpcTransport) openStream(ctx context.Context, method string, params any) (*Stream, error) {
	return c.openStreamWith(ctx, method, params, c)
}

// openStreamWith is openStream with the frames read by frames (an agent
// profile's decoder).
func (c *jsonrpcTransport) openStreamWith(ctx context.Context, method string, params any, frames frameDecoder) (*Stream, error) {
	body := c.encode(method, params)
	c.trace.frame("send", method, body)
	s := c.newStream(ctx, method, frames)
	resp, err := c.dialStream(s, http.MethodPost, c.endpoint, body, c.dialect)
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 == 2 && ct == "text/event-stream" {
		s.attach(resp.Body)
		return s, nil
	}
	// One JSON-RPC response in a plain body (errors often come this way).
	data, err := c.readBody(resp)
	s.Close()
	if err != nil {
		return nil, c.transportError(c.endpoint, err)
	}
	c.trace.frame("recv", method, data)
	result, err := responseResult(resp, c.endpoint, data)
	if err != nil {
		return nil, err
	}
	events, err := decodeSendResult(result)
	if err != nil {
		return nil, err
	}
	s.replay(events)
	return s, nil
}

// event implements frameDecoder: each frame is a JSON-RPC response.
func (c *jsonrpcTransport) event(data []byte) (Event, error) { return DecodeFrame(data) }

// failure implements frameDecoder.
func (c *jsonrpcTransport) failure(data []byte) error { return errorFrame(data) }

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
