package platform

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/a2a/auth/platform/helperwire"
	"github.com/shimdev/shim/internal/platformtest"
)

const testARN = "arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/shim_agent-Abc123XyZ9"

// escapedARN is testARN percent-encoded whole.
const escapedARN = "arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fshim_agent-Abc123XyZ9"

// TestResolve: what each console shows is read into the agent's base URL
// (the key of its token and threads), its cards in order and where calls
// go; auto names the platform from the host (and an ARN or a resource
// name), and leaves any other agent alone.
func TestResolve(t *testing.T) {
	const ac = "https://bedrock-agentcore.us-west-2.amazonaws.com/runtimes/" + escapedARN + "/invocations"
	const vx = "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p1/locations/us-central1/reasoningEngines/42"
	const ge = "https://discoveryengine.googleapis.com/v1/projects/123/locations/global/collections/default_collection/engines/e/assistants/default_assistant/agents/7"
	const fd = "https://acct.services.ai.azure.com/api/projects/proj/agents/helper/endpoint/protocols/a2a"
	const sn = "https://acme.service-now.com/api/sn_aia/a2a/v2/agent/id/0123abcd"
	for _, c := range []struct {
		name     Name
		raw      string
		platform Name
		url      string
		cards    []Card
		endpoint string
	}{
		{Auto, testARN, AgentCore, ac, []Card{{URL: ac + "/.well-known/agent-card.json"}}, ac + "/"},
		{Auto, ac + "/", AgentCore, ac, []Card{{URL: ac + "/.well-known/agent-card.json"}}, ac + "/"},
		{Auto, "https://bedrock-agentcore.us-west-2.amazonaws.com/runtimes/" + testARN + "/invocations?qualifier=prod", AgentCore, ac,
			[]Card{{URL: ac + "/.well-known/agent-card.json?qualifier=prod"}}, ac + "/?qualifier=prod"},
		{AgentCore, "http://127.0.0.1:9/runtimes/" + escapedARN + "/invocations/", AgentCore, "http://127.0.0.1:9/runtimes/" + escapedARN + "/invocations",
			[]Card{{URL: "http://127.0.0.1:9/runtimes/" + escapedARN + "/invocations/.well-known/agent-card.json"}},
			"http://127.0.0.1:9/runtimes/" + escapedARN + "/invocations/"},
		{Auto, vx, Vertex, vx + "/a2a", []Card{{URL: vx + "/a2a/v1/card", Dialect: a2a.V03}}, vx + "/a2a"},
		{Auto, vx + "/a2a/v1/card", Vertex, vx + "/a2a", []Card{{URL: vx + "/a2a/v1/card", Dialect: a2a.V03}}, vx + "/a2a"},
		{Auto, "projects/p1/locations/us-central1/reasoningEngines/42", Vertex, vx + "/a2a", []Card{{URL: vx + "/a2a/v1/card", Dialect: a2a.V03}}, vx + "/a2a"},
		{Auto, ge, GeminiEnterprise, ge + "/a2a", []Card{{URL: ge + "/a2a/v1/card", Dialect: a2a.V03}}, ge + "/a2a"},
		{Auto, strings.TrimPrefix(ge, "https://discoveryengine.googleapis.com/v1/"), GeminiEnterprise, ge + "/a2a",
			[]Card{{URL: ge + "/a2a/v1/card", Dialect: a2a.V03}}, ge + "/a2a"},
		{Auto, fd, Foundry, fd, []Card{{URL: fd + "/agentCard/v1.0", Dialect: a2a.V10}, {URL: fd + "/agentCard/v0.3", Dialect: a2a.V03}}, ""},
		{Auto, strings.TrimSuffix(fd, "/endpoint/protocols/a2a"), Foundry, fd,
			[]Card{{URL: fd + "/agentCard/v1.0", Dialect: a2a.V10}, {URL: fd + "/agentCard/v0.3", Dialect: a2a.V03}}, ""},
		{Auto, sn, ServiceNow, sn, []Card{{URL: "https://acme.service-now.com/api/sn_aia/a2a/v2/agent_card/id/0123abcd", Dialect: a2a.V03},
			{URL: "https://acme.service-now.com/api/sn_aia/a2a/id/0123abcd/well_known/agent_json", Dialect: a2a.V03}}, sn},
		{Auto, "https://acme.service-now.com/api/sn_aia/a2a/id/0123abcd/well_known/agent_json", ServiceNow, sn,
			[]Card{{URL: "https://acme.service-now.com/api/sn_aia/a2a/v2/agent_card/id/0123abcd", Dialect: a2a.V03},
				{URL: "https://acme.service-now.com/api/sn_aia/a2a/id/0123abcd/well_known/agent_json", Dialect: a2a.V03}}, sn},
	} {
		a, err := Resolve(c.name, c.raw, Options{})
		if err != nil {
			t.Errorf("%s %s: %v", c.name, c.raw, err)
			continue
		}
		if google := c.platform == Vertex || c.platform == GeminiEnterprise; google != (a.Codec == "protojson-0.3") {
			t.Errorf("%s %s: codec %q", c.name, c.raw, a.Codec)
		}
		if a.Platform != c.platform || a.URL != c.url || !reflect.DeepEqual(a.Cards, c.cards) || a.Endpoint != c.endpoint || a.Detected != (c.name == Auto) {
			t.Errorf("%s %s:\n got %s %s %v %q detected %v\nwant %s %s %v %q", c.name, c.raw, a.Platform, a.URL, a.Cards, a.Endpoint, a.Detected,
				c.platform, c.url, c.cards, c.endpoint)
		}
	}
	for _, raw := range []string{"https://agent.example", "http://127.0.0.1:7870", "https://example.com/runtimes/x/invocations"} {
		if a, err := Resolve(Auto, raw, Options{}); a != nil || err != nil {
			t.Errorf("auto %s: %v %v, want no platform", raw, a, err)
		}
	}
	if a, err := Resolve(None, testARN, Options{}); a != nil || err != nil {
		t.Errorf("none: %v %v", a, err)
	}
}

