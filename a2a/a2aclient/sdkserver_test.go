package a2aclient

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"testing"

	a2ago "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// echoAgent is an a2a-go v2 executor that answers "pong": a working
// status, the answer as an artifact, then completed.
type echoAgent struct{}

func (echoAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2ago.Event, error] {
	return func(yield func(a2ago.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2ago.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2ago.NewStatusUpdateEvent(ec, a2ago.TaskStateWorking, nil), nil) {
			return
		}
		if !yield(a2ago.NewArtifactEvent(ec, a2ago.NewTextPart("pong")), nil) {
			return
		}
		yield(a2ago.NewStatusUpdateEvent(ec, a2ago.TaskStateCompleted, nil), nil)
	}
}

func (echoAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2ago.Event, error] {
	return func(yield func(a2ago.Event, error) bool) {
		yield(a2ago.NewStatusUpdateEvent(ec, a2ago.TaskStateCanceled, nil), nil)
	}
}

// sdkServer serves an a2a-go v2 request handler for exec as a 1.0
// JSON-RPC agent at /a2a, its card (streaming) at cardPath; wrap, when
// set, stands between it and the client (the request recorder, or what a
// real server cannot be made to do). It returns the server's URL.
func sdkServer(t *testing.T, exec a2asrv.AgentExecutor, cardPath string, wrap func(http.Handler) http.Handler) string {
	return sdkServerOn(t, exec, cardPath, a2ago.TransportProtocolJSONRPC, wrap)
}

// sdkServerOn is sdkServer whose card names one interface of binding:
// JSON-RPC at /a2a or HTTP+JSON under /rest.
func sdkServerOn(t *testing.T, exec a2asrv.AgentExecutor, cardPath string, binding a2ago.TransportProtocol, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	card := &a2ago.AgentCard{Name: "SDK Agent", Description: "an a2a-go v2 server", Version: "1.0.0",
		SupportedInterfaces: []*a2ago.AgentInterface{{URL: srv.URL + map[a2ago.TransportProtocol]string{a2ago.TransportProtocolJSONRPC: "/a2a", a2ago.TransportProtocolHTTPJSON: "/rest"}[binding], ProtocolBinding: binding,
			ProtocolVersion: a2ago.Version}},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2ago.AgentCapabilities{Streaming: true}}
	mux := http.NewServeMux()
	handler := a2asrv.NewHandler(exec)
	mux.Handle("/a2a", a2asrv.NewJSONRPCHandler(handler))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(handler)))
	mux.Handle(cardPath, a2asrv.NewStaticAgentCardHandler(card))
	var h http.Handler = mux
	if wrap != nil {
		h = wrap(mux)
	}
	srv.Config.Handler = h
	return srv.URL
}

// recording wraps a handler so that rec sees every request.
func recording(rec *recorder) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			x := rec.add(r)
			r.Body = io.NopCloser(bytes.NewReader(x.Body))
			next.ServeHTTP(w, r)
		})
	}
}
