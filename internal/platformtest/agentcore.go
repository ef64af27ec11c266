package platformtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// AgentCoreSessionHeader carries the runtime session id on every request
// to an AgentCore runtime.
const AgentCoreSessionHeader = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"

// AgentCoreService is the SigV4 service name of the AgentCore data plane.
const AgentCoreService = "bedrock-agentcore"

// AgentCoreOptions configures a scripted AgentCore runtime.
type AgentCoreOptions struct {
	// Region, Account and RuntimeID make the runtime's ARN
	// (defaults us-west-2, 123456789012, shim_agent-Abc123XyZ9).
	Region, Account, RuntimeID string
	// Keys are the AWS credentials the runtime accepts (SigV4 mode).
	Keys map[string]SigV4Key
	// JWT, when set, makes it a runtime with a JWT authorizer: it takes
	// "Authorization: Bearer <one of these>" and refuses SigV4.
	JWT []string
	// Dialect is the A2A version of the container behind the runtime:
	// "0.3" (the default, as AWS's examples) or "1.0".
	Dialect string
	// Now is the SigV4 verifier's clock.
	Now func() time.Time
}

// AgentCore is a scripted Amazon Bedrock AgentCore Runtime data plane
// serving one A2A runtime. Its URL stands for
// https://bedrock-agentcore.<region>.amazonaws.com: the runtime answers at
// /runtimes/<ARN percent-encoded whole>/invocations/ (JSON-RPC, POST) and
// /runtimes/<ARN>/invocations/.well-known/agent-card.json (GET), checks the
// session header on every request, and the SigV4 signature (service
// bedrock-agentcore, the runtime's region, the path as sent) or, with a JWT
// authorizer, the bearer token. The card it serves is the container's:
// its url is the container's own address (http://0.0.0.0:9000/), which a
// client must not use.
type AgentCore struct {
	// URL is the data plane's base URL.
	URL    string
	ARN    string
	Region string
	Agent  *Agent

	opts     AgentCoreOptions
	verifier *SigV4Verifier
	card     http.Handler
	rpc      http.Handler
	recorder
}

// ContainerURL is the address an AgentCore container's card names itself
// by; it is reachable from nowhere but the container.
const ContainerURL = "http://0.0.0.0:9000/"

// StartAgentCore starts a scripted AgentCore runtime, closed when the test
// ends.
func StartAgentCore(t testing.TB, opts AgentCoreOptions) *AgentCore {
	t.Helper()
	if opts.Region == "" {
		opts.Region = "us-west-2"
	}
	if opts.Account == "" {
		opts.Account = "123456789012"
	}
	if opts.RuntimeID == "" {
		opts.RuntimeID = "shim_agent-Abc123XyZ9"
	}
	if opts.Dialect == "" {
		opts.Dialect = "0.3"
	}
	ac := &AgentCore{
		ARN:    fmt.Sprintf("arn:aws:bedrock-agentcore:%s:%s:runtime/%s", opts.Region, opts.Account, opts.RuntimeID),
		Region: opts.Region,
		Agent:  &Agent{},
		opts:   opts,
		verifier: &SigV4Verifier{Service: AgentCoreService, Region: opts.Region,
			Keys: opts.Keys, Now: opts.Now},
	}
	card := &a2a.AgentCard{Name: "AgentCore Agent", Description: "an A2A agent on AgentCore Runtime", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: ContainerURL, ProtocolBinding: a2a.TransportProtocolJSONRPC,
			ProtocolVersion: a2a.ProtocolVersion(opts.Dialect)}},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: true}}
	handler := newA2AHandler(ac.Agent)
	if opts.Dialect == "0.3" {
		ac.card = a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card))
		ac.rpc = a2av0.NewJSONRPCHandler(handler)
	} else {
		ac.card = a2asrv.NewStaticAgentCardHandler(card)
		ac.rpc = a2asrv.NewJSONRPCHandler(handler)
	}
	srv := httptest.NewServer(ac)
	t.Cleanup(srv.Close)
	ac.URL = srv.URL
	return ac
}

// EscapedARN is the ARN percent-encoded whole, ':' and '/' included.
func EscapedARN(arn string) string { return uriEncode(arn) }

