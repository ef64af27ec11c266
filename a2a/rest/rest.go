package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/wire"
	"github.com/shimdev/shim/a2a/wire/request"
	"github.com/shimdev/shim/a2a/wire/rpcerror"
)

// A codec is how one version of the binding names its routes and spells
// its bodies: the calls are the same, only the codec differs.
type codec struct {
	// prefix comes before every route: 0.3's routes are its proto's
	// google.api.http paths (/v1/message:send, /v1/tasks/{id}); 1.0
	// dropped the /v1.
	prefix string
	// extendedCard is the extended card's route.
	extendedCard string
	// lists is set when the version lists tasks (0.3 has no ListTasks).
	lists bool
	// message builds a SendMessageRequest's message.
	message func(a2a.OutMessage) map[string]any
	// task reads a Task answer; sendResult a SendMessageResponse, as the
	// events a stream would have carried; frame a stream's frame, with the
	// stream's decoder.
	task       func([]byte) (*a2a.Task, error)
	sendResult func([]byte) ([]a2a.Event, error)
	frame      func(*wire.Decoder, []byte) (a2a.Event, error)
}

// codecs are the binding's versions: 1.0's ProtoJSON, and 0.3's, the
// ProtoJSON of the 0.3.0 proto (its SDKs' REST servers, Google's Vertex AI
// Agent Engine and Gemini Enterprise).
var codecs = map[a2a.Dialect]*codec{
	a2a.V10: {
		extendedCard: "/extendedAgentCard",
		lists:        true,
		message:      func(m a2a.OutMessage) map[string]any { return request.Message(a2a.V10, m) },
		task:         func(b []byte) (*a2a.Task, error) { return wire.DecodeTask(b) },
		sendResult:   func(b []byte) ([]a2a.Event, error) { return wire.DecodeSendResult(b) },
		frame:        (*wire.Decoder).RESTFrame,
	},
	a2a.V03: {
		prefix: "/v1",
		// GetAgentCard, 0.3's agent/getAuthenticatedExtendedCard.
		extendedCard: "/card",
		message:      request.MessageProto03,
		task:         wire.DecodeTaskProto03,
		sendResult:   wire.DecodeSendResultProto03,
		frame:        (*wire.Decoder).RESTFrameProto03,
	},
}

// Binding is the HTTP+JSON binding of one card's interface.
type Binding struct {
	conn    *binding.Conn
	base    string
	dialect a2a.Dialect
	codec   *codec
	// postSubscribe is set once a server answered a subscribe only to
	// POST (a2a-go v2.3.1 routes it so; the proto says GET).
	postSubscribe atomic.Bool
}

var _ binding.Binding = (*Binding)(nil)

// New returns the binding of card's interface over conn.
func New(conn *binding.Conn, card *a2a.Card) *Binding {
	base := strings.TrimSuffix(card.Endpoint, "/")
	if card.Tenant != "" {
		base += "/" + url.PathEscape(card.Tenant)
	}
	cd, ok := codecs[card.Dialect]
	if !ok {
		cd = codecs[a2a.V10]
	}
	return &Binding{conn: conn, base: base + cd.prefix, dialect: card.Dialect, codec: cd}
}

// route is the URL of path (with its query) under the interface URL.
func (c *Binding) route(path string, q url.Values) string {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func taskPath(id, action string) string {
	return "/tasks/" + url.PathEscape(id) + action
}

// call makes a unary call with retries and returns the answer's body.
func (c *Binding) call(ctx context.Context, method, target string, body []byte, name string) ([]byte, error) {
	resp, data, err := c.conn.Call(ctx, method, target, body, c.dialect, name)
	if err != nil {
		return nil, err
	}
	return result(resp, target, data)
}

// GetTask implements binding.Binding.
func (c *Binding) GetTask(ctx context.Context, id string, historyLength int) (*a2a.Task, error) {
	q := url.Values{}
	if n, ok := request.HistoryLength(c.dialect, historyLength); ok {
		q.Set("historyLength", strconv.Itoa(n))
	}
	raw, err := c.call(ctx, http.MethodGet, c.route(taskPath(id, ""), q), nil, "GetTask")
	if err != nil {
		return nil, err
	}
	return c.codec.task(raw)
}

// CancelTask implements binding.Binding.
func (c *Binding) CancelTask(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodPost, c.route(taskPath(id, ":cancel"), nil), []byte(`{}`), "CancelTask")
	return err
}

// ListTasks implements binding.Binding (1.0 only: 0.3 has no listing).
func (c *Binding) ListTasks(ctx context.Context, tq binding.TaskQuery) (binding.TaskPage, error) {
	if !c.codec.lists {
		return binding.TaskPage{}, a2a.ErrUnsupported
	}
	q := url.Values{"contextId": {tq.ContextID}, "pageSize": {"100"}, "includeArtifacts": {"true"}}
	if n, ok := request.HistoryLength(c.dialect, tq.HistoryLength); ok {
		q.Set("historyLength", strconv.Itoa(n))
	}
	if tq.PageToken != "" {
		q.Set("pageToken", tq.PageToken)
	}
	raw, err := c.call(ctx, http.MethodGet, c.route("/tasks", q), nil, "ListTasks")
	if err != nil {
		return binding.TaskPage{}, err
	}
	tasks, next, err := wire.DecodeTaskPage(raw)
	return binding.TaskPage{Tasks: tasks, Next: next}, err
}

