package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
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
	sessions := map[string]map[string]bool{} // runtime session → methods
	var card, cancelled bool
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
