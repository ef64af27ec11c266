package platformtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
)

// Test credentials: static keys in the environment, as AWS's default chain
// reads them first.
const (
	testAWSKey     = "AKIASHIMTEST00000001"
	testAWSSecret  = "shim+test/secret/0123456789ABCDEFGHIJKLMN"
	testAWSSession = "shim-test-session-token-0123456789"
	testSession    = "shim-session-0123456789abcdef0123456789" // 39 characters
)

// awsEnv points AWS's default credential chain at static test keys only:
// no shared config or credentials file of the machine, no instance
// metadata.
func awsEnv(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": testAWSKey, "AWS_SECRET_ACCESS_KEY": testAWSSecret,
		"AWS_SESSION_TOKEN": testAWSSession, "AWS_REGION": "us-west-2",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "",
	} {
		t.Setenv(k, v)
	}
}

// awsCreds loads credentials through aws-sdk-go-v2's default chain.
func awsCreds(t *testing.T) aws.Credentials {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if creds.Source != "EnvConfigCredentials" {
		t.Fatalf("credentials from %q, want the environment", creds.Source)
	}
	return creds
}

// signAWS signs req (whose body is body) with aws-sdk-go-v2's signer.
func signAWS(t *testing.T, req *http.Request, body []byte, service, region string) {
	t.Helper()
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), awsCreds(t), req, hex.EncodeToString(sum[:]),
		service, region, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func startTestAgentCore(t *testing.T, opts AgentCoreOptions) *AgentCore {
	awsEnv(t)
	if opts.Keys == nil && opts.JWT == nil {
		opts.Keys = map[string]SigV4Key{testAWSKey: {Secret: testAWSSecret, SessionToken: testAWSSession}}
	}
	return StartAgentCore(t, opts)
}

// agentCoreCall signs and sends one request the way a client following
// the documentation does.
func agentCoreCall(t *testing.T, ac *AgentCore, method, u string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req := newRequest(t, method, u, body)
	req.Header.Set(AgentCoreSessionHeader, testSession)
	signAWS(t, req, body, AgentCoreService, ac.Region)
	return send(t, nil, req)
}

// TestAgentCoreSignedCardAndStream: a request signed by aws-sdk-go-v2 from
// static keys in the environment (session token included) reads the card
// at <invocations>/.well-known/agent-card.json, whose url is the
// container's own address, and streams an answer from the invocations URL;
// the runtime saw the ARN percent-encoded whole and the session header on
// every request.
func TestAgentCoreSignedCardAndStream(t *testing.T) {
	ac := startTestAgentCore(t, AgentCoreOptions{})
	if want := "/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fshim_agent-Abc123XyZ9/invocations/"; !strings.HasSuffix(ac.InvocationsURL(), want) {
		t.Fatalf("invocations URL %s", ac.InvocationsURL())
	}
	res, body := agentCoreCall(t, ac, http.MethodGet, ac.CardURL(), nil)
	if res.StatusCode != 200 {
		t.Fatalf("card: %d %s", res.StatusCode, body)
	}
	if got := field(decode(t, body), "url"); got != ContainerURL {
		t.Errorf("card url %v, want the container's %s", got, ContainerURL)
	}
	if got := res.Header.Get(AgentCoreSessionHeader); got != testSession {
		t.Errorf("session header echoed %q", got)
	}

	b := rpcBody(t, "message/stream", map[string]any{"message": msg03("hello")})
	req := newRequest(t, http.MethodPost, ac.InvocationsURL(), b)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(AgentCoreSessionHeader, testSession)
	signAWS(t, req, b, AgentCoreService, ac.Region)
	res, body = send(t, nil, req)
	if res.StatusCode != 200 {
		t.Fatalf("stream: %d %s", res.StatusCode, body)
	}
	text, state := streamText03(t, sseData(t, body))
	if text != Answer("hello") || state != "completed" {
		t.Errorf("streamed %q ending %q", text, state)
	}
	seen := ac.Requests()
	if len(seen) != 2 {
		t.Fatalf("saw %d requests", len(seen))
	}
	for _, s := range seen {
		if s.Refused != "" || s.Header.Get(AgentCoreSessionHeader) != testSession ||
			!strings.Contains(s.Path, "arn%3Aaws%3Abedrock-agentcore") || s.Header.Get("X-Amz-Security-Token") != testAWSSession {
			t.Errorf("saw %+v", s)
		}
	}
}