// ExtendedCard implements binding.Binding.
func (c *Binding) ExtendedCard(ctx context.Context) ([]byte, error) {
	return c.call(ctx, http.MethodGet, c.route(c.codec.extendedCard, nil), nil, "GetExtendedAgentCard")
}

// SendStreaming implements binding.Binding.
func (c *Binding) SendStreaming(ctx context.Context, m a2a.OutMessage) (*binding.Stream, error) {
	body := request.Body(map[string]any{"message": c.codec.message(m)})
	return c.openStream(ctx, http.MethodPost, c.route("/message:stream", nil), body, "SendStreamingMessage")
}

// Send implements binding.Binding.
func (c *Binding) Send(ctx context.Context, m a2a.OutMessage, immediate bool) (*binding.Stream, error) {
	p := map[string]any{"message": c.codec.message(m)}
	if immediate {
		p["configuration"] = request.SendConfiguration(c.dialect)
	}
	return c.openStream(ctx, http.MethodPost, c.route("/message:send", nil), request.Body(p), "SendMessage")
}

// Subscribe implements binding.Binding: GET as the binding says; a
// server that answers that with 404 or 405 (one that routes subscribe to
// POST) is asked again with POST, and POST is kept for later reattaches.
func (c *Binding) Subscribe(ctx context.Context, taskID string) (*binding.Stream, error) {
	target := c.route(taskPath(taskID, ":subscribe"), nil)
	if !c.postSubscribe.Load() {
		s, err := c.openStream(ctx, http.MethodGet, target, nil, "SubscribeToTask")
		if !notRouted(err) {
			return s, err
		}
		c.conn.Log().Debug("GET subscribe was not routed; asking with POST", "err", err)
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
	if re, ok := err.(*statusError); ok {
		return re.status == http.StatusNotFound || re.status == http.StatusMethodNotAllowed
	}
	if he, ok := err.(*a2a.HTTPError); ok {
		return he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusMethodNotAllowed
	}
	return false
}

// openStream sends a request whose answer is an SSE stream of bare
// StreamResponses, or one JSON body (a send's result, or an error).
func (c *Binding) openStream(ctx context.Context, method, target string, body []byte, name string) (*binding.Stream, error) {
	req := binding.Request{Method: method, Target: target, Body: body, Dialect: c.dialect, Name: name}
	return c.conn.Open(ctx, req, &frames{codec: c.codec}, func(resp *http.Response, data []byte) ([]a2a.Event, error) {
		res, err := result(resp, target, data)
		if err != nil {
			return nil, err
		}
		return c.codec.sendResult(res)
	})
}

// frames reads one stream's HTTP+JSON frames: a StreamResponse, or an
// {"error": …} object.
type frames struct {
	*codec
	dec wire.Decoder
}

// Event implements binding.Frames.
func (f *frames) Event(data []byte) (a2a.Event, error) { return f.frame(&f.dec, data) }

var _ binding.SharedFrames = (*frames)(nil)

// Share implements binding.SharedFrames.
func (f *frames) Share() { f.dec.Share() }

var _ binding.InPlaceFrames = (*frames)(nil)

// KeepsNothing implements binding.InPlaceFrames: a frame is decoded by
// the stream's Decoder, which keeps nothing of it.
func (*frames) KeepsNothing() {}

// Failure implements binding.Frames.
func (*frames) Failure(data []byte) error { return wire.RESTErrorFrame(data) }

// statusError is an HTTP+JSON error answer read as the JSON-RPC error it
// stands for; errors.As finds its *a2a.RPCError.
type statusError struct {
	*a2a.RPCError
	status int
}

func (e *statusError) Unwrap() error { return e.RPCError }

// HTTPStatus is the HTTP status the error came with.
func (e *statusError) HTTPStatus() int { return e.status }

// result reads an HTTP+JSON answer: a 2xx JSON body is the result;
// 401/403 is the credentials refused; an error body of google.rpc.Status
// or problem+json shape is the JSON-RPC error it stands for; anything
// else is an HTTP error.
func result(resp *http.Response, target string, data []byte) ([]byte, error) {
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, &a2a.HTTPError{StatusCode: resp.StatusCode, URL: target}
	}
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode/100 == 2 {
		if !json.Valid(data) {
			return nil, binding.HTTPError(resp.StatusCode, target, ct, data)
		}
		return data, nil
	}
	if re := rpcerror.Decode(resp.StatusCode, data); re != nil {
		return nil, &statusError{RPCError: re, status: resp.StatusCode}
	}
	return nil, binding.HTTPError(resp.StatusCode, target, ct, data)
}
