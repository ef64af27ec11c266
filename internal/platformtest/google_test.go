package platformtest

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

const testSAEmail = "shim-test@shim-proj.iam.gserviceaccount.com"

// adcFile writes a credentials JSON where Application Default
// Credentials look first (GOOGLE_APPLICATION_CREDENTIALS), with no gcloud
// configuration of the machine around.
func adcFile(t *testing.T, content []byte) {
	dir := t.TempDir()
	path := filepath.Join(dir, "adc.json")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
	t.Setenv("CLOUDSDK_CONFIG", filepath.Join(dir, "gcloud"))
	t.Setenv("GOOGLE_CLOUD_PROJECT", "")
}

// adc finds Application Default Credentials with golang.org/x/oauth2/google.
func adc(t *testing.T, scopes ...string) *google.Credentials {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{CloudPlatformScope}
	}
	creds, err := google.FindDefaultCredentials(context.Background(), scopes...)
	if err != nil {
		t.Fatal(err)
	}
	return creds
}

// TestGoogleTokenServerWithADC: ADC from a service-account JSON whose
// token_uri is the loopback server gets an access token with an expiry by
// the JWT bearer grant; ADC from an authorized-user JSON gets one by its
// refresh token. The server knows whom and which scope it issued each for.
func TestGoogleTokenServerWithADC(t *testing.T) {
	g := StartGoogleTokenServer(t)
	adcFile(t, g.ServiceAccountJSON(t, testSAEmail, "shim-proj"))
	tok, err := adc(t).TokenSource.Token()
	if err != nil {
		t.Fatal(err)
	}
	if until := time.Until(tok.Expiry); until < 50*time.Minute || until > time.Hour {
		t.Errorf("expiry in %s", until)
	}
	it := g.Token(tok.AccessToken)
	if it == nil || it.Subject != testSAEmail || it.ID || len(it.Scopes) != 1 || it.Scopes[0] != CloudPlatformScope {
		t.Fatalf("issued %+v", it)
	}
	seen := g.Requests()
	if len(seen) != 1 || !strings.Contains(string(seen[0].Body), "grant_type="+url.QueryEscape(jwtBearerGrant)) {
		t.Errorf("saw %+v", seen)
	}

	adcFile(t, g.AuthorizedUserJSON(t, "alice@example.com", "shim-quota"))
	tok, err = adc(t).TokenSource.Token()
	if err != nil {
		t.Fatal(err)
	}
	if it := g.Token(tok.AccessToken); it == nil || it.Subject != "alice@example.com" {
		t.Fatalf("user token %+v", it)
	}
}

// saKey is the private key of a service-account JSON.
func saKey(t *testing.T, sa []byte) (*rsa.PrivateKey, string) {
	t.Helper()
	var f struct {
		PrivateKey   string `json:"private_key"`
		PrivateKeyID string `json:"private_key_id"`
	}
	if err := json.Unmarshal(sa, &f); err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(f.PrivateKey))
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(*rsa.PrivateKey), f.PrivateKeyID
}

// claimSet is a service account's assertion as oauth2/google makes it.
type claimSet struct {
	Iss            string `json:"iss"`
	Scope          string `json:"scope,omitempty"`
	Aud            string `json:"aud"`
	Exp            int64  `json:"exp"`
	Iat            int64  `json:"iat"`
	TargetAudience string `json:"target_audience,omitempty"`
}

