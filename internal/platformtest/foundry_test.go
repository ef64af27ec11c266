package platformtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

const testTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

// azureEnv points azidentity's environment credential at the loopback
// authority, with no Azure CLI configuration of the machine around, and
// narrows the default chain to it (so no managed identity endpoint is
// probed).
func azureEnv(t *testing.T, e *Entra, client, secret string) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AZURE_TENANT_ID": testTenant, "AZURE_CLIENT_ID": client, "AZURE_CLIENT_SECRET": secret,
		"AZURE_AUTHORITY_HOST": e.URL, "AZURE_TOKEN_CREDENTIALS": "EnvironmentCredential",
		"AZURE_CONFIG_DIR": filepath.Join(dir, "az"), "AZURE_CLIENT_CERTIFICATE_PATH": "", "AZURE_USERNAME": "",
		"AZURE_FEDERATED_TOKEN_FILE": "",
	} {
		t.Setenv(k, v)
	}
}

// azureDefault gets a Foundry token from azidentity's default chain.
func azureDefault(t *testing.T, e *Entra) (azcore.AccessToken, error) {
	t.Helper()
	cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{
		ClientOptions: azcore.ClientOptions{Transport: e.Client}, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	return cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{FoundryScope}})
}

// TestEntraWithAzidentity: azidentity's default chain (its environment
// credential: tenant, client id and secret, authority host) and a
// ClientSecretCredential with a custom cloud get a Foundry token with an
// expiry from the loopback authority over TLS; a wrong secret is refused
// with Entra's AADSTS code.
func TestEntraWithAzidentity(t *testing.T) {
	e := StartEntra(t)
	app := e.AddApp("shim-secret-0123")
	azureEnv(t, e, app, "shim-secret-0123")
	tok, err := azureDefault(t, e)
	if err != nil {
		t.Fatal(err)
	}
	if until := time.Until(tok.ExpiresOn); until < 50*time.Minute || until > time.Hour+time.Minute {
		t.Errorf("expires in %s", until)
	}
	if it := e.Token(tok.Token); it == nil || it.Audience != "https://ai.azure.com" || it.ClientID != app || it.Tenant != testTenant {
		t.Fatalf("issued %+v", it)
	}
	var paths []string
	for _, s := range e.Requests() {
		paths = append(paths, s.Method+" "+s.Path)
	}
	if want := []string{"GET /" + testTenant + "/v2.0/.well-known/openid-configuration", "POST /" + testTenant + "/oauth2/v2.0/token"}; strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("saw %v", paths)
	}

	cred, err := azidentity.NewClientSecretCredential(testTenant, app, "shim-secret-0123", &azidentity.ClientSecretCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: e.URL + "/"}, Transport: e.Client},
		DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{FoundryScope}}); err != nil || e.Token(tok.Token) == nil {
		t.Fatalf("client secret credential: %v", err)
	}

	azureEnv(t, e, app, "wrong")
	if _, err := azureDefault(t, e); err == nil || !strings.Contains(err.Error(), "AADSTS7000215") {
		t.Errorf("wrong secret: %v", err)
	}
}

// TestEntraDeviceCode: azidentity's DeviceCodeCredential reads the
// device authorization answer (the user code), polls while the sign-in is
// pending, and gets a Foundry token once the person approved it.
func TestEntraDeviceCode(t *testing.T) {
	e := StartEntra(t)
	client := e.AddPublicClient()
	var prompted string
	cred, err := azidentity.NewDeviceCodeCredential(&azidentity.DeviceCodeCredentialOptions{
		TenantID: testTenant, ClientID: client, DisableInstanceDiscovery: true,
		ClientOptions: azcore.ClientOptions{Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: e.URL + "/"}, Transport: e.Client},
		UserPrompt: func(_ context.Context, m azidentity.DeviceCodeMessage) error {
			prompted = m.Message
			// A poll before the approval is answered authorization_pending.
			res, err := e.Client.PostForm(e.URL+"/"+testTenant+"/oauth2/v2.0/token", url.Values{"grant_type": {deviceCodeGrant},
				"client_id": {client}, "device_code": {e.pendingCode(m.UserCode)}})
			if err != nil {
				return err
			}
			var body map[string]any
			_ = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if body["error"] != "authorization_pending" {
				t.Errorf("before approval: %v", body)
			}
			return e.Approve(m.UserCode)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{FoundryScope}})
	if err != nil {
		for _, s := range e.Requests() {
			t.Logf("%s %s %d %q %s", s.Method, s.Path, s.Status, s.Refused, s.Body)
		}
		t.Fatal(err)
	}
	if !strings.Contains(prompted, "https://microsoft.com/devicelogin") {
		t.Errorf("prompt %q", prompted)
	}
	if it := e.Token(tok.Token); it == nil || it.Subject != "alice@contoso.example" || it.Audience != "https://ai.azure.com" {
		t.Fatalf("issued %+v", it)
	}
	f := StartFoundry(t, FoundryOptions{Entra: e})
	res, body := send(t, nil, authed(t, http.MethodGet, f.CardURL("1.0"), nil, tok.Token))
	if res.StatusCode != 200 {
		t.Fatalf("card with a device-code token: %d %s", res.StatusCode, body)
	}
}

