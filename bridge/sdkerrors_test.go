package bridge

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	a2ago "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// busyAgent fails every message with an A2A error before any event: the
// a2a-go v2 server answers it with typed details (a google.rpc.ErrorInfo
// whose reason is UNSUPPORTED_OPERATION).
type busyAgent struct{}

func (busyAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2ago.Event, error] {
	return func(yield func(a2ago.Event, error) bool) {
		yield(nil, a2ago.NewError(a2ago.ErrUnsupportedOperation, "the model is busy").WithErrorInfoMeta(map[string]string{"retryAfter": "30s"}))
	}
}

func (busyAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2ago.Event, error] {
	return func(yield func(a2ago.Event, error) bool) {}
}

// TestErrorReasonShown: the reason of an error's typed details (A2A
// 1.0.1) is in the error the editor shows, and in its data, from the real
// a2a-go v2 server in both bindings (JSON-RPC data, HTTP+JSON
// google.rpc.Status details; SPEC §12.8).
func TestErrorReasonShown(t *testing.T) {
	rest := func(t *testing.T) string {
		srv := httptest.NewUnstartedServer(nil)
		srv.Start()
		t.Cleanup(srv.Close)
		card := &a2ago.AgentCard{Name: "SDK Agent", Description: "an a2a-go v2 server", Version: "1.0.0",
			SupportedInterfaces: []*a2ago.AgentInterface{{URL: srv.URL + "/rest", ProtocolBinding: a2ago.TransportProtocolHTTPJSON,
				ProtocolVersion: a2ago.Version}},
			DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
			Capabilities: a2ago.AgentCapabilities{Streaming: true}}
		mux := http.NewServeMux()
		mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(a2asrv.NewHandler(busyAgent{}, a2asrv.WithCallInterceptors(oneUser{})))))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
		srv.Config.Handler = mux
		return srv.URL
	}
	for name, start := range map[string]func(*testing.T) string{
		"JSON-RPC":  func(t *testing.T) string { return startSDKServer(t, busyAgent{}, nil) },
		"HTTP+JSON": rest,
	} {
		t.Run(name, func(t *testing.T) {
			s := startShim(t, start(t), nil, nil)
			s.init(t)
			m := s.prompt(t, s.newSession(t, "/tmp"), "hello")
			if m.Error == nil {
				t.Fatalf("want an error, got %s", m.Result)
			}
			if !strings.HasPrefix(m.Error.Message, "SDK Agent: ") || !strings.Contains(m.Error.Message, "the model is busy") ||
				!strings.Contains(m.Error.Message, "(UNSUPPORTED_OPERATION)") {
				t.Errorf("message %q", m.Error.Message)
			}
			var d struct {
				Reason string `json:"reason"`
			}
			_ = json.Unmarshal(m.Error.Data, &d)
			if d.Reason != "UNSUPPORTED_OPERATION" {
				t.Errorf("data %s", m.Error.Data)
			}
		})
	}
}
