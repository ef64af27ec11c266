package platformtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/proto03test"

	"github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbconv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// to03JSON writes m as the ProtoJSON of the 0.3.0 proto.
func to03JSON(m proto.Message, protoNames bool) ([]byte, error) {
	fd, err := proto03test.File()
	if err != nil {
		return nil, err
	}
	desc := fd.Messages().ByName(m.ProtoReflect().Descriptor().Name())
	if desc == nil {
		return nil, fmt.Errorf("no 0.3.0 message %s", m.ProtoReflect().Descriptor().Name())
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	dyn := dynamicpb.NewMessage(desc)
	if err := proto.Unmarshal(b, dyn); err != nil {
		return nil, err
	}
	return protojson.MarshalOptions{UseProtoNames: protoNames}.Marshal(dyn)
}

// from03JSON reads the ProtoJSON of the 0.3.0 proto into m, refusing
// unknown fields as Google's front ends do.
func from03JSON(b []byte, m proto.Message) error {
	fd, err := proto03test.File()
	if err != nil {
		return err
	}
	dyn := dynamicpb.NewMessage(fd.Messages().ByName(m.ProtoReflect().Descriptor().Name()))
	if err := protojson.Unmarshal(b, dyn); err != nil {
		return err
	}
	wire, err := proto.Marshal(dyn)
	if err != nil {
		return err
	}
	return proto.Unmarshal(wire, m)
}

// GoogleOptions configures a scripted Vertex AI Agent Engine or Gemini
// Enterprise agent.
type GoogleOptions struct {
	// Tokens is the token server whose access tokens the platform takes
	// (required).
	Tokens *GoogleTokenServer
	// Project (a project number for Gemini Enterprise), Location and the
	// agent's ID make its resource name (defaults 123456789012,
	// us-central1 (global for Gemini Enterprise), 7261528349104857088).
	Project, Location, ID string
	// ProtoFieldNames answers with the proto field names (snake_case keys,
	// "msg") instead of ProtoJSON's default JSON names (lowerCamelCase,
	// "message"), as some ProtoJSON writers do; both parse as ProtoJSON.
	ProtoFieldNames bool
}

// GoogleA2A is a scripted Google-hosted A2A agent: Vertex AI Agent Engine
// (a reasoning engine with an A2A agent) or Gemini Enterprise (an agent of
// an assistant). It serves the HTTP+JSON binding of A2A 0.3 under
// <resource>/a2a/v1/: GET card, POST message:send, POST message:stream
// (SSE whose data are StreamResponses), GET tasks/{id}, POST
// tasks/{id}:cancel, GET tasks/{id}:subscribe; its bodies are the ProtoJSON
// of the 0.3 proto, checked as Google's front ends check them (an unknown
// field such as "parts" or "kind", or a role "user", is 400
// INVALID_ARGUMENT). Every request needs an access token the token server
// issued, unexpired, with the cloud-platform scope (ID tokens are
// refused); Gemini Enterprise also needs X-Goog-User-Project. Errors are
// google.rpc.Status JSON. Behind it the official a2a-go gRPC handler of
// A2A 0.3 runs the scripted [Agent], reached over an in-memory gRPC
// connection, as Google's front ends transcode HTTP to gRPC.
type GoogleA2A struct {
	// URL is the server's base URL (standing for
	// https://<location>-aiplatform.googleapis.com or
	// https://discoveryengine.googleapis.com).
	URL string
	// Resource is the agent's resource name; Base is URL + the API
	// version + Resource + "/a2a", the URL a client is given.
	Resource, Base string
	Agent          *Agent

	gemini bool
	opts   GoogleOptions
	client a2apb.A2AServiceClient
	card   *a2apb.AgentCard
	recorder
}

// StartVertex starts a scripted Vertex AI Agent Engine A2A agent at
// /v1beta1/projects/P/locations/L/reasoningEngines/ID/a2a.
func StartVertex(t testing.TB, opts GoogleOptions) *GoogleA2A {
	t.Helper()
	if opts.Location == "" {
		opts.Location = "us-central1"
	}
	g := startGoogle(t, opts, false)
	g.Resource = fmt.Sprintf("projects/%s/locations/%s/reasoningEngines/%s", g.opts.Project, g.opts.Location, g.opts.ID)
	g.Base = g.URL + "/v1beta1/" + g.Resource + "/a2a"
	g.card = g.protoCard(t, "Vertex Agent")
	return g
}

// StartGeminiEnterprise starts a scripted Gemini Enterprise A2A agent at
// /v1/projects/P/locations/L/collections/default_collection/engines/E/
// assistants/default_assistant/agents/ID/a2a.
func StartGeminiEnterprise(t testing.TB, opts GoogleOptions) *GoogleA2A {
	t.Helper()
	if opts.Location == "" {
		opts.Location = "global"
	}
	g := startGoogle(t, opts, true)
	g.Resource = fmt.Sprintf("projects/%s/locations/%s/collections/default_collection/engines/shim-engine/assistants/default_assistant/agents/%s",
		g.opts.Project, g.opts.Location, g.opts.ID)
	g.Base = g.URL + "/v1/" + g.Resource + "/a2a"
	g.card = g.protoCard(t, "Gemini Enterprise Agent")
	return g
}

func startGoogle(t testing.TB, opts GoogleOptions, gemini bool) *GoogleA2A {
	if opts.Tokens == nil {
		t.Fatal("platformtest: GoogleOptions.Tokens is required")
	}
	if opts.Project == "" {
		opts.Project = "123456789012"
	}
	if opts.ID == "" {
		opts.ID = "7261528349104857088"
	}
	g := &GoogleA2A{Agent: &Agent{}, gemini: gemini, opts: opts}
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	a2agrpc.NewHandler(newA2AHandler(g.Agent)).RegisterWith(gs)
	go func() { _ = gs.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///a2a", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	g.client = a2apb.NewA2AServiceClient(conn)
	srv := httptest.NewServer(g)
	t.Cleanup(func() { srv.Close(); _ = conn.Close(); gs.Stop() })
	g.URL = srv.URL
	return g
}

// protoCard is the agent's card as the 0.3 proto has it.
func (g *GoogleA2A) protoCard(t testing.TB, name string) *a2apb.AgentCard {
	card, err := pbconv.ToProtoAgentCard(&a2a.AgentCard{Name: name, Description: "an A2A agent hosted by Google", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: g.Base, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "0.3"}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: true}})
	if err != nil {
		t.Fatal(err)
	}
	return card
}

