package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/platformtest"
)

// Test AWS credentials: static keys, as the default chain reads them from
// the environment first.
const (
	testAWSKey     = "AKIASHIMTEST00000001"
	testAWSSecret  = "shim+test/secret/0123456789ABCDEFGHIJKLMN"
	testAWSSession = "shim-test-session-token-0123456789"
)

// awsVars points aws-sdk-go-v2's default chain at nothing of the machine:
// empty config and credentials files, no instance metadata, no profile.
func awsVars(t *testing.T) []string {
	dir := t.TempDir()
	return []string{"AWS_CONFIG_FILE=" + filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PROFILE=", "AWS_DEFAULT_PROFILE=", "AWS_REGION=", "AWS_DEFAULT_REGION=",
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN="}
}

// awsStaticVars are awsVars with the test keys in the environment.
func awsStaticVars(t *testing.T) []string {
	return append(awsVars(t), "AWS_ACCESS_KEY_ID="+testAWSKey, "AWS_SECRET_ACCESS_KEY="+testAWSSecret, "AWS_SESSION_TOKEN="+testAWSSession)
}

func testAgentCore(t *testing.T, opts platformtest.AgentCoreOptions) *platformtest.AgentCore {
	if opts.Keys == nil && opts.JWT == nil {
		opts.Keys = map[string]platformtest.SigV4Key{testAWSKey: {Secret: testAWSSecret, SessionToken: testAWSSession}}
	}
	return platformtest.StartAgentCore(t, opts)
}

// openSession initializes p and opens a session.
func openSession(t *testing.T, p *proc) string {
	t.Helper()
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	m := p.call(t, 2, "session/new", newSessionParams())
	r, _ := m["result"].(map[string]any)
	sid, _ := r["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v\n%s", m, p.logs())
	}
	return sid
}

// promptAnswer sends a prompt and returns its stop reason and the answer
// text it streamed.
func promptAnswer(t *testing.T, p *proc, id int, sid, text string) (stop, answer string) {
	t.Helper()
	before := p.chunks(sid, "agent_message_chunk")
	m := p.call(t, id, "session/prompt", promptParams(sid, text))
	r, _ := m["result"].(map[string]any)
	stop, _ = r["stopReason"].(string)
	if stop == "" {
		t.Fatalf("prompt: %v\n%s", m, p.logs())
	}
	return stop, strings.TrimPrefix(p.chunks(sid, "agent_message_chunk"), before)
}