// TestAgentCoreCancelAndPoll: a non-blocking send answers a working task,
// tasks/cancel cancels it, tasks/get reads it back canceled; a 1.0
// container also lists its tasks.
func TestAgentCoreCancelAndPoll(t *testing.T) {
	for _, dialect := range []string{"0.3", "1.0"} {
		t.Run(dialect, func(t *testing.T) {
			ac := startTestAgentCore(t, AgentCoreOptions{Dialect: dialect})
			send03 := func(method string, params any) map[string]any {
				t.Helper()
				if dialect == "1.0" {
					method = map[string]string{"message/send": "SendMessage", "tasks/cancel": "CancelTask", "tasks/get": "GetTask"}[method]
				}
				b := rpcBody(t, method, params)
				req := newRequest(t, http.MethodPost, ac.InvocationsURL(), b)
				req.Header.Set(AgentCoreSessionHeader, testSession)
				if dialect == "1.0" {
					req.Header.Set("A2A-Version", "1.0")
				}
				signAWS(t, req, b, AgentCoreService, ac.Region)
				res, body := send(t, nil, req)
				if res.StatusCode != 200 {
					t.Fatalf("%s: %d %s", method, res.StatusCode, body)
				}
				m := decode(t, body)
				if m["error"] != nil {
					t.Fatalf("%s: %s", method, body)
				}
				return m
			}
			var task any
			if dialect == "1.0" {
				task = field(send03("message/send", map[string]any{"message": msg10("wait " + HoldWord),
					"configuration": map[string]any{"returnImmediately": true}}), "result", "task")
			} else {
				task = field(send03("message/send", map[string]any{"message": msg03("wait " + HoldWord),
					"configuration": map[string]any{"blocking": false}}), "result")
			}
			id, _ := field(task, "id").(string)
			if st := field(task, "status", "state"); id == "" || (st != "working" && st != "TASK_STATE_WORKING") {
				t.Fatalf("non-blocking send answered %v", task)
			}
			canceled := field(send03("tasks/cancel", map[string]any{"id": id}), "result", "status", "state")
			got := field(send03("tasks/get", map[string]any{"id": id}), "result", "status", "state")
			for _, st := range []any{canceled, got} {
				if st != "canceled" && st != "TASK_STATE_CANCELED" {
					t.Errorf("after cancel: %v, %v", canceled, got)
				}
			}
			if dialect == "1.0" {
				b := rpcBody(t, "ListTasks", map[string]any{})
				req := newRequest(t, http.MethodPost, ac.InvocationsURL(), b)
				req.Header.Set(AgentCoreSessionHeader, testSession)
				req.Header.Set("A2A-Version", "1.0")
				signAWS(t, req, b, AgentCoreService, ac.Region)
				_, body := send(t, nil, req)
				tasks, _ := field(decode(t, body), "result", "tasks").([]any)
				if len(tasks) != 1 || field(tasks[0], "id") != id {
					t.Errorf("ListTasks: %s", body)
				}
			}
		})
	}
}