// pendingCode is the device code of a pending sign-in (for the test that
// polls by hand).
func (e *Entra) pendingCode(userCode string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	for code, d := range e.devices {
		if d.userCode == userCode {
			return code
		}
	}
	return ""
}

// authed is a request with a bearer token.
func authed(t *testing.T, method, u string, body []byte, token string) *http.Request {
	req := newRequest(t, method, u, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// foundryToken is an Entra token for Foundry from the default chain.
func foundryToken(t *testing.T, e *Entra) string {
	t.Helper()
	app := e.AddApp("s3cret-for-foundry")
	azureEnv(t, e, app, "s3cret-for-foundry")
	tok, err := azureDefault(t, e)
	if err != nil {
		t.Fatal(err)
	}
	return tok.Token
}

// TestFoundry: with an Entra token from azidentity, the 1.0 card at
// agentCard/v1.0 names the A2A endpoint, a 1.0 request (A2A-Version: 1.0)
// streams an answer, a 0.3 request (no header) is answered in 0.3, a held
// task is canceled, and the agent lists its tasks.
func TestFoundry(t *testing.T) {
	e := StartEntra(t)
	tok := foundryToken(t, e)
	f := StartFoundry(t, FoundryOptions{Entra: e})
	if !strings.HasSuffix(f.Base, "/api/projects/shim-project/agents/shim-agent/endpoint/protocols/a2a") {
		t.Fatalf("base %s", f.Base)
	}
	req := authed(t, http.MethodGet, f.CardURL("1.0"), nil, tok)
	req.Header.Set("A2A-Version", "1.0")
	res, body := send(t, nil, req)
	ifaces, _ := field(decode(t, body), "supportedInterfaces").([]any)
	if res.StatusCode != 200 || len(ifaces) != 1 || field(ifaces[0], "url") != f.Base || field(ifaces[0], "protocolVersion") != "1.0" {
		t.Fatalf("card %d %s", res.StatusCode, body)
	}

	rpc10 := func(method string, params any) (*http.Response, []byte) {
		req := authed(t, http.MethodPost, f.Base, rpcBody(t, method, params), tok)
		req.Header.Set("A2A-Version", "1.0")
		return send(t, nil, req)
	}
	res, body = rpc10("SendStreamingMessage", map[string]any{"message": msg10("hi")})
	var text, state string
	for _, ev := range sseData(t, body) {
		r := field(decode(t, ev), "result")
		if p, ok := field(r, "artifactUpdate", "artifact", "parts").([]any); ok {
			text += partsText(p)
		}
		if s, ok := field(r, "statusUpdate", "status", "state").(string); ok {
			state = s
		}
	}
	if res.StatusCode != 200 || text != Answer("hi") || state != "TASK_STATE_COMPLETED" {
		t.Fatalf("1.0 stream %d %q %q %s", res.StatusCode, text, state, body)
	}

	res, body = send(t, nil, authed(t, http.MethodPost, f.Base, rpcBody(t, "message/send", map[string]any{"message": msg03("old")}), tok))
	if res.StatusCode != 200 || field(decode(t, body), "result", "status", "state") != "completed" {
		t.Fatalf("0.3 send %d %s", res.StatusCode, body)
	}

	_, body = rpc10("SendMessage", map[string]any{"message": msg10(HoldWord), "configuration": map[string]any{"returnImmediately": true}})
	id, _ := field(decode(t, body), "result", "task", "id").(string)
	_, body = rpc10("CancelTask", map[string]any{"id": id})
	if field(decode(t, body), "result", "status", "state") != "TASK_STATE_CANCELED" {
		t.Fatalf("cancel %s", body)
	}
	_, body = rpc10("ListTasks", map[string]any{})
	if tasks, _ := field(decode(t, body), "result", "tasks").([]any); len(tasks) != 3 {
		t.Errorf("ListTasks: %s", body)
	}
}

// TestFoundryFallback: an agent without A2A 1.0 refuses agentCard/v1.0
// and 1.0 requests; agentCard/v0.3 and 0.3 requests work.
func TestFoundryFallback(t *testing.T) {
	e := StartEntra(t)
	tok := foundryToken(t, e)
	f := StartFoundry(t, FoundryOptions{Entra: e, Only03: true})
	if res, _ := send(t, nil, authed(t, http.MethodGet, f.CardURL("1.0"), nil, tok)); res.StatusCode != 404 {
		t.Fatalf("v1.0 card: %d", res.StatusCode)
	}
	res, body := send(t, nil, authed(t, http.MethodGet, f.CardURL("0.3"), nil, tok))
	if m := decode(t, body); res.StatusCode != 200 || m["url"] != f.Base || m["protocolVersion"] != "0.3" {
		t.Fatalf("v0.3 card %d %s", res.StatusCode, body)
	}
	res, body = send(t, nil, authed(t, http.MethodPost, f.Base, rpcBody(t, "message/send", map[string]any{"message": msg03("hi")}), tok))
	if res.StatusCode != 200 || field(decode(t, body), "result", "status", "state") != "completed" {
		t.Fatalf("0.3 send %d %s", res.StatusCode, body)
	}
	req := authed(t, http.MethodPost, f.Base, rpcBody(t, "SendMessage", map[string]any{"message": msg10("hi")}), tok)
	req.Header.Set("A2A-Version", "1.0")
	if res, _ := send(t, nil, req); res.StatusCode != 404 {
		t.Errorf("1.0 request: %d", res.StatusCode)
	}
}

// TestFoundryRefusals: an anonymous card, a token for another resource,
// an expired or unknown token, and conflicting version selectors are
// refused.
func TestFoundryRefusals(t *testing.T) {
	e := StartEntra(t)
	tok := foundryToken(t, e)
	mgmt, err := azidentity.NewClientSecretCredential(testTenant, e.AddApp("m"), "m", &azidentity.ClientSecretCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: e.URL + "/"}, Transport: e.Client},
		DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := mgmt.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
	if err != nil {
		t.Fatal(err)
	}
	f := StartFoundry(t, FoundryOptions{Entra: e})
	cases := []struct {
		name, method, url string
		body              []byte
		token, version    string
		status            int
	}{
		{"anonymous card", "GET", f.CardURL("1.0"), nil, "", "", 401},
		{"token for another resource", "GET", f.CardURL("1.0"), nil, other.Token, "", 401},
		{"unknown token", "GET", f.CardURL("1.0"), nil, "eyJ.made.up", "", 401},
		{"A2A-Version 1.0 on the 0.3 card", "GET", f.CardURL("0.3"), nil, tok, "1.0", 400},
		{"A2A-Version 0.3", "GET", f.CardURL("0.3"), nil, tok, "0.3", 400},
		{"A2A-Version 1.0 with a 0.3 method", "POST", f.Base, rpcBody(t, "message/send", map[string]any{"message": msg03("x")}), tok, "1.0", 400},
		{"a 1.0 method without A2A-Version", "POST", f.Base, rpcBody(t, "SendMessage", map[string]any{"message": msg10("x")}), tok, "", 400},
		{"another agent's path", "GET", f.URL + "/api/projects/shim-project/agents/other/endpoint/protocols/a2a/agentCard/v1.0", nil, tok, "", 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := authed(t, c.method, c.url, c.body, c.token)
			if c.version != "" {
				req.Header.Set("A2A-Version", c.version)
			}
			res, body := send(t, nil, req)
			if res.StatusCode != c.status || field(decode(t, body), "error", "code") == nil {
				t.Fatalf("got %d %s, want %d", res.StatusCode, body, c.status)
			}
		})
	}
	e.ExpireAll()
	if res, _ := send(t, nil, authed(t, http.MethodGet, f.CardURL("1.0"), nil, tok)); res.StatusCode != 401 {
		t.Errorf("expired token: %d", res.StatusCode)
	}
	for _, s := range f.Requests() {
		if s.Status >= 400 && s.Refused == "" {
			t.Errorf("refused without a reason: %+v", s)
		}
	}
}