// promptCancelled sends a prompt that holds its task, cancels it once
// shim knows the task (it logs "the agent started a task" at debug level),
// and returns the stop reason.
func promptCancelled(t *testing.T, p *proc, id int, sid string) string {
	t.Helper()
	started := strings.Count(p.logs(), "the agent started a task")
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt",
		"params": promptParams(sid, "wait "+platformtest.HoldWord)})
	p.send(t, string(b))
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for strings.Count(p.logs(), "the agent started a task") == started && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		_, _ = io.WriteString(p.stdin, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`+"\n", sid))
	}()
	methods := map[string]string{fmt.Sprint(id): "session/prompt"}
	for {
		m := p.next(t, methods)
		if m["method"] == nil && idOf(m) == fmt.Sprint(id) {
			r, _ := m["result"].(map[string]any)
			stop, _ := r["stopReason"].(string)
			return stop
		}
	}
}

// waitCall waits until a fake saw a call of method (the cancel of a turn
// goes after the turn's answer) and returns what it saw.
func waitCall(t *testing.T, requests func() []platformtest.Seen, method string) []platformtest.Seen {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		seen := requests()
		for _, s := range seen {
			if rpcMethod(s.Body) == method || strings.HasSuffix(s.Path, method) {
				return seen
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s among %d requests", method, len(seen))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rpcMethod is the JSON-RPC method of a request body ("" for none).
func rpcMethod(body []byte) string {
	var r struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &r)
	return r.Method
}

// refusals lists the requests a fake refused, with why.
func refusals(seen []platformtest.Seen) []string {
	var out []string
	for _, s := range seen {
		if s.Refused != "" {
			out = append(out, s.Method+" "+s.Path+": "+s.Refused)
		}
	}
	return out
}

// TestPlatformAgentCore: shim reaches an AgentCore runtime given its
// invocations URL and --platform agentcore, with static AWS keys in the
// environment: the card is read from <invocations>/.well-known/agent-card.json
// signed, the answer streams from the invocations URL (not the
// container's address the card names), a cancel reaches the runtime as
// tasks/cancel, and every request passed the runtime's checks (the
// signature verified by platformtest's SigV4 verifier, which shares no
// code with aws-sdk-go-v2's signer; the session header 33 to 256
// characters). Requests of the session carry one runtime session id,
// the card and the probe another; the session token never reaches stdout
// or stderr.
func TestPlatformAgentCore(t *testing.T) {
	ac := testAgentCore(t, platformtest.AgentCoreOptions{})
	e := newShimEnv(t)
	e.vars = awsStaticVars(t)
	p := e.start(t, "--url", ac.InvocationsURL(), "--platform", "agentcore", "--log-level", "debug", "--steer-grace", "0")
	sid := openSession(t, p)
	stop, answer := promptAnswer(t, p, 3, sid, "hello platform")
	if stop != "end_turn" || answer != platformtest.Answer("hello platform") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	if stop := promptCancelled(t, p, 4, sid); stop != "cancelled" {
		t.Fatalf("cancel: %s\n%s", stop, p.logs())
	}
	seen := waitCall(t, ac.Requests, "tasks/cancel")
	if r := refusals(seen); len(r) > 0 {
		t.Fatalf("the runtime refused: %v", r)
	}
	sessions, card, cancelled := runtimeSessions(t, seen)
	if !card || !cancelled {
		t.Errorf("card read %v, tasks/cancel sent %v", card, cancelled)
	}
	if len(sessions) != 2 {
		t.Fatalf("runtime sessions %v: want one for the editor session, one for the card and probe", sessions)
	}
	for id, ms := range sessions {
		if ms["card"] && (ms["message/stream"] || ms["tasks/cancel"]) {
			t.Errorf("runtime session %s carries both the card and the session's calls: %v", id, ms)
		}
	}
	if strings.Contains(p.logs(), testAWSSession) || strings.Contains(p.logs(), testAWSSecret) {
		t.Error("a secret reached stderr")
	}
	for _, l := range p.lines {
		if strings.Contains(string(l), testAWSSession) {
			t.Error("the session token reached stdout")
		}
	}
}

// runtimeSessions checks that every request to the runtime was signed
// and went to the invocations URL, and returns the calls of each runtime
// session id, whether the card was read and whether a task was canceled.
func runtimeSessions(t *testing.T, seen []platformtest.Seen) (sessions map[string]map[string]bool, card, cancelled bool) {
	t.Helper()
	sessions = map[string]map[string]bool{}
	for _, s := range seen {
		if !strings.HasPrefix(s.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
			t.Errorf("%s %s not signed", s.Method, s.Path)
		}
		id := s.Header.Get(platformtest.AgentCoreSessionHeader)
		if sessions[id] == nil {
			sessions[id] = map[string]bool{}
		}
		m := rpcMethod(s.Body)
		if s.Method == "GET" {
			m = "card"
			card = strings.HasSuffix(s.Path, "/invocations/.well-known/agent-card.json")
		}
		sessions[id][m] = true
		cancelled = cancelled || m == "tasks/cancel"
		if s.Method == "POST" && !strings.HasSuffix(s.Path, "/invocations/") {
			t.Errorf("a call went to %s, not the invocations URL", s.Path)
		}
	}
	return sessions, card, cancelled
}

// TestPlatformAgentCoreSessionAcrossProcesses: two shim processes (an
// editor restarted) send the same runtime session id for one editor
// session, so the runtime keeps its microVM: the second loads the thread
// (GetTask of the task the index recorded) with the id the first used;
// a third with no index reads the history by ListTasks (a 1.0 container
// lists tasks) with it too.
func TestPlatformAgentCoreSessionAcrossProcesses(t *testing.T) {
	ac := testAgentCore(t, platformtest.AgentCoreOptions{Dialect: "1.0"})
	e := newShimEnv(t)
	e.vars = awsStaticVars(t)
	args := []string{"--url", ac.InvocationsURL(), "--platform", "agentcore"}
	p := e.start(t, args...)
	sid := openSession(t, p)
	if stop, answer := promptAnswer(t, p, 3, sid, "remember me"); stop != "end_turn" || answer != platformtest.Answer("remember me") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	first := sessionHeaderOf(t, ac.Requests(), "SendStreamingMessage")
	_ = p.stdin.Close()

	load := func(e *shimEnv, want string) {
		t.Helper()
		n := len(ac.Requests())
		q := e.start(t, args...)
		if m := q.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
			t.Fatal(m)
		}
		if m := q.call(t, 2, "session/load", map[string]any{"sessionId": sid, "cwd": "/tmp", "mcpServers": []any{}}); m["result"] == nil {
			t.Fatalf("session/load: %v\n%s", m, q.logs())
		}
		if got := q.chunks(sid, "user_message_chunk"); !strings.Contains(got, "remember me") {
			t.Errorf("replay %q", got)
		}
		if got := sessionHeaderOf(t, ac.Requests()[n:], want); got != first {
			t.Errorf("%s carried runtime session %q, the first process %q", want, got, first)
		}
	}
	load(e, "GetTask")
	fresh := newShimEnv(t)
	fresh.vars = e.vars
	load(fresh, "ListTasks")
	if r := refusals(ac.Requests()); len(r) > 0 {
		t.Fatalf("the runtime refused: %v", r)
	}
}

// sessionHeaderOf is the runtime session id of the first call of method
// (the sign-in probe's GetTask left out).
func sessionHeaderOf(t *testing.T, seen []platformtest.Seen, method string) string {
	t.Helper()
	for _, s := range seen {
		if rpcMethod(s.Body) == method && !strings.Contains(string(s.Body), "shim-probe-") {
			return s.Header.Get(platformtest.AgentCoreSessionHeader)
		}
	}
	t.Fatalf("no %s among %d requests", method, len(seen))
	return ""
}

// TestPlatformAgentCoreLazy: initialize makes no call and loads nothing:
// the AWS credentials (a profile's credential_process, which leaves a mark
// when it runs) are read by the first request a session needs, not
// before; and they sign it.
func TestPlatformAgentCoreLazy(t *testing.T) {
	ac := testAgentCore(t, platformtest.AgentCoreOptions{})
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "creds.sh")
	creds := fmt.Sprintf(`{"Version":1,"AccessKeyId":%q,"SecretAccessKey":%q,"SessionToken":%q,"Expiration":"2999-01-02T03:04:05Z"}`,
		testAWSKey, testAWSSecret, testAWSSession)
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+mark+"\nprintf '%s' '"+creds+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, []byte("[profile shimtest]\ncredential_process = "+script+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newShimEnv(t)
	e.vars = append(awsVars(t), "AWS_CONFIG_FILE="+cfg, "AWS_PROFILE=shimtest")
	p := e.start(t, "--url", ac.InvocationsURL(), "--platform", "agentcore")
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatal(m)
	}
	if _, err := os.Stat(mark); err == nil || len(ac.Requests()) > 0 {
		t.Fatalf("initialize ran the credential process (%v) or called the runtime (%d requests)", err, len(ac.Requests()))
	}
	if m := p.call(t, 2, "session/new", newSessionParams()); m["result"] == nil {
		t.Fatalf("session/new: %v\n%s", m, p.logs())
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the credential process did not run: %v", err)
	}
	if r := refusals(ac.Requests()); len(r) > 0 || len(ac.Requests()) == 0 {
		t.Fatalf("the runtime refused %v of %d", r, len(ac.Requests()))
	}
	r := e.run(t, "", "doctor", "--url", ac.InvocationsURL(), "--platform", "agentcore")
	for _, want := range []string{"Amazon Bedrock AgentCore (--platform agentcore)", "AWS profile shimtest (credential_process), region us-west-2",
		"2999-01-02T03:04:05Z", "AWS Signature Version 4"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}

const testSNKey = "now_0123456789abcdef"

// TestPlatformServiceNow: `shim login --platform servicenow` takes an API
// key from stdin, checks it against the agent (the card read with the key
// in x-sn-apikey) and stores it; shim then reaches the agent with it: the
// card at /api/sn_aia/a2a/v2/agent_card/id/<id>, JSON-RPC 0.3 at the
// agent's path, no streaming (a non-blocking message/send, then tasks/get
// polled to the answer), and a cancel as tasks/cancel. doctor names the
// platform and the stored key's source, never the key.
func TestPlatformServiceNow(t *testing.T) {
	sn := platformtest.StartServiceNow(t, platformtest.ServiceNowOptions{APIKeys: []string{testSNKey}})
	e := newShimEnv(t)
	args := []string{"--url", sn.Endpoint(), "--platform", "servicenow"}
	if r := e.run(t, "", append([]string{"doctor"}, args...)...); r.code != 1 || !strings.Contains(r.stdout, "ServiceNow AI Agents takes an API key") {
		t.Fatalf("doctor without a key: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := e.run(t, testSNKey+"\n", append([]string{"login"}, args...)...); r.code != 0 || !strings.Contains(r.stderr, "accepted the token") {
		t.Fatalf("login: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	p := e.start(t, append(args, "--log-level", "debug", "--steer-grace", "0")...)
	sid := openSession(t, p)
	if stop, answer := promptAnswer(t, p, 3, sid, "hello now"); stop != "end_turn" || answer != platformtest.Answer("hello now") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	if stop := promptCancelled(t, p, 4, sid); stop != "cancelled" {
		t.Fatalf("cancel: %s\n%s", stop, p.logs())
	}
	methods := snCalls(t, waitCall(t, sn.Requests, "tasks/cancel"))
	if methods["card v2/agent_card/id/"+sn.AgentID] == 0 || methods["message/send"] != 2 || methods["tasks/get"] < 2 ||
		methods["tasks/cancel"] != 1 || methods["message/stream"] != 0 {
		t.Errorf("calls %v", methods)
	}
	r := e.run(t, "", append([]string{"doctor"}, args...)...)
	for _, want := range []string{"ServiceNow AI Agents (--platform servicenow)", "the stored secret from", "api key in header x-sn-apikey (stored)",
		"ServiceNow AI Agents does not stream: each task is polled"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout+r.stderr+p.logs(), testSNKey) {
		t.Error("the API key was shown")
	}
}

// snCalls checks that every request to the instance passed and carried
// the API key (and no Authorization), that each message/send asked to be
// answered at once, and counts the calls.
func snCalls(t *testing.T, seen []platformtest.Seen) map[string]int {
	t.Helper()
	if r := refusals(seen); len(r) > 0 {
		t.Fatalf("the agent refused: %v", r)
	}
	methods := map[string]int{}
	for _, s := range seen {
		if s.Header.Get(platformtest.ServiceNowAPIKeyHeader) != testSNKey || s.Header.Get("Authorization") != "" {
			t.Errorf("%s %s: key %q, Authorization %q", s.Method, s.Path, s.Header.Get(platformtest.ServiceNowAPIKeyHeader), s.Header.Get("Authorization"))
		}
		if s.Method == "GET" {
			methods["card "+strings.TrimPrefix(s.Path, "/api/sn_aia/a2a/")]++
			continue
		}
		methods[rpcMethod(s.Body)]++
		if m := rpcMethod(s.Body); m == "message/send" && !strings.Contains(string(s.Body), `"blocking":false`) {
			t.Errorf("message/send does not ask to answer at once: %s", s.Body)
		}
	}
	return methods
}

// TestPlatformServiceNowLegacyCard: an instance whose v2 card path is
// not there has its card read from the legacy path next, with the key.
func TestPlatformServiceNowLegacyCard(t *testing.T) {
	sn := platformtest.StartServiceNow(t, platformtest.ServiceNowOptions{APIKeys: []string{testSNKey}})
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/v2/agent_card/") {
			http.Error(w, `{"error":{"message":"Requested URI does not represent any resource"},"status":"failure"}`, http.StatusBadRequest)
			return
		}
		sn.ServeHTTP(w, r)
	}))
	t.Cleanup(old.Close)
	e := newShimEnv(t)
	e.vars = []string{"SHIM_TOKEN=" + testSNKey}
	r := e.run(t, "", "doctor", "--url", old.URL+"/api/sn_aia/a2a/v2/agent/id/"+sn.AgentID, "--platform", "servicenow")
	if !strings.Contains(r.stdout, "/api/sn_aia/a2a/id/"+sn.AgentID+"/well_known/agent_json") || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("doctor:\n%s%s", r.stdout, r.stderr)
	}
	var legacy bool
	for _, s := range sn.Requests() {
		legacy = legacy || (strings.HasSuffix(s.Path, "/well_known/agent_json") && s.Header.Get(platformtest.ServiceNowAPIKeyHeader) == testSNKey)
	}
	if !legacy {
		t.Error("the legacy card was not read with the key")
	}
}

const testTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

// entraVars point azidentity and shim's login at the loopback authority:
// its TLS certificate the only one trusted (SSL_CERT_FILE), no Azure CLI
// configuration of the machine, and nothing of the machine's Azure
// environment.
func entraVars(t *testing.T, e *platformtest.Entra) []string {
	t.Helper()
	u, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	cert := conn.ConnectionState().PeerCertificates[0]
	conn.Close()
	dir := t.TempDir()
	pemFile := filepath.Join(dir, "entra.pem")
	if err := os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"SSL_CERT_FILE=" + pemFile, "SSL_CERT_DIR=" + dir, "AZURE_AUTHORITY_HOST=" + e.URL, "AZURE_TENANT_ID=" + testTenant,
		"AZURE_CONFIG_DIR=" + filepath.Join(dir, "az"), "AZURE_CLIENT_ID=", "AZURE_CLIENT_SECRET=",
		"AZURE_FEDERATED_TOKEN_FILE=", "AZURE_CLIENT_CERTIFICATE_PATH=", "AZURE_USERNAME=", "IDENTITY_ENDPOINT=", "MSI_ENDPOINT="}
}

// TestPlatformFoundry: with an app's client secret in the environment,
// azidentity's default chain gets an Entra token for https://ai.azure.com
// from the loopback authority, and shim reaches the Foundry agent with it:
// the card at …/agentCard/v1.0, a streamed answer and a cancel in A2A 1.0
// (A2A-Version: 1.0 on each request), and the history of a session read
// back by ListTasks in a shim with no thread index. doctor names the
// credential the chain chose and its expiry.
func TestPlatformFoundry(t *testing.T) {
	e := platformtest.StartEntra(t)
	app := e.AddApp("shim-secret-0123456789")
	f := platformtest.StartFoundry(t, platformtest.FoundryOptions{Entra: e})
	env := newShimEnv(t)
	env.vars = append(entraVars(t, e), "AZURE_CLIENT_ID="+app, "AZURE_CLIENT_SECRET=shim-secret-0123456789")
	args := []string{"--url", f.Base, "--platform", "foundry"}
	p := env.start(t, append(args, "--log-level", "debug", "--steer-grace", "0")...)
	sid := openSession(t, p)
	if stop, answer := promptAnswer(t, p, 3, sid, "hello foundry"); stop != "end_turn" || answer != platformtest.Answer("hello foundry") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	if stop := promptCancelled(t, p, 4, sid); stop != "cancelled" {
		t.Fatalf("cancel: %s\n%s", stop, p.logs())
	}
	waitCall(t, f.Requests, "CancelTask")
	fresh := newShimEnv(t)
	fresh.vars = env.vars
	q := fresh.start(t, args...)
	if m := q.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatal(m)
	}
	if m := q.call(t, 2, "session/load", map[string]any{"sessionId": sid, "cwd": "/tmp", "mcpServers": []any{}}); m["result"] == nil {
		t.Fatalf("session/load: %v\n%s", m, q.logs())
	}
	if got := q.chunks(sid, "agent_message_chunk"); !strings.Contains(got, platformtest.Answer("hello foundry")) {
		t.Errorf("replay %q", got)
	}
	seen := f.Requests()
	if r := refusals(seen); len(r) > 0 {
		t.Fatalf("the agent refused: %v", r)
	}
	calls := map[string]bool{}
	for _, s := range seen {
		tok := strings.TrimPrefix(s.Header.Get("Authorization"), "Bearer ")
		if it := e.Token(tok); it == nil || it.ClientID != app {
			t.Errorf("%s %s: a token the app did not get: %+v", s.Method, s.Path, it)
		}
		if s.Header.Get("A2A-Version") != "1.0" {
			t.Errorf("%s %s without A2A-Version 1.0", s.Method, s.Path)
		}
		calls[s.Method+" "+rpcMethod(s.Body)] = true
	}
	for _, want := range []string{"GET ", "POST SendStreamingMessage", "POST CancelTask", "POST ListTasks"} {
		if !calls[want] {
			t.Errorf("no %s among %v", want, calls)
		}
	}
	r := env.run(t, "", append([]string{"doctor"}, args...)...)
	for _, want := range []string{"Microsoft Foundry (--platform foundry)", "Azure environment variables (AZURE_CLIENT_ID)",
		"credential expiry", "bearer: a Microsoft Entra token", "/agentCard/v1.0", "A2A 1.0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}

// TestPlatformFoundryDeviceCode: `shim login --platform foundry` signs in
// with Entra's device code (it prints the code, the person approves it,
// shim polls) and stores the tokens; the stored sign-in wins over the
// app's credential in the environment. The agent has no A2A 1.0: its
// agentCard/v1.0 is refused, agentCard/v0.3 is read next, and every
// request after carries no A2A-Version (Foundry refuses conflicting
// version selectors).
func TestPlatformFoundryDeviceCode(t *testing.T) {
	e := platformtest.StartEntra(t)
	public := e.AddPublicClient()
	app := e.AddApp("shim-secret-0123456789")
	f := platformtest.StartFoundry(t, platformtest.FoundryOptions{Entra: e, Only03: true})
	env := newShimEnv(t)
	env.vars = entraVars(t, e)
	args := []string{"--url", f.Base, "--platform", "foundry"}
	deviceCodeLogin(t, env, e, append([]string{"--oauth-client-id", public}, args...)...)

	env.vars = append(env.vars, "AZURE_CLIENT_ID="+app, "AZURE_CLIENT_SECRET=shim-secret-0123456789")
	p := env.start(t, append(args, "--steer-grace", "0")...)
	sid := openSession(t, p)
	if stop, answer := promptAnswer(t, p, 3, sid, "hello 0.3"); stop != "end_turn" || answer != platformtest.Answer("hello 0.3") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	var v10, v03 int
	for _, s := range f.Requests() {
		switch {
		case strings.HasSuffix(s.Path, "/agentCard/v1.0"):
			v10++
			continue
		case strings.HasSuffix(s.Path, "/agentCard/v0.3"):
			v03++
		}
		if s.Refused != "" || s.Header.Get("A2A-Version") != "" {
			t.Errorf("%s %s %s: refused %q, A2A-Version %q", s.Method, s.Path, s.Body, s.Refused, s.Header.Get("A2A-Version"))
		}
		tok := strings.TrimPrefix(s.Header.Get("Authorization"), "Bearer ")
		if it := e.Token(tok); it == nil || it.ClientID != public || it.Subject != "alice@contoso.example" {
			t.Errorf("%s %s: not the device-code sign-in's token: %+v", s.Method, s.Path, it)
		}
	}
	if v10 == 0 || v03 == 0 {
		t.Errorf("cards read: v1.0 %d, v0.3 %d", v10, v03)
	}
	r := env.run(t, "", append([]string{"doctor"}, args...)...)
	for _, want := range []string{"the stored secret from", "token expiry", "A2A 0.3", "/agentCard/v0.3"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}

// deviceCodeLogin runs `shim login` with args, approves the device code
// it prints as the person at the verification page would, and waits for
// it to store the sign-in.
func deviceCodeLogin(t *testing.T, env *shimEnv, e *platformtest.Entra, args ...string) {
	t.Helper()
	login := exec.Command(shimBin, env.args(append([]string{"login"}, args...))...)
	login.Env = env.environ()
	stderr, err := login.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	login.Stdout = &out
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = login.Process.Kill() })
	sc := bufio.NewScanner(stderr)
	var said strings.Builder
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if _, code, ok := strings.Cut(sc.Text(), "and enter the code "); ok {
			if err := e.Approve(strings.TrimSpace(code)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := login.Wait(); err != nil || !strings.Contains(said.String(), "accepted the sign-in") {
		t.Fatalf("login: %v\n%s%s", err, out.String(), said.String())
	}
}

// adcVars point Application Default Credentials at a credentials file
// (GOOGLE_APPLICATION_CREDENTIALS) holding content, with no gcloud
// configuration of the machine around.
func adcVars(t *testing.T, content []byte) []string {
	dir := t.TempDir()
	path := filepath.Join(dir, "adc.json")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"GOOGLE_APPLICATION_CREDENTIALS=" + path, "CLOUDSDK_CONFIG=" + filepath.Join(dir, "gcloud"), "GOOGLE_CLOUD_PROJECT="}
}

// TestPlatformGoogleCredentials: for Vertex AI Agent Engine, ADC from a
// service account's key file (its token_uri the loopback token server)
// gives the access token the card is read with (…/a2a/v1/card, refused
// without it); for Gemini Enterprise, ADC from `gcloud auth
// application-default login`'s file gives the token and its
// quota_project_id the X-Goog-User-Project the platform requires. doctor
// names the platform, the credential (never the token) and its expiry,
// and the 0.3 HTTP+JSON binding the platform speaks.
func TestPlatformGoogleCredentials(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	for _, c := range []struct {
		name  string
		start func(testing.TB, platformtest.GoogleOptions) *platformtest.GoogleA2A
		file  []byte
		want  []string
	}{
		{"vertex", platformtest.StartVertex, tokens.ServiceAccountJSON(t, "shim-test@shim-proj.iam.gserviceaccount.com", "shim-proj"),
			[]string{"Google Vertex AI Agent Engine (--platform vertex)", "ADC service account shim-test@shim-proj.iam.gserviceaccount.com (GOOGLE_APPLICATION_CREDENTIALS)",
				"Vertex Agent", "/a2a/v1/card"}},
		{"gemini-enterprise", platformtest.StartGeminiEnterprise, tokens.AuthorizedUserJSON(t, "alice@example.com", "123456789012"),
			[]string{"Google Gemini Enterprise (--platform gemini-enterprise)", "ADC user alice@example.com (GOOGLE_APPLICATION_CREDENTIALS), quota project 123456789012",
				"Gemini Enterprise Agent", "X-Goog-User-Project"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := c.start(t, platformtest.GoogleOptions{Tokens: tokens})
			e := newShimEnv(t)
			e.vars = adcVars(t, c.file)
			r := e.run(t, "", "doctor", "--url", strings.TrimSuffix(g.Base, "/a2a"), "--platform", c.name)
			want := append(c.want, "credential expiry", "A2A 0.3", "HTTP+JSON", g.Base)
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("doctor does not say %q:\n%s%s", w, r.stdout, r.stderr)
				}
			}
			var card bool
			for _, s := range g.Requests() {
				if strings.HasSuffix(s.Path, "/a2a/v1/card") && s.Refused == "" {
					card = true
					if tok := tokens.Token(strings.TrimPrefix(s.Header.Get("Authorization"), "Bearer ")); tok == nil {
						t.Errorf("the card was read with a token the server never issued")
					}
				}
			}
			if !card {
				t.Errorf("the card was not read: %v", refusals(g.Requests()))
			}
			if strings.Contains(r.stdout+r.stderr, "ya29.") {
				t.Error("doctor showed an access token")
			}
		})
	}
}