// TestAgentCoreRefusals: each documented check refuses a request that
// breaks it, with AWS's error type, and records why.
func TestAgentCoreRefusals(t *testing.T) {
	card := func(ac *AgentCore) string { return ac.CardURL() }
	cases := []struct {
		name    string
		build   func(t *testing.T, ac *AgentCore) *http.Request
		status  int
		errType string
	}{
		{"anonymous card", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, card(ac), nil)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			return req
		}, 403, "MissingAuthenticationTokenException"},
		{"wrong region", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, card(ac), nil)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, req, nil, AgentCoreService, "us-east-1")
			return req
		}, 403, "InvalidSignatureException"},
		{"wrong service", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, card(ac), nil)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, req, nil, "bedrock", ac.Region)
			return req
		}, 403, "InvalidSignatureException"},
		{"path signed unescaped, sent escaped", func(t *testing.T, ac *AgentCore) *http.Request {
			signed := newRequest(t, http.MethodGet, card(ac), nil)
			signed.URL.RawPath = "" // the signer sees the ARN's ':' and '/' unescaped
			signed.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, signed, nil, AgentCoreService, ac.Region)
			req := newRequest(t, http.MethodGet, card(ac), nil)
			req.Header = signed.Header
			return req
		}, 403, "InvalidSignatureException"},
		{"body changed after signing", func(t *testing.T, ac *AgentCore) *http.Request {
			b := rpcBody(t, "message/send", map[string]any{"message": msg03("a")})
			req := newRequest(t, http.MethodPost, ac.InvocationsURL(), rpcBody(t, "message/send", map[string]any{"message": msg03("b")}))
			req.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, req, b, AgentCoreService, ac.Region)
			return req
		}, 403, "InvalidSignatureException"},
		{"no session header", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, card(ac), nil)
			signAWS(t, req, nil, AgentCoreService, ac.Region)
			return req
		}, 400, "ValidationException"},
		{"session header of 32 characters", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, card(ac), nil)
			req.Header.Set(AgentCoreSessionHeader, strings.Repeat("s", 32))
			signAWS(t, req, nil, AgentCoreService, ac.Region)
			return req
		}, 400, "ValidationException"},
		{"ARN not escaped", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, ac.URL+"/runtimes/"+ac.ARN+"/invocations/.well-known/agent-card.json", nil)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, req, nil, AgentCoreService, ac.Region)
			return req
		}, 404, "ResourceNotFoundException"},
		{"ARN's ':' left unescaped", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, ac.URL+"/runtimes/"+strings.ReplaceAll(ac.ARN, "/", "%2F")+"/invocations/.well-known/agent-card.json", nil)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, req, nil, AgentCoreService, ac.Region)
			return req
		}, 400, "ValidationException"},
		{"bearer token on a SigV4 runtime", func(t *testing.T, ac *AgentCore) *http.Request {
			req := newRequest(t, http.MethodGet, card(ac), nil)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			req.Header.Set("Authorization", "Bearer some-token")
			return req
		}, 403, "AccessDeniedException"},
		{"JSON-RPC to the card's url path", func(t *testing.T, ac *AgentCore) *http.Request {
			b := rpcBody(t, "message/send", map[string]any{"message": msg03("a")})
			req := newRequest(t, http.MethodPost, ac.URL+"/", b)
			req.Header.Set(AgentCoreSessionHeader, testSession)
			signAWS(t, req, b, AgentCoreService, ac.Region)
			return req
		}, 404, "UnknownOperationException"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ac := startTestAgentCore(t, AgentCoreOptions{})
			res, body := send(t, nil, c.build(t, ac))
			if res.StatusCode != c.status || res.Header.Get("X-Amzn-Errortype") != c.errType {
				t.Fatalf("got %d %s %s, want %d %s", res.StatusCode, res.Header.Get("X-Amzn-Errortype"), body, c.status, c.errType)
			}
			seen := ac.Requests()
			if len(seen) != 1 || seen[0].Refused == "" || seen[0].Status != c.status {
				t.Errorf("recorded %+v", seen)
			}
		})
	}
}

// TestAgentCoreJWTAuthorizer: a runtime with a JWT authorizer takes its
// bearer token and refuses SigV4, no token, and another token.
func TestAgentCoreJWTAuthorizer(t *testing.T) {
	ac := startTestAgentCore(t, AgentCoreOptions{JWT: []string{"eyJ.good.token"}})
	try := func(auth func(*http.Request)) (*http.Response, []byte) {
		req := newRequest(t, http.MethodGet, ac.CardURL(), nil)
		req.Header.Set(AgentCoreSessionHeader, testSession)
		auth(req)
		return send(t, nil, req)
	}
	if res, body := try(func(r *http.Request) { r.Header.Set("Authorization", "Bearer eyJ.good.token") }); res.StatusCode != 200 {
		t.Fatalf("bearer: %d %s", res.StatusCode, body)
	}
	if res, _ := try(func(r *http.Request) { signAWS(t, r, nil, AgentCoreService, ac.Region) }); res.StatusCode != 403 ||
		res.Header.Get("X-Amzn-Errortype") != "AccessDeniedException" {
		t.Errorf("SigV4 on a JWT runtime: %d", res.StatusCode)
	}
	for name, auth := range map[string]func(*http.Request){
		"none":  func(*http.Request) {},
		"other": func(r *http.Request) { r.Header.Set("Authorization", "Bearer eyJ.other.token") },
	} {
		if res, _ := try(auth); res.StatusCode != 401 || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %d %q", name, res.StatusCode, res.Header.Get("WWW-Authenticate"))
		}
	}
}

// TestEscapedARN: the ARN is percent-encoded whole, as url.PathEscape
// would not (it leaves ':').
func TestEscapedARN(t *testing.T) {
	arn := "arn:aws:bedrock-agentcore:eu-central-1:123456789012:runtime/a_b-C1"
	got := EscapedARN(arn)
	if got != "arn%3Aaws%3Abedrock-agentcore%3Aeu-central-1%3A123456789012%3Aruntime%2Fa_b-C1" {
		t.Fatal(got)
	}
	if back, _ := url.PathUnescape(got); back != arn {
		t.Fatal(back)
	}
}
