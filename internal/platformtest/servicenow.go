package platformtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// ServiceNowAPIKeyHeader carries a ServiceNow API key.
const ServiceNowAPIKeyHeader = "x-sn-apikey"

// ServiceNowOptions configures a scripted ServiceNow AI agent.
type ServiceNowOptions struct {
	// APIKeys are the API keys it takes in x-sn-apikey; Tokens the OAuth
	// bearer tokens it takes.
	APIKeys, Tokens []string
	// AgentID is the agent's sys_id (a 32-hex default).
	AgentID string
	// PollsToFinish is how many tasks/get of a task the answer of a
	// non-blocking send waits for (1 by default).
	PollsToFinish int
}

// ServiceNow is a scripted ServiceNow AI Agents instance exposing one AI
// agent over A2A 0.3 JSON-RPC. Its URL stands for
// https://<instance>.service-now.com: the agent answers JSON-RPC at
// /api/sn_aia/a2a/v2/agent/id/<agent id> and its card is at
// /api/sn_aia/a2a/v2/agent_card/id/<agent id> (and at the legacy
// /api/sn_aia/a2a/id/<agent id>/well_known/agent_json). Every request
// needs an API key in x-sn-apikey or a bearer token. It does not stream
// (message/stream and tasks/resubscribe are unsupported operations): a
// non-blocking message/send (configuration.blocking false) answers a
// working task whose answer completes once the task has been polled with
// tasks/get; a blocking one answers the completed task; tasks/cancel
// cancels.
type ServiceNow struct {
	URL, AgentID string
	Agent        *Agent

	opts  ServiceNowOptions
	card  http.Handler
	rpc   http.Handler
	mu    sync.Mutex
	polls map[string]int
	recorder
}

// StartServiceNow starts a scripted ServiceNow instance, closed when the
// test ends.
func StartServiceNow(t testing.TB, opts ServiceNowOptions) *ServiceNow {
	t.Helper()
	if opts.AgentID == "" {
		opts.AgentID = randomToken("", 16)
	}
	if opts.PollsToFinish == 0 {
		opts.PollsToFinish = 1
	}
	sn := &ServiceNow{AgentID: opts.AgentID, Agent: &Agent{gated: true}, opts: opts, polls: map[string]int{}}
	srv := httptest.NewServer(sn)
	t.Cleanup(srv.Close)
	sn.URL = srv.URL
	card := &a2a.AgentCard{Name: "ServiceNow AI Agent", Description: "a Now Assist AI agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: sn.Endpoint(), ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: false},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"apiKey": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: ServiceNowAPIKeyHeader},
			"oauth":  a2a.HTTPAuthSecurityScheme{Scheme: "bearer"},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{"apiKey": {}}, {"oauth": {}}}}
	sn.card = a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card))
	sn.rpc = a2av0.NewJSONRPCHandler(newA2AHandler(sn.Agent))
	return sn
}

// Endpoint is the agent's JSON-RPC endpoint.
func (sn *ServiceNow) Endpoint() string { return sn.URL + "/api/sn_aia/a2a/v2/agent/id/" + sn.AgentID }

// CardURL is the agent's card; LegacyCardURL the older one.
func (sn *ServiceNow) CardURL() string {
	return sn.URL + "/api/sn_aia/a2a/v2/agent_card/id/" + sn.AgentID
}

// LegacyCardURL is where older releases keep the card.
func (sn *ServiceNow) LegacyCardURL() string {
	return sn.URL + "/api/sn_aia/a2a/id/" + sn.AgentID + "/well_known/agent_json"
}

// snError answers as the ServiceNow REST API does.
func snError(status int, message, detail string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": message, "detail": detail}, "status": "failure"})
	}
}

// rpcError answers a JSON-RPC error (HTTP 200), as A2A servers do.
func rpcError(id json.RawMessage, code int, msg string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	}
}

func (sn *ServiceNow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := begin(w, r)
	defer x.end(&sn.recorder)
	path := sn.URL + x.seen.Path
	var card bool
	switch {
	case r.Method == http.MethodGet && (path == sn.CardURL() || path == sn.LegacyCardURL()):
		card = true
	case r.Method == http.MethodPost && path == sn.Endpoint():
	default:
		x.refuse("no such route", snError(http.StatusBadRequest, "Requested URI does not represent any resource", "no route for "+r.Method+" "+x.seen.Path))
		return
	}
	if !sn.authorized(r) {
		x.refuse("no valid API key or bearer token", snError(http.StatusUnauthorized, "User Not Authenticated", "Required to provide Auth information"))
		return
	}
	if card {
		sn.card.ServeHTTP(x.w, r)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID            string `json:"id"`
			Configuration *struct {
				Blocking *bool `json:"blocking"`
			} `json:"configuration"`
		} `json:"params"`
	}
	_ = json.Unmarshal(x.seen.Body, &req)
	switch req.Method {
	case "message/stream", "tasks/resubscribe":
		x.refuse("streaming is not supported", rpcError(req.ID, -32004, "Streaming is not supported"))
		return
	case "message/send":
		if c := req.Params.Configuration; c == nil || c.Blocking == nil || *c.Blocking {
			r.Header.Set(answerNowParam, "1")
		} else {
			r.Header.Del(answerNowParam)
		}
	case "tasks/get":
		sn.mu.Lock()
		sn.polls[req.Params.ID]++
		n := sn.polls[req.Params.ID]
		sn.mu.Unlock()
		if n >= sn.opts.PollsToFinish {
			sn.Agent.release(a2a.TaskID(req.Params.ID))
		}
	}
	sn.rpc.ServeHTTP(x.w, r)
}

func (sn *ServiceNow) authorized(r *http.Request) bool {
	if key := r.Header.Get(ServiceNowAPIKeyHeader); key != "" {
		for _, k := range sn.opts.APIKeys {
			if key == k {
				return true
			}
		}
		return false
	}
	tok := bearer(r.Header)
	for _, k := range sn.opts.Tokens {
		if tok != "" && tok == k {
			return true
		}
	}
	return false
}