// TestPlatformNoCredential: with no AWS credentials anywhere (no
// variables, empty files, no instance metadata) nothing is sent to the
// runtime, session/new answers auth_required saying what to run, and
// doctor fails its credential row the same way.
func TestPlatformNoCredential(t *testing.T) {
	ac := testAgentCore(t, platformtest.AgentCoreOptions{})
	e := newShimEnv(t)
	e.vars = awsVars(t)
	p := e.start(t, "--url", ac.InvocationsURL(), "--platform", "agentcore")
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatal(m)
	}
	m := p.call(t, 2, "session/new", newSessionParams())
	if errCode(m) != -32000 || !strings.Contains(fmt.Sprint(rpcErrorOf(m)["message"]), "aws sso login") {
		t.Fatalf("session/new: %v", m)
	}
	r := e.run(t, "", "doctor", "--url", ac.InvocationsURL(), "--platform", "agentcore")
	if row := doctorRow(r.stdout, "credential"); r.code != 1 || !strings.HasPrefix(row, "FAIL") || !strings.Contains(row, "no AWS credentials") {
		t.Errorf("doctor: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := len(ac.Requests()); n > 0 {
		t.Errorf("the runtime got %d requests without a credential", n)
	}
}

// doctorRow is the verdict and detail of doctor's row check (the row
// named check exactly: "credential", not "credential host").
func doctorRow(table, check string) string {
	for _, line := range strings.Split(table, "\n") {
		if rest, ok := strings.CutPrefix(line, check+"  "); ok {
			return strings.Join(strings.Fields(rest), " ")
		}
	}
	return ""
}