// postAssertion sends a JWT bearer assertion signed with go-jose.
func postAssertion(t *testing.T, g *GoogleTokenServer, key *rsa.PrivateKey, kid string, claims *claimSet) (*http.Response, map[string]any) {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	a, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.PostForm(g.TokenURL(), url.Values{"grant_type": {jwtBearerGrant}, "assertion": {a}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res, m
}

// TestGoogleTokenServerRefusesBadAssertions: an assertion the documented
// checks refuse gets Google's invalid_grant (or invalid_scope), and no
// token.
func TestGoogleTokenServerRefusesBadAssertions(t *testing.T) {
	g := StartGoogleTokenServer(t)
	key, kid := saKey(t, g.ServiceAccountJSON(t, testSAEmail, "p"))
	other, _ := saKey(t, StartGoogleTokenServer(t).ServiceAccountJSON(t, testSAEmail, "p"))
	now := time.Now().Unix()
	good := func() *claimSet {
		return &claimSet{Iss: testSAEmail, Scope: CloudPlatformScope, Aud: g.TokenURL(), Iat: now, Exp: now + 3600}
	}
	if res, m := postAssertion(t, g, key, kid, good()); res.StatusCode != 200 || m["access_token"] == nil {
		t.Fatalf("good assertion: %d %v", res.StatusCode, m)
	}
	cases := []struct {
		name  string
		key   *rsa.PrivateKey
		kid   string
		edit  func(c *claimSet)
		error string
	}{
		{"signed with another key", other, kid, func(*claimSet) {}, "invalid_grant"},
		{"another key id", key, "0123", func(*claimSet) {}, "invalid_grant"},
		{"unknown account", key, kid, func(c *claimSet) { c.Iss = "who@else.iam.gserviceaccount.com" }, "invalid_grant"},
		{"aud is not the token endpoint", key, kid, func(c *claimSet) { c.Aud = "https://oauth2.googleapis.com/token" }, "invalid_grant"},
		{"expired", key, kid, func(c *claimSet) { c.Iat, c.Exp = now-7200, now-3600 }, "invalid_grant"},
		{"longer than an hour", key, kid, func(c *claimSet) { c.Exp = now + 7200 }, "invalid_grant"},
		{"no scope", key, kid, func(c *claimSet) { c.Scope = "" }, "invalid_scope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			claims := good()
			c.edit(claims)
			res, m := postAssertion(t, g, c.key, c.kid, claims)
			if res.StatusCode != 400 || m["error"] != c.error || m["access_token"] != nil {
				t.Fatalf("got %d %v", res.StatusCode, m)
			}
		})
	}
}

// googleSend is a 0.3 ProtoJSON SendMessageRequest.
func googleSend(text string, blocking bool) []byte {
	b, _ := json.Marshal(map[string]any{
		"message":       map[string]any{"messageId": randomToken("m-", 8), "role": "ROLE_USER", "content": []any{map[string]any{"text": text}}},
		"configuration": map[string]any{"blocking": blocking},
	})
	return b
}

// googleCall sends one request with client (an oauth2 client from ADC, or
// a plain one) and decodes the JSON answer.
func googleCall(t *testing.T, client *http.Client, method, u string, body []byte, header map[string]string) (*http.Response, map[string]any, []byte) {
	t.Helper()
	req := newRequest(t, method, u, body)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, b := send(t, client, req)
	var m map[string]any
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		m = decode(t, b)
	}
	return res, m, b
}

// partsText joins the text of decoded parts.
func partsText(parts any) string {
	var s string
	ps, _ := parts.([]any)
	for _, p := range ps {
		t, _ := field(p, "text").(string)
		s += t
	}
	return s
}

// streamTextProto joins the artifact text of a stream of 0.3 ProtoJSON
// StreamResponses and returns it with the last state seen.
func streamTextProto(t *testing.T, events []json.RawMessage) (text, state string) {
	t.Helper()
	for _, ev := range events {
		m := decode(t, ev)
		if a := field(m, "artifactUpdate", "artifact", "parts"); a != nil {
			for _, p := range a.([]any) {
				text += field(p, "text").(string)
			}
		}
		if s, ok := field(m, "statusUpdate", "status", "state").(string); ok {
			state = s
		}
		if s, ok := field(m, "task", "status", "state").(string); ok {
			state = s
		}
	}
	return text, state
}

