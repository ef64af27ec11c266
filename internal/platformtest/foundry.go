package platformtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// FoundryOptions configures a scripted Foundry agent.
type FoundryOptions struct {
	// Entra is the authority whose tokens the agent takes (required).
	Entra *Entra
	// Project and Agent name the agent (defaults shim-project, shim-agent).
	Project, Agent string
	// Only03 makes an agent with A2A 1.0 not enabled: its agentCard/v1.0
	// and its 1.0 requests are refused, so a client falls back to 0.3.
	Only03 bool
}

// Foundry is a scripted Microsoft Foundry Agent Service agent with
// incoming A2A enabled. Its URL stands for
// https://<account>.services.ai.azure.com; the agent's A2A endpoint is
// Base = URL + /api/projects/<project>/agents/<agent>/endpoint/protocols/a2a,
// its cards <Base>/agentCard/v1.0 (A2A 1.0) and <Base>/agentCard/v0.3.
// JSON-RPC requests POST to Base: those with "A2A-Version: 1.0" are A2A
// 1.0, those without the header 0.3; version selectors that disagree (the
// header and the method's version, or the header and the card's) are
// refused. Every request needs an Entra access token the authority issued
// for https://ai.azure.com, unexpired.
type Foundry struct {
	URL, Base string
	Agent     *Agent

	opts   FoundryOptions
	card10 http.Handler
	card03 http.Handler
	rpc10  http.Handler
	rpc03  http.Handler
	recorder
}

// StartFoundry starts a scripted Foundry agent, closed when the test ends.
func StartFoundry(t testing.TB, opts FoundryOptions) *Foundry {
	t.Helper()
	if opts.Entra == nil {
		t.Fatal("platformtest: FoundryOptions.Entra is required")
	}
	if opts.Project == "" {
		opts.Project = "shim-project"
	}
	if opts.Agent == "" {
		opts.Agent = "shim-agent"
	}
	f := &Foundry{Agent: &Agent{}, opts: opts}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	f.Base = srv.URL + "/api/projects/" + opts.Project + "/agents/" + opts.Agent + "/endpoint/protocols/a2a"
	card := func(version a2a.ProtocolVersion) *a2a.AgentCard {
		return &a2a.AgentCard{Name: "Foundry Agent", Description: "a Foundry prompt agent", Version: "1",
			SupportedInterfaces: []*a2a.AgentInterface{{URL: f.Base, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: version}},
			DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
			Capabilities: a2a.AgentCapabilities{Streaming: true}}
	}
	handler := newA2AHandler(f.Agent)
	f.card10 = a2asrv.NewStaticAgentCardHandler(card(a2a.Version))
	f.card03 = a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card(a2av0.Version)))
	f.rpc10 = a2asrv.NewJSONRPCHandler(handler)
	f.rpc03 = a2av0.NewJSONRPCHandler(handler)
	return f
}

// CardURL is the agent's card of A2A version "1.0" or "0.3".
func (f *Foundry) CardURL(version string) string { return f.Base + "/agentCard/v" + version }

// azureError answers as Azure's data planes do.
func azureError(status int, code, msg string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", resource_id="https://ai.azure.com"`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	}
}

func (f *Foundry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := begin(w, r)
	defer x.end(&f.recorder)
	prefix := strings.TrimPrefix(f.Base, f.URL)
	rest, ok := strings.CutPrefix(x.seen.Path, prefix)
	if !ok {
		x.refuse("not the agent's A2A path", azureError(http.StatusNotFound, "NotFound", "Resource not found"))
		return
	}
	if reason := f.opts.Entra.check(bearer(r.Header), "https://ai.azure.com"); reason != "" {
		x.refuse(reason, azureError(http.StatusUnauthorized, "PermissionDenied",
			"The principal lacks a valid Microsoft Entra ID token for https://ai.azure.com: "+reason))
		return
	}
	header, hasHeader := r.Header.Get("A2A-Version"), len(r.Header.Values("A2A-Version")) > 0
	if hasHeader && header != "1.0" {
		x.refuse("A2A-Version "+header, azureError(http.StatusBadRequest, "UnsupportedProtocolVersion",
			"A2A-Version '"+header+"' is not supported: send 1.0, or no header for 0.3."))
		return
	}
	var serve http.Handler
	var version string
	switch {
	case r.Method == http.MethodGet && rest == "/agentCard/v1.0":
		serve, version = f.card10, "1.0"
	case r.Method == http.MethodGet && rest == "/agentCard/v0.3":
		serve, version = f.card03, "0.3"
	case r.Method == http.MethodPost && (rest == "" || rest == "/"):
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(x.seen.Body, &req)
		version = "1.0"
		if strings.Contains(req.Method, "/") {
			version = "0.3"
		}
		serve = map[string]http.Handler{"1.0": f.rpc10, "0.3": f.rpc03}[version]
		if want := map[bool]string{true: "1.0", false: "0.3"}[hasHeader]; want != version {
			x.refuse("conflicting version selectors: A2A-Version "+header+" with the "+version+" method "+req.Method,
				azureError(http.StatusBadRequest, "ConflictingProtocolVersion",
					"The request's A2A-Version header and its JSON-RPC method select different A2A versions."))
			return
		}
	default:
		x.refuse("no such route: "+r.Method+" "+rest, azureError(http.StatusNotFound, "NotFound", "Resource not found"))
		return
	}
	if hasHeader && version != "1.0" {
		x.refuse("conflicting version selectors: A2A-Version 1.0 on the 0.3 card", azureError(http.StatusBadRequest,
			"ConflictingProtocolVersion", "The request's A2A-Version header and its path select different A2A versions."))
		return
	}
	if version == "1.0" && f.opts.Only03 {
		x.refuse("A2A 1.0 is not enabled", azureError(http.StatusNotFound, "NotFound", "A2A protocol version 1.0 is not enabled for this agent."))
		return
	}
	serve.ServeHTTP(x.w, r)
}
