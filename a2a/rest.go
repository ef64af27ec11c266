package a2a

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
)

// restTransport is the HTTP+JSON binding (SPEC §12.3): one route per
// call under the interface URL (and /<tenant> when the card gives one),
// ProtoJSON bodies, SSE streams whose data is a bare StreamResponse, and
// errors as google.rpc.Status or application/problem+json.
type restTransport struct {
	*conn
	base    string
	dialect Dialect
	// postSubscribe is set once a server answered a subscribe only to
	// POST (a2a-go v2.3.1 routes it so; the proto says GET).
	postSubscribe atomic.Bool
}

var _ transport = (*restTransport)(nil)

func newREST(c *conn, card *Card) *restTransport {
	base := strings.TrimSuffix(card.Endpoint, "/")
	if card.Tenant != "" {
		base += "/" + url.PathEscape(card.Tenant)
	}
	return &restTransport{conn: c, base: base, dialect: card.Dialect}
}

// route is the URL of path (with its query) under the interface URL.
func (c *restTransport) route(path string, q url.Values) string {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func taskPath(id, action string) string {
	return "/tasks/" + url.PathEscape(id) + action
}

// encode marshals a request body, long texts spliced in without a copy.
func encodeBody(v any) []byte {
	var longs []*longText
	collectLong(v, &longs)
	b, _ := marshalSpliced(v, longs)
	return b
}

// call makes a unary call with retries and returns the answer's body.
func (c *restTransport) call(ctx context.Context, method, target string, body []byte, name string) ([]byte, error) {
	if err := takeRequest(ctx); err != nil {
		return nil, err
	}
	c.trace.frame("send", name, body)
	req, err := c.newRequest(ctx, method, target, body, c.dialect)
	if err != nil {
		return nil, err
	}
	resp, err := c.unary.Do(req)
	if err != nil {
		return nil, c.transportError(target, err)
	}
	data, err := c.readBody(resp)
	if err != nil {
		return nil, c.transportError(target, err)
	}
	c.trace.frame("recv", name, data)
	return restResult(resp, target, data)
}

// GetTask implements transport.
func (c *restTransport) GetTask(ctx context.Context, id string, historyLength int) (*Task, error) {
	q := url.Values{}
	if n, ok := historyParam(c.dialect, historyLength); ok {
		q.Set("historyLength", strconv.Itoa(n))
	}
	raw, err := c.call(ctx, http.MethodGet, c.route(taskPath(id, ""), q), nil, "GetTask")
	if err != nil {
		return nil, err
	}
	return decodeTask(raw)
}

// CancelTask implements transport.
func (c *restTransport) CancelTask(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodPost, c.route(taskPath(id, ":cancel"), nil), []byte(`{}`), "CancelTask")
	return err
}

// ListTasks implements transport (1.0 only: 0.3 has no listing).
func (c *restTransport) ListTasks(ctx context.Context, tq taskQuery) (taskPage, error) {
	if c.dialect != V10 {
		return taskPage{}, ErrUnsupported
	}
	q := url.Values{"contextId": {tq.ContextID}, "pageSize": {"100"}, "includeArtifacts": {"true"}}
	if n, ok := historyParam(c.dialect, tq.HistoryLength); ok {
		q.Set("historyLength", strconv.Itoa(n))
	}
	if tq.PageToken != "" {
		q.Set("pageToken", tq.PageToken)
	}
	raw, err := c.call(ctx, http.MethodGet, c.route("/tasks", q), nil, "ListTasks")
	if err != nil {
		return taskPage{}, err
	}
	return decodeTaskPage(raw)
}

// ExtendedCard implements transport.
func (c *restTransport) ExtendedCard(ctx context.Context) ([]byte, error) {
	return c.call(ctx, http.MethodGet, c.route("/extendedAgentCard", nil), nil, "GetExtendedAgentCard")
}

// SendStreaming implements transport.
func (c *restTransport) SendStreaming(ctx context.Context, m OutMessage) (*Stream, error) {
	body := encodeBody(map[string]any{"message": encodeMessage(c.dialect, m)})
	return c.openStream(ctx, http.MethodPost, c.route("/message:stream", nil), body, "SendStreamingMessage")
}

// Send implements transport.
func (c *restTransport) Send(ctx context.Context, m OutMessage, immediate bool) (*Stream, error) {
	p := map[string]any{"message": encodeMessage(c.dialect, m)}
	if immediate {
		p["configuration"] = sendConfiguration(c.dialect)
	}
	return c.openStream(ctx, http.MethodPost, c.route("/message:send", nil), encodeBody(p), "SendMessage")
}

// Subscribe implements transport: GET as the binding says; a server that
// answers that with 404 or 405 (one that routes subscribe to POST) is
// asked again with POST, and POST is kept for later reattaches.
func (c *restTransport) Subscribe(ctx context.Context, taskID string) (*Stream, error) {
	target := c.route(taskPath(taskID, ":subscribe"), nil)
	if !c.postSubscribe.Load() {
		s, err := c.openStream(ctx, http.MethodGet, target, nil, "SubscribeToTask")
		if !notRouted(err) {
			return s, err
		}
		c.log.Debug("GET subscribe was not routed; asking with POST", "err", err)
	}
	s, err := c.openStream(ctx, http.MethodPost, target, []byte(`{}`), "SubscribeToTask")
	if err == nil {
		c.postSubscribe.Store(true)
	}
	return s, err
}

// notRouted reports an answer of 404 or 405: the route may be another
// method's.
func notRouted(err error) bool {
	if err == nil {
		return false
	}
	if re, ok := err.(*restError); ok {
		return re.status == http.StatusNotFound || re.status == http.StatusMethodNotAllowed
	}
	if he, ok := err.(*HTTPError); ok {
		return he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusMethodNotAllowed
	}
	return false
}

// openStream sends a request whose answer is an SSE stream of bare
// StreamResponses, or one JSON body (a send's result, or an error).
func (c *restTransport) openStream(ctx context.Context, method, target string, body []byte, name string) (*Stream, error) {
	if body != nil {
		c.trace.frame("send", name, body)
	}
	s := c.newStream(ctx, name, restFrames{})
	resp, err := c.dialStream(s, method, target, body, c.dialect)
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 == 2 && ct == "text/event-stream" {
		s.attach(resp.Body)
		return s, nil
	}
	data, err := c.readBody(resp)
	s.Close()
	if err != nil {
		return nil, c.transportError(target, err)
	}
	c.trace.frame("recv", name, data)
	result, err := restResult(resp, target, data)
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

// restFrames reads HTTP+JSON stream frames: a StreamResponse, or an
// {"error": …} object.
type restFrames struct{}

// restFrame is a StreamResponse or an error in one pass.
type restFrame struct {
	wireObject
	Error *wireStatusError `json:"error"`
}

// event implements frameDecoder.
func (restFrames) event(data []byte) (Event, error) {
	var f restFrame
	if err := frameUnmarshal(data)(data, &f); err != nil {
		return Event{}, &DecodeError{Err: err, Snippet: snippet(data)}
	}
	if f.Error != nil {
		return Event{}, f.Error.rpcError(0, data)
	}
	ev, err := f.wireObject.event()
	if err != nil {
		return Event{}, &DecodeError{Err: err, Snippet: snippet(data)}
	}
	return ev, nil
}

// failure implements frameDecoder.
func (restFrames) failure(data []byte) error {
	if err := parseRESTError(0, data); err != nil {
		return err.RPCError
	}
	return errorFrame(data)
}