// TestVertexWithADC: with a token golang.org/x/oauth2/google gets from
// ADC, Vertex AI Agent Engine's A2A routes answer in the ProtoJSON of the
// 0.3 proto: the card, a blocking send wrapped as {"task": …}, a streamed
// answer, a held task canceled and read back with its history, whose
// user message has "content" and ROLE_USER.
func TestVertexWithADC(t *testing.T) {
	g := StartGoogleTokenServer(t)
	adcFile(t, g.ServiceAccountJSON(t, testSAEmail, "shim-proj"))
	v := StartVertex(t, GoogleOptions{Tokens: g})
	if !strings.HasSuffix(v.Base, "/v1beta1/projects/123456789012/locations/us-central1/reasoningEngines/7261528349104857088/a2a") {
		t.Fatalf("base %s", v.Base)
	}
	client := oauth2.NewClient(context.Background(), adc(t).TokenSource)

	res, card, raw := googleCall(t, client, http.MethodGet, v.Base+"/v1/card", nil, nil)
	if res.StatusCode != 200 || card["url"] != v.Base || card["preferredTransport"] != "HTTP+JSON" || card["protocolVersion"] != "0.3" {
		t.Fatalf("card %d %s", res.StatusCode, raw)
	}

	vertexSendAndStream(t, client, v.Base)
	vertexCancelHeld(t, client, v.Base)
	for _, s := range v.Requests() {
		if s.Refused != "" || !strings.HasPrefix(s.Header.Get("Authorization"), "Bearer ya29.") {
			t.Errorf("saw %+v", s)
		}
	}
}

// vertexSendAndStream: a blocking send wrapped as {"task": …} and a
// streamed answer, through client.
func vertexSendAndStream(t *testing.T, client *http.Client, base string) {
	t.Helper()
	res, m, raw := googleCall(t, client, http.MethodPost, base+"/v1/message:send", googleSend("hi", true), nil)
	if res.StatusCode != 200 || field(m, "task", "status", "state") != "TASK_STATE_COMPLETED" {
		t.Fatalf("send %d %s", res.StatusCode, raw)
	}
	if got := field(m, "task", "artifacts").([]any); len(got) != 1 || partsText(field(got[0], "parts")) != Answer("hi") {
		t.Errorf("artifacts %v", got)
	}

	res, _, raw = googleCall(t, client, http.MethodPost, base+"/v1/message:stream", googleSend("stream me", false),
		map[string]string{"Accept": "text/event-stream"})
	events := sseData(t, raw)
	if text, state := streamTextProto(t, events); res.StatusCode != 200 || text != Answer("stream me") || state != "TASK_STATE_COMPLETED" {
		t.Fatalf("stream %d %q %q: %s", res.StatusCode, text, state, raw)
	}
	if first := decode(t, events[0]); first["task"] == nil {
		t.Errorf("first event %s, want a task", events[0])
	}
}

// vertexCancelHeld: a held task canceled and read back with its history,
// whose user message has "content" and ROLE_USER.
func vertexCancelHeld(t *testing.T, client *http.Client, base string) {
	t.Helper()
	_, m, raw := googleCall(t, client, http.MethodPost, base+"/v1/message:send", googleSend("wait "+HoldWord, false), nil)
	id, _ := field(m, "task", "id").(string)
	if id == "" || field(m, "task", "status", "state") != "TASK_STATE_WORKING" {
		t.Fatalf("held send %s", raw)
	}
	res, m, raw := googleCall(t, client, http.MethodPost, base+"/v1/tasks/"+id+":cancel", nil, nil)
	if res.StatusCode != 200 || field(m, "status", "state") != "TASK_STATE_CANCELLED" {
		t.Fatalf("cancel %d %s", res.StatusCode, raw)
	}
	res, m, raw = googleCall(t, client, http.MethodGet, base+"/v1/tasks/"+id+"?historyLength=10", nil, nil)
	hist, _ := m["history"].([]any)
	if res.StatusCode != 200 || field(m, "status", "state") != "TASK_STATE_CANCELLED" || len(hist) == 0 ||
		field(hist[0], "role") != "ROLE_USER" || field(hist[0], "content") == nil {
		t.Fatalf("get %d %s", res.StatusCode, raw)
	}
}