// TestResolveRefuses: a URL that names no agent of the platform named is
// an error saying what to give.
func TestResolveRefuses(t *testing.T) {
	for _, c := range []struct {
		name Name
		raw  string
		want string
	}{
		{AgentCore, "https://bedrock-agentcore.us-west-2.amazonaws.com/", "the runtime ARN"},
		{AgentCore, "arn:aws:s3:::bucket", "the runtime ARN"},
		{Vertex, "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p/locations/l", "reasoning engine"},
		{GeminiEnterprise, "projects/p/locations/global/collections/c", "the agent's URL"},
		{Foundry, "https://acct.services.ai.azure.com/api/projects/proj", "A2A URL"},
		{ServiceNow, "https://acme.service-now.com/now/nav/ui", "agent's A2A URL"},
	} {
		if a, err := Resolve(c.name, c.raw, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v %v, want an error saying %q", c.name, c.raw, a, err, c.want)
		}
	}
	if _, err := Resolve(Auto, "https://acme.service-now.com/now/nav", Options{}); err == nil || !strings.Contains(err.Error(), "--platform none") {
		t.Errorf("auto on a platform's host that names no agent: %v", err)
	}
	if _, err := Parse("aws"); err == nil {
		t.Error("Parse took an unknown platform")
	}
	if n, err := Parse(""); n != Auto || err != nil {
		t.Errorf("Parse(\"\") = %v %v", n, err)
	}
}

// TestFoundryCards: --a2a-version names the one card to read.
func TestFoundryCards(t *testing.T) {
	const fd = "https://acct.services.ai.azure.com/api/projects/proj/agents/helper/endpoint/protocols/a2a"
	for v, want := range map[string]string{"1.0": "/agentCard/v1.0", "0.3": "/agentCard/v0.3"} {
		a, err := Resolve(Foundry, fd, Options{Version: v})
		if err != nil || len(a.Cards) != 1 || !strings.HasSuffix(a.Cards[0].URL, want) {
			t.Errorf("--a2a-version %s: %v %v", v, a, err)
		}
	}
}