// TestPlatformAgentCoreJWT: a runtime with a JWT authorizer refuses
// SigV4; `shim login` stores its bearer token, which then wins over the
// AWS keys in the environment, and every request still carries the
// runtime session header.
func TestPlatformAgentCoreJWT(t *testing.T) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.shim-test-jwt.0123456789"
	ac := testAgentCore(t, platformtest.AgentCoreOptions{JWT: []string{jwt}})
	e := newShimEnv(t)
	e.vars = awsStaticVars(t)
	args := []string{"--url", ac.InvocationsURL(), "--platform", "agentcore"}
	if r := e.run(t, jwt+"\n", append([]string{"login"}, args...)...); r.code != 0 || !strings.Contains(r.stderr, "accepted the token") {
		t.Fatalf("login: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	p := e.start(t, args...)
	sid := openSession(t, p)
	if stop, answer := promptAnswer(t, p, 3, sid, "hello jwt"); stop != "end_turn" || answer != platformtest.Answer("hello jwt") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	for _, s := range ac.Requests() {
		if s.Refused != "" || s.Header.Get("Authorization") != "Bearer "+jwt || len(s.Header.Get(platformtest.AgentCoreSessionHeader)) < 33 {
			t.Errorf("%s %s: refused %q, Authorization %q", s.Method, s.Path, s.Refused, s.Header.Get("Authorization"))
		}
	}
}

// TestPlatformGoogle: shim reaches a Vertex AI Agent Engine agent and a
// Gemini Enterprise agent given their resource URLs, with Application
// Default Credentials from a loopback token server: a streamed answer over
// A2A 0.3's HTTP+JSON with ProtoJSON bodies, a cancel as
// POST …/v1/tasks/{id}:cancel, and the thread read back by GetTask in a
// second shim; every request passed the platform's checks (the token, the
// quota project for Gemini Enterprise, the bodies).
func TestPlatformGoogle(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	for _, c := range []struct {
		name  string
		start func(testing.TB, platformtest.GoogleOptions) *platformtest.GoogleA2A
		file  []byte
	}{
		{"vertex", platformtest.StartVertex, tokens.ServiceAccountJSON(t, "shim-test@shim-proj.iam.gserviceaccount.com", "shim-proj")},
		{"gemini-enterprise", platformtest.StartGeminiEnterprise, tokens.AuthorizedUserJSON(t, "alice@example.com", "123456789012")},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := c.start(t, platformtest.GoogleOptions{Tokens: tokens})
			e := newShimEnv(t)
			e.vars = adcVars(t, c.file)
			args := []string{"--url", strings.TrimSuffix(g.Base, "/a2a"), "--platform", c.name}
			p := e.start(t, append(args, "--steer-grace", "0", "--log-level", "debug")...)
			sid := openSession(t, p)
			if stop, answer := promptAnswer(t, p, 3, sid, "hello google"); stop != "end_turn" || answer != platformtest.Answer("hello google") {
				t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
			}
			if stop := promptCancelled(t, p, 4, sid); stop != "cancelled" {
				t.Fatalf("cancel: %s\n%s", stop, p.logs())
			}
			waitCall(t, g.Requests, ":cancel")
			q := e.start(t, args...)
			if m := q.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
				t.Fatal(m)
			}
			if m := q.call(t, 2, "session/load", map[string]any{"sessionId": sid, "cwd": "/tmp", "mcpServers": []any{}}); m["result"] == nil {
				t.Fatalf("session/load: %v\n%s", m, q.logs())
			}
			if got := q.chunks(sid, "agent_message_chunk"); !strings.Contains(got, platformtest.Answer("hello google")) {
				t.Errorf("replay %q", got)
			}
			if r := refusals(g.Requests()); len(r) > 0 {
				t.Fatalf("the platform refused: %v", r)
			}
		})
	}
}