// TestVertexRenewal: tokens that expire within the library's margin are
// renewed by it; the platform takes each, and refuses them once expired.
func TestVertexRenewal(t *testing.T) {
	g := StartGoogleTokenServer(t)
	g.Lifetime = 5 * time.Second // inside oauth2's 10 s margin: every call renews
	adcFile(t, g.ServiceAccountJSON(t, testSAEmail, "shim-proj"))
	v := StartVertex(t, GoogleOptions{Tokens: g})
	client := oauth2.NewClient(context.Background(), adc(t).TokenSource)
	for range 2 {
		if res, _, raw := googleCall(t, client, http.MethodGet, v.Base+"/v1/card", nil, nil); res.StatusCode != 200 {
			t.Fatalf("card %d %s", res.StatusCode, raw)
		}
	}
	seen := v.Requests()
	if a, b := seen[0].Header.Get("Authorization"), seen[1].Header.Get("Authorization"); a == b {
		t.Errorf("the token was not renewed: %s", a)
	}
	g.ExpireAll()
	res, m, _ := googleCall(t, nil, http.MethodGet, v.Base+"/v1/card", nil, map[string]string{"Authorization": seen[1].Header.Get("Authorization")})
	if res.StatusCode != 401 || field(m, "error", "status") != "UNAUTHENTICATED" {
		t.Errorf("expired token: %d %v", res.StatusCode, m)
	}
}