// googleError answers a google.rpc.Status as Google's front ends do.
func googleError(code codes.Code, msg string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		httpStatus := httpStatusOf(code)
		if code == codes.Unauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(httpStatus)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": httpStatus, "message": msg, "status": codeName(code)}})
	}
}

// httpStatusOf maps a gRPC code to its HTTP status (google.rpc.Code).
func httpStatusOf(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Canceled:
		return 499
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// codeName is the google.rpc.Code name of c (INVALID_ARGUMENT, …).
func codeName(c codes.Code) string {
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func (g *GoogleA2A) marshal(m proto.Message) []byte {
	b, err := to03JSON(m, g.opts.ProtoFieldNames)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"code": 500, "message": err.Error(), "status": "INTERNAL"}})
	}
	return b
}

func (g *GoogleA2A) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := begin(w, r)
	defer x.end(&g.recorder)
	prefix := strings.TrimPrefix(g.Base, g.URL) + "/v1/"
	op, ok := strings.CutPrefix(x.seen.Path, prefix)
	if !ok {
		x.refuse("not the agent's A2A path", googleError(codes.NotFound, "The requested URL "+x.seen.Path+" was not found on this server."))
		return
	}
	if reason, respond := g.authorize(r); reason != "" {
		x.refuse(reason, respond)
		return
	}
	ctx := r.Context()
	if ext := r.Header.Values("X-A2a-Extensions"); len(ext) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.MD{"x-a2a-extensions": ext})
	}
	switch {
	case r.Method == http.MethodGet && op == "card":
		g.reply(x, g.card, nil)
	case r.Method == http.MethodPost && (op == "message:send" || op == "message:stream"):
		g.serveMessage(ctx, x, op)
	case strings.HasPrefix(op, "tasks/"):
		g.serveTask(ctx, x, r, strings.TrimPrefix(op, "tasks/"))
	default:
		x.refuse("no such route", googleError(codes.NotFound, "The requested URL "+x.seen.Path+" was not found on this server."))
	}
}

// serveMessage serves message:send and message:stream.
func (g *GoogleA2A) serveMessage(ctx context.Context, x *exchange, op string) {
	var req a2apb.SendMessageRequest
	if why := g.readSend(x, &req); why != "" {
		x.refuse(why, googleError(codes.InvalidArgument, why))
		return
	}
	if op == "message:send" {
		res, err := g.client.SendMessage(ctx, &req)
		g.reply(x, res, err)
		return
	}
	stream, err := g.client.SendStreamingMessage(ctx, &req)
	g.stream(x, stream, err)
}