// InvocationsURL is the runtime's A2A endpoint.
func (ac *AgentCore) InvocationsURL() string {
	return ac.URL + "/runtimes/" + EscapedARN(ac.ARN) + "/invocations/"
}

// CardURL is where the runtime's agent card is.
func (ac *AgentCore) CardURL() string {
	return ac.InvocationsURL() + ".well-known/agent-card.json"
}

// awsError answers as the AWS data plane does: the error type in
// x-amzn-ErrorType and a JSON message.
func awsError(status int, typ, msg string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-Errortype", typ)
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
	}
}

func (ac *AgentCore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := begin(w, r)
	defer x.end(&ac.recorder)
	seg, tail, ok := strings.Cut(strings.TrimPrefix(x.seen.Path, "/runtimes/"), "/")
	if !strings.HasPrefix(x.seen.Path, "/runtimes/") || !ok {
		x.refuse("not a runtime path", awsError(http.StatusNotFound, "UnknownOperationException", "Unknown operation"))
		return
	}
	if arn, err := url.PathUnescape(seg); err != nil || arn != ac.ARN {
		x.refuse("the path does not name the runtime's ARN percent-encoded whole",
			awsError(http.StatusNotFound, "ResourceNotFoundException", "No agent runtime found for "+seg))
		return
	}
	if strings.ContainsAny(seg, ":") {
		x.refuse("the ARN's ':' is not percent-encoded",
			awsError(http.StatusBadRequest, "ValidationException", "agentRuntimeArn must be URL-encoded"))
		return
	}
	var serve http.Handler
	switch {
	case (tail == "invocations/" || tail == "invocations") && r.Method == http.MethodPost:
		serve = ac.rpc
	case tail == "invocations/.well-known/agent-card.json" && r.Method == http.MethodGet:
		serve = ac.card
	default:
		x.refuse("no such operation: "+r.Method+" "+tail,
			awsError(http.StatusNotFound, "UnknownOperationException", "Unknown operation"))
		return
	}
	session := r.Header.Get(AgentCoreSessionHeader)
	if n := len(session); n < 33 || n > 256 {
		x.refuse(fmt.Sprintf("%s is %d characters, not 33 to 256", AgentCoreSessionHeader, n),
			awsError(http.StatusBadRequest, "ValidationException",
				"1 validation error detected: Value at 'runtimeSessionId' failed to satisfy constraint: Member must have length between 33 and 256"))
		return
	}
	if reason, respond := ac.authorize(r, x.seen.Body); reason != "" {
		x.refuse(reason, respond)
		return
	}
	x.w.Header().Set(AgentCoreSessionHeader, session)
	serve.ServeHTTP(x.w, r)
}

// authorize checks the request's credential; it returns why it fails and
// the platform's answer, or "".
func (ac *AgentCore) authorize(r *http.Request, body []byte) (string, func(http.ResponseWriter)) {
	auth := r.Header.Get("Authorization")
	sigv4 := strings.HasPrefix(auth, sigV4Algorithm)
	if len(ac.opts.JWT) > 0 {
		if sigv4 {
			return "SigV4 on a runtime with a JWT authorizer", awsError(http.StatusForbidden, "AccessDeniedException",
				"Authorization method mismatch. The agent is configured for a different authorization method than what was used in your request.")
		}
		tok := bearer(r.Header)
		for _, want := range ac.opts.JWT {
			if tok != "" && tok == want {
				return "", nil
			}
		}
		return "no valid bearer token", func(w http.ResponseWriter) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			awsError(http.StatusUnauthorized, "UnauthorizedException", "Invalid bearer token")(w)
		}
	}
	if auth != "" && !sigv4 {
		return "a bearer token on a SigV4 runtime", awsError(http.StatusForbidden, "AccessDeniedException",
			"Authorization method mismatch. The agent is configured for a different authorization method than what was used in your request.")
	}
	if err := ac.verifier.Verify(r, body); err != nil {
		se := err.(*SigV4Error)
		return "SigV4: " + se.Error(), awsError(http.StatusForbidden, se.Type, se.Message)
	}
	return "", nil
}