// TestVertexRefusals: each documented check refuses a request that breaks
// it with the google.rpc.Status Google answers.
func TestVertexRefusals(t *testing.T) {
	g := StartGoogleTokenServer(t)
	sa := g.ServiceAccountJSON(t, testSAEmail, "shim-proj")
	adcFile(t, sa)
	v := StartVertex(t, GoogleOptions{Tokens: g})
	tok, err := adc(t).TokenSource.Token()
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := adc(t, "https://www.googleapis.com/auth/userinfo.email").TokenSource.Token()
	if err != nil {
		t.Fatal(err)
	}
	key, kid := saKey(t, sa)
	now := time.Now().Unix()
	_, idRes := postAssertion(t, g, key, kid, &claimSet{Iss: testSAEmail, Aud: g.TokenURL(), Iat: now, Exp: now + 3600,
		TargetAudience: v.Base})
	idToken, _ := idRes["id_token"].(string)
	if idToken == "" {
		t.Fatalf("no ID token: %v", idRes)
	}
	auth := map[string]string{"Authorization": "Bearer " + tok.AccessToken}
	body := func(s string) []byte { return []byte(s) }
	cases := []struct {
		name, method, path string
		body               []byte
		header             map[string]string
		status             int
		code               string
	}{
		{"anonymous card", "GET", "/v1/card", nil, nil, 401, "UNAUTHENTICATED"},
		{"unknown token", "GET", "/v1/card", nil, map[string]string{"Authorization": "Bearer ya29.made-up"}, 401, "UNAUTHENTICATED"},
		{"ID token", "GET", "/v1/card", nil, map[string]string{"Authorization": "Bearer " + idToken}, 401, "UNAUTHENTICATED"},
		{"token without cloud-platform", "GET", "/v1/card", nil, map[string]string{"Authorization": "Bearer " + narrow.AccessToken}, 403, "PERMISSION_DENIED"},
		{"1.0 parts instead of content", "POST", "/v1/message:send",
			body(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), auth, 400, "INVALID_ARGUMENT"},
		{"role user", "POST", "/v1/message:send",
			body(`{"message":{"messageId":"m","role":"user","content":[{"text":"hi"}]}}`), auth, 400, "INVALID_ARGUMENT"},
		{"0.3 JSON-RPC kind", "POST", "/v1/message:send",
			body(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"kind":"text","text":"hi"}]}}`), auth, 400, "INVALID_ARGUMENT"},
		{"no messageId", "POST", "/v1/message:send",
			body(`{"message":{"role":"ROLE_USER","content":[{"text":"hi"}]}}`), auth, 400, "INVALID_ARGUMENT"},
		{"JSON-RPC at the base", "POST", "", rpcBody(t, "message/send", map[string]any{"message": msg03("hi")}), auth, 404, "NOT_FOUND"},
		{"unknown task", "GET", "/v1/tasks/nope", nil, auth, 404, "NOT_FOUND"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, m, raw := googleCall(t, nil, c.method, v.Base+c.path, c.body, c.header)
			if res.StatusCode != c.status || field(m, "error", "status") != c.code {
				t.Fatalf("got %d %s, want %d %s", res.StatusCode, raw, c.status, c.code)
			}
		})
	}
	for _, s := range v.Requests() {
		if s.Status >= 400 && s.Refused == "" && s.Path != strings.TrimPrefix(v.Base, v.URL)+"/v1/tasks/nope" {
			t.Errorf("refused without a reason: %+v", s)
		}
	}
}

// TestGeminiEnterprise: the same binding under …/agents/<id>/a2a/v1/, with
// ADC from an authorized-user JSON; X-Goog-User-Project must name the
// agent's project.
func TestGeminiEnterprise(t *testing.T) {
	g := StartGoogleTokenServer(t)
	adcFile(t, g.AuthorizedUserJSON(t, "alice@example.com", "123456789012"))
	ge := StartGeminiEnterprise(t, GoogleOptions{Tokens: g})
	if !strings.Contains(ge.Base, "/v1/projects/123456789012/locations/global/collections/default_collection/engines/") ||
		!strings.HasSuffix(ge.Base, "/agents/7261528349104857088/a2a") {
		t.Fatalf("base %s", ge.Base)
	}
	client := oauth2.NewClient(context.Background(), adc(t).TokenSource)
	quota := map[string]string{"X-Goog-User-Project": "123456789012"}
	res, m, raw := googleCall(t, client, http.MethodPost, ge.Base+"/v1/message:send", googleSend("hi", true), quota)
	if res.StatusCode != 200 || field(m, "task", "status", "state") != "TASK_STATE_COMPLETED" {
		t.Fatalf("send %d %s", res.StatusCode, raw)
	}
	id := field(m, "task", "id").(string)
	if res, m, raw := googleCall(t, client, http.MethodGet, ge.Base+"/v1/tasks/"+id, nil, quota); res.StatusCode != 200 || m["id"] != id {
		t.Fatalf("get %d %s", res.StatusCode, raw)
	}
	res, _, raw = googleCall(t, client, http.MethodPost, ge.Base+"/v1/message:stream", googleSend("stream", false),
		map[string]string{"X-Goog-User-Project": "123456789012", "Accept": "text/event-stream"})
	if text, state := streamTextProto(t, sseData(t, raw)); res.StatusCode != 200 || text != Answer("stream") || state != "TASK_STATE_COMPLETED" {
		t.Fatalf("stream %d %q %q", res.StatusCode, text, state)
	}
	for _, c := range []struct {
		hdr    map[string]string
		reason string
	}{{nil, "no X-Goog-User-Project"}, {map[string]string{"X-Goog-User-Project": "999"}, "X-Goog-User-Project 999 is not the agent's project"}} {
		res, m, _ := googleCall(t, client, http.MethodGet, ge.Base+"/v1/card", nil, c.hdr)
		seen := ge.Requests()
		if res.StatusCode != 403 || field(m, "error", "status") != "PERMISSION_DENIED" || seen[len(seen)-1].Refused != c.reason {
			t.Errorf("%s: %d %v", c.reason, res.StatusCode, m)
		}
	}
}

// TestGoogleProtoFieldNames: with ProtoFieldNames the same answers carry
// the proto field names (snake_case), which ProtoJSON readers also take.
func TestGoogleProtoFieldNames(t *testing.T) {
	g := StartGoogleTokenServer(t)
	adcFile(t, g.ServiceAccountJSON(t, testSAEmail, "p"))
	v := StartVertex(t, GoogleOptions{Tokens: g, ProtoFieldNames: true})
	client := oauth2.NewClient(context.Background(), adc(t).TokenSource)
	_, m, raw := googleCall(t, client, http.MethodPost, v.Base+"/v1/message:send", googleSend("hi", true), nil)
	if field(m, "task", "context_id") == nil || field(m, "task", "contextId") != nil {
		t.Fatalf("send %s", raw)
	}
}