// serveTask serves tasks/{id}, tasks/{id}:cancel and
// tasks/{id}:subscribe; op is what follows tasks/.
func (g *GoogleA2A) serveTask(ctx context.Context, x *exchange, r *http.Request, op string) {
	id, action, _ := strings.Cut(op, ":")
	name := "tasks/" + id
	switch {
	case id == "" || strings.Contains(id, "/"):
		x.refuse("no such route", googleError(codes.NotFound, "The requested URL "+x.seen.Path+" was not found on this server."))
	case r.Method == http.MethodGet && action == "":
		req := &a2apb.GetTaskRequest{Name: name}
		if !historyLength(x, r, req) {
			return
		}
		res, err := g.client.GetTask(ctx, req)
		g.reply(x, res, err)
	case r.Method == http.MethodPost && action == "cancel":
		if b := strings.TrimSpace(string(x.seen.Body)); b != "" && b != "{}" {
			x.refuse("a cancel with a body", googleError(codes.InvalidArgument, "Invalid JSON payload received. The request body must be empty."))
			return
		}
		res, err := g.client.CancelTask(ctx, &a2apb.CancelTaskRequest{Name: name})
		g.reply(x, res, err)
	case r.Method == http.MethodGet && action == "subscribe":
		stream, err := g.client.TaskSubscription(ctx, &a2apb.TaskSubscriptionRequest{Name: name})
		g.stream(x, stream, err)
	default:
		x.refuse("no such route", googleError(codes.NotFound, "The requested URL "+x.seen.Path+" was not found on this server."))
	}
}

// historyLength reads the query's history length (either spelling) into
// req; false: a value that is no number was refused.
func historyLength(x *exchange, r *http.Request, req *a2apb.GetTaskRequest) bool {
	q := r.URL.Query()
	for _, k := range []string{"historyLength", "history_length"} {
		if v := q.Get(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				x.refuse("bad "+k, googleError(codes.InvalidArgument, "Invalid value at '"+k+"' (TYPE_INT32), \""+v+"\""))
				return false
			}
			req.HistoryLength = int32(n)
		}
	}
	return true
}

// authorize checks the bearer token (and, for Gemini Enterprise, the
// quota project header).
func (g *GoogleA2A) authorize(r *http.Request) (string, func(http.ResponseWriter)) {
	tok := bearer(r.Header)
	reason, scopeOK := g.opts.Tokens.check(tok)
	if tok == "" {
		return reason, googleError(codes.Unauthenticated, "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
	}
	if reason != "" {
		return reason, googleError(codes.Unauthenticated, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
	}
	if !scopeOK {
		return "a token without the cloud-platform scope", googleError(codes.PermissionDenied, "Request had insufficient authentication scopes.")
	}
	if g.gemini {
		switch p := r.Header.Get("X-Goog-User-Project"); {
		case p == "":
			return "no X-Goog-User-Project", googleError(codes.PermissionDenied, "Your application is authenticating by using local Application Default Credentials. The discoveryengine.googleapis.com API requires a quota project, which is not set by default.")
		case p != g.opts.Project:
			return "X-Goog-User-Project " + p + " is not the agent's project", googleError(codes.PermissionDenied, "Caller does not have required permission to use project "+p+".")
		}
	}
	return "", nil
}

// readSend decodes a SendMessageRequest as Google's front ends do, and
// checks the message Gemini Enterprise's documentation asks for (role
// ROLE_USER, a messageId, content). It returns why the body is refused,
// or "".
func (g *GoogleA2A) readSend(x *exchange, req *a2apb.SendMessageRequest) string {
	if ct := x.r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return "Content-Type " + ct + " is not application/json"
	}
	if err := from03JSON(x.seen.Body, req); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	m := req.GetRequest()
	switch {
	case m == nil:
		return "Invalid JSON payload received. 'message' is required."
	case m.GetRole() != a2apb.Role_ROLE_USER:
		return "Invalid value at 'message.role': want ROLE_USER, got " + m.GetRole().String()
	case m.GetMessageId() == "":
		return "'message.message_id' is required."
	case len(m.GetParts()) == 0:
		return "'message.content' must not be empty."
	}
	return ""
}

// reply writes a unary answer or its error.
func (g *GoogleA2A) reply(x *exchange, res proto.Message, err error) {
	if err != nil {
		st, _ := status.FromError(err)
		googleError(st.Code(), st.Message())(x.w)
		return
	}
	x.w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = x.w.Write(g.marshal(res))
}

// stream writes a gRPC server stream as SSE, each event's data one
// StreamResponse; an error after the stream began is a last event holding
// the google.rpc.Status.
func (g *GoogleA2A) stream(x *exchange, stream grpc.ServerStreamingClient[a2apb.StreamResponse], err error) {
	var first *a2apb.StreamResponse
	if err == nil {
		first, err = stream.Recv()
	}
	if err != nil {
		g.reply(x, nil, err)
		return
	}
	x.w.Header().Set("Content-Type", "text/event-stream")
	x.w.Header().Set("Cache-Control", "no-cache")
	x.w.WriteHeader(http.StatusOK)
	for ev := first; ; {
		fmt.Fprintf(x.w, "data: %s\n\n", g.marshal(ev))
		x.w.Flush()
		ev, err = stream.Recv()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			st, _ := status.FromError(err)
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": httpStatusOf(st.Code()), "message": st.Message(), "status": codeName(st.Code())}})
			fmt.Fprintf(x.w, "data: %s\n\n", b)
			x.w.Flush()
			return
		}
	}
}