// TestRuntimeSession: an editor session's runtime session id is what
// AgentCore takes (33 to 256 characters, letters, digits and '-'), the
// same whenever it is derived, and another for another session.
func TestRuntimeSession(t *testing.T) {
	a, b := RuntimeSession("chat-zed-1796139441915-a54f0a"), RuntimeSession("chat-zed-1796139441915-a54f0b")
	if a == b || a != RuntimeSession("chat-zed-1796139441915-a54f0a") {
		t.Fatalf("%s %s", a, b)
	}
	if n := len(a); n < 33 || n > 256 || strings.Trim(a, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		t.Errorf("%q: %d characters", a, n)
	}
}

func awsTestEnv(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIASHIMTEST00000001", "AWS_SECRET_ACCESS_KEY": "shim+test/secret/0123456789ABCDEFGHIJKLMN",
		"AWS_SESSION_TOKEN": "shim-test-session-token-0123456789", "AWS_REGION": "eu-central-1",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "",
	} {
		t.Setenv(k, v)
	}
}

// TestAgentCoreSignature: a request the credential signed (aws-sdk-go-v2's
// signer, static keys from the environment) passes platformtest's SigV4
// verifier, which shares no code with it: service bedrock-agentcore, the
// region of the ARN (not AWS_REGION's), the ARN escaped in the path as
// sent, the body's hash, the runtime session header signed too. The
// session's id is derived from the editor session; requests of no
// session share another.
func TestAgentCoreSignature(t *testing.T) {
	awsTestEnv(t)
	v := &platformtest.SigV4Verifier{Service: AgentCoreService, Region: "us-west-2", Keys: map[string]platformtest.SigV4Key{
		"AKIASHIMTEST00000001": {Secret: "shim+test/secret/0123456789ABCDEFGHIJKLMN", SessionToken: "shim-test-session-token-0123456789"}}}
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		paths = append(paths, r.RequestURI)
		if err := v.Verify(r, body); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
		}
	}))
	defer srv.Close()
	a, err := Resolve(AgentCore, srv.URL+"/runtimes/"+testARN+"/invocations", Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := a.Credential(auth.New(auth.Options{}))
	sign := func(ctx context.Context, body []byte) *http.Request {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.Endpoint, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if err := src.Apply(req); err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		why, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("verifier: %s (path %s)", why, paths[len(paths)-1])
		}
		if p := paths[len(paths)-1]; p != "/runtimes/"+escapedARN+"/invocations/" {
			t.Errorf("sent to %s", p)
		}
		if !strings.Contains(req.Header.Get("Authorization"), "x-amzn-bedrock-agentcore-runtime-session-id") {
			t.Errorf("the session header is not signed: %s", req.Header.Get("Authorization"))
		}
		return req
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`)
	r1 := sign(a2a.WithSession(context.Background(), "chat-zed-1"), body)
	if got := r1.Header.Get(SessionHeader); got != RuntimeSession("chat-zed-1") {
		t.Errorf("session header %q", got)
	}
	r2, r3 := sign(context.Background(), nil), sign(context.Background(), nil)
	if id := r2.Header.Get(SessionHeader); id == r1.Header.Get(SessionHeader) || id != r3.Header.Get(SessionHeader) || len(id) < 33 {
		t.Errorf("no-session ids %q %q", id, r3.Header.Get(SessionHeader))
	}
	info, err := a.Ambient().Describe(context.Background())
	if err != nil || info.From != "AWS environment variables (AWS_ACCESS_KEY_ID), region us-west-2" || !info.Expiry.IsZero() {
		t.Errorf("describe: %+v %v", info, err)
	}
}

// TestLazy: resolving an agent and building its Credential read nothing: a
// Google credentials file that does not exist, an AWS profile that does
// not exist and an Entra authority that is not there fail only when a
// request needs the credential (and again at the next one), as a
// sign-in error saying what to run.
func TestLazy(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(dir, "missing.json"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "aws-credentials"))
	t.Setenv("AWS_PROFILE", "missing")
	t.Setenv("AZURE_TOKEN_CREDENTIALS", "EnvironmentCredential")
	t.Setenv("AZURE_TENANT_ID", "")
	for _, c := range []struct {
		name Name
		raw  string
		want string
	}{
		{AgentCore, testARN, "AWS_PROFILE"},
		{Vertex, "projects/p/locations/us-central1/reasoningEngines/1", "gcloud auth application-default login"},
		{Foundry, "https://acct.services.ai.azure.com/api/projects/p/agents/a/endpoint/protocols/a2a", "az login"},
	} {
		a, err := Resolve(c.name, c.raw, Options{})
		if err != nil {
			t.Fatal(err)
		}
		src := a.Credential(auth.New(auth.Options{}))
		if src.Check() != nil || src.Empty() {
			t.Errorf("%s: Check %v, Empty %v", c.name, src.Check(), src.Empty())
		}
		for range 2 {
			req, _ := http.NewRequest(http.MethodGet, a.Cards[0].URL, nil)
			err = src.Apply(req)
			var se *a2a.SignInError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want a sign-in error saying %q", c.name, err, c.want)
			}
		}
	}
}

// TestStoredWins: a stored token is sent instead of the platform's own
// credential, which is then never loaded; the platform's headers are put
// on all the same; a ServiceNow key goes in x-sn-apikey, and nothing at
// all without one.
func TestStoredWins(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "adc.json")
	if err := os.WriteFile(path, tokens.ServiceAccountJSON(t, "sa@p.iam.gserviceaccount.com", "p"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
	t.Setenv("GOOGLE_CLOUD_PROJECT", "env-project")
	a, _ := Resolve(GeminiEnterprise, "projects/1/locations/global/collections/c/engines/e/assistants/a/agents/7", Options{})
	req, _ := http.NewRequest(http.MethodGet, a.Cards[0].URL, nil)
	if err := a.Credential(auth.New(auth.Options{Token: "stored-token-0123456789"})).Apply(req); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Authorization") != "Bearer stored-token-0123456789" || req.Header.Get(QuotaProjectHeader) != "env-project" || len(tokens.Requests()) > 0 {
		t.Errorf("headers %v, token server asked %d times", req.Header, len(tokens.Requests()))
	}

	s, _ := Resolve(ServiceNow, "https://acme.service-now.com/api/sn_aia/a2a/v2/agent/id/1", Options{})
	for _, c := range []struct {
		stored string
		want   http.Header
	}{
		{"sn-key-0123456789", http.Header{"X-Sn-Apikey": {"sn-key-0123456789"}}},
		{"", http.Header{}},
	} {
		st := auth.New(auth.Options{Token: c.stored, Scheme: s.Scheme})
		st.SetSecurity(&a2a.Security{}) // the card's (bearer) does not change it
		req, _ := http.NewRequest(http.MethodGet, s.Cards[0].URL, nil)
		src := s.Credential(st)
		if !src.Empty() {
			if err := src.Apply(req); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(req.Header, c.want) {
			t.Errorf("stored %q: headers %v", c.stored, req.Header)
		}
	}
}

// TestGoogleQuotaProject: Gemini Enterprise's requests name the
// credentials' quota_project_id, else GOOGLE_CLOUD_PROJECT; with neither
// the request is not sent, and the error says how to set one. Vertex's
// need none.
func TestGoogleQuotaProject(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	const gename = "projects/1/locations/global/collections/c/engines/e/assistants/a/agents/7"
	for _, c := range []struct {
		name       Name
		file       []byte
		env, want  string
		wantErr    string
		wantHeader bool
	}{
		{GeminiEnterprise, tokens.AuthorizedUserJSON(t, "alice@example.com", "quota-p"), "env-p", "quota-p", "", true},
		{GeminiEnterprise, tokens.ServiceAccountJSON(t, "sa@p.iam.gserviceaccount.com", "p"), "env-p", "env-p", "", true},
		{GeminiEnterprise, tokens.ServiceAccountJSON(t, "sb@p.iam.gserviceaccount.com", "p"), "", "", "GOOGLE_CLOUD_PROJECT", false},
		{Vertex, tokens.AuthorizedUserJSON(t, "bob@example.com", "quota-p"), "", "", "", false},
	} {
		path := filepath.Join(t.TempDir(), "adc.json")
		if err := os.WriteFile(path, c.file, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
		t.Setenv("GOOGLE_CLOUD_PROJECT", c.env)
		raw := gename
		if c.name == Vertex {
			raw = "projects/p/locations/us-central1/reasoningEngines/1"
		}
		a, _ := Resolve(c.name, raw, Options{})
		req, _ := http.NewRequest(http.MethodGet, a.Cards[0].URL, nil)
		err := a.Credential(auth.New(auth.Options{})).Apply(req)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: %v, want an error naming %s", c.name, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case req.Header.Get(QuotaProjectHeader) != c.want || (req.Header.Get(QuotaProjectHeader) != "") != c.wantHeader:
			t.Errorf("%s: %s %q, want %q", c.name, QuotaProjectHeader, req.Header.Get(QuotaProjectHeader), c.want)
		case tokens.Token(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")) == nil:
			t.Errorf("%s: not a token the server issued: %q", c.name, req.Header.Get("Authorization"))
		}
	}
}

// TestAzureCredential: azidentity's default chain (its environment
// credential) gets a Foundry token from the Entra stand-in, with instance
// discovery off for an authority host that is not Microsoft's, and
// Describe names the credential the chain chose; the token is kept, not
// asked again, until shortly before it expires.
func TestAzureCredential(t *testing.T) {
	e := platformtest.StartEntra(t)
	app := e.AddApp("shim-secret-0123456789")
	for k, v := range map[string]string{"AZURE_TENANT_ID": "72f988bf-86f1-41af-91ab-2d7cd011db47", "AZURE_CLIENT_ID": app,
		"AZURE_CLIENT_SECRET": "shim-secret-0123456789", "AZURE_AUTHORITY_HOST": e.URL, "AZURE_CONFIG_DIR": t.TempDir(),
		"AZURE_TOKEN_CREDENTIALS": "EnvironmentCredential", "SSL_CERT_FILE": e.CertFile(t)} {
		t.Setenv(k, v)
	}
	a, _ := Resolve(Foundry, "https://acct.services.ai.azure.com/api/projects/p/agents/a/endpoint/protocols/a2a", Options{})
	info, err := a.Ambient().Describe(context.Background())
	if err != nil || info.From != "Azure environment variables (AZURE_CLIENT_ID)" || info.Expiry.IsZero() {
		t.Fatalf("describe: %+v %v", info, err)
	}
	n := len(e.Requests())
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, a.Cards[0].URL, nil)
		if err := a.Ambient().Apply(req); err != nil {
			t.Fatal(err)
		}
		if it := e.Token(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")); it == nil || it.Audience != "https://ai.azure.com" {
			t.Fatalf("token %+v", it)
		}
	}
	if len(e.Requests()) != n {
		t.Errorf("the token was asked again: %d requests after %d", len(e.Requests()), n)
	}
	for host, want := range map[string]bool{"https://login.microsoftonline.com": true, "https://login.microsoftonline.us/": true,
		e.URL: false, "https://login.example.com": false} {
		if helperwire.MicrosoftAuthority(host) != want {
			t.Errorf("MicrosoftAuthority(%s) = %v", host, !want)
		}
	}
}
