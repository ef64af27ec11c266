package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/internal/oidctest"
)

// acpProc is the binary serving ACP to a schema-checking test client.
type acpProc struct {
	*acptest.Client
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr strings.Builder
}

func (p *acpProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.Write(b)
}

func (p *acpProc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// serveACP starts the binary as an editor does, driven by an acptest
// client answering its requests with h.
func (e *shimEnv) serveACP(t *testing.T, h acptest.Handler, args ...string) *acpProc {
	t.Helper()
	p := &acpProc{cmd: exec.Command(shimBin, e.args(args)...)}
	p.cmd.Env = e.environ()
	p.cmd.Stderr = p
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	p.Client = acptest.NewClient(t, out, in, h)
	return p
}

// oidcAgent is an agent whose card signs in with OpenID Connect at o and
// that takes only the access tokens o issued.
func oidcAgent(t *testing.T, o *oidctest.OP) *schemeAgent {
	return newSchemeAgent(t, map[string]any{"corp": map[string]any{"openIdConnectSecurityScheme": map[string]any{"openIdConnectUrl": o.DiscoveryURL()}}},
		requirement("corp", "openid"), func(r *http.Request) bool {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			return o.Valid(tok)
		})
}

var editorCodeRE = regexp.MustCompile(`enter the code (\S+) there`)

// TestSignInFromEditorEndToEnd: shim started with --oauth-client-id
// offers "Sign in to <host>"; authenticate with it, from a client that
// opens pages, runs the device-code flow at a real OpenID provider, the
// page and code shown as a URL elicitation the person approves, and
// stores the sign-in as `shim login` does (the token in the credentials
// file, the renewal record with the agent's name); the next session
// signs in with it. A later shim with no client id is offered "Sign in to
// <agent name>" from what was stored; a client that opens no page is
// told to run `shim login` and no flow starts. No secret reaches stdout
// or stderr.
func TestSignInFromEditorEndToEnd(t *testing.T) {
	o := oidctest.New(t)
	a := oidcAgent(t, o)
	e := newShimEnv(t)
	secretFile := filepath.Join(e.home, "client-secret")
	if err := os.WriteFile(secretFile, []byte(oidctest.DeviceSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var pages []map[string]any
	h := approvingEditor(t, o, &mu, &pages)
	p := e.serveACP(t, h, "--url", a.srv.URL, "--oauth-client-id", oidctest.DeviceClient, "--oauth-client-secret-file", secretFile)
	caps := map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
	init := p.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps})
	host := strings.TrimPrefix(a.srv.URL, "http://")
	if !strings.Contains(string(init.Result), `{"id":"shim-oauth","name":"Sign in to `+host+`"`) {
		t.Fatalf("initialize: %s", init.Result)
	}
	if m := p.Call("authenticate", map[string]any{"methodId": "shim-oauth"}); m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("authenticate: %+v\n%s", m.Error, p.logs())
	}
	f := readStored(t, e)
	tok, rec := f.Tokens[a.srv.URL], f.OAuth[a.srv.URL]
	if !o.Valid(tok) || rec.TokenURL != o.Issuer+"/oauth/token" || rec.ClientID != oidctest.DeviceClient || rec.Agent != "Secured Agent" {
		t.Fatalf("stored %+v", f)
	}
	mu.Lock()
	if len(pages) != 1 || pages[0]["mode"] != "url" {
		t.Errorf("pages %v", pages)
	}
	mu.Unlock()
	if m := p.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}); m.Error != nil {
		t.Fatalf("session/new after the sign-in: %+v", m.Error)
	}
	checkNoSecretOut(t, p, tok, rec.RefreshToken, oidctest.DeviceSecret)

	// Stored: offered by the agent's name, without a client id.
	q := e.serveACP(t, h)
	init = q.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if !strings.Contains(string(init.Result), `{"id":"shim-oauth","name":"Sign in to Secured Agent"`) {
		t.Fatalf("initialize: %s", init.Result)
	}
	a.mu.Lock()
	before := len(a.dumps)
	a.mu.Unlock()
	m := q.Call("authenticate", map[string]any{"methodId": "shim-oauth"})
	if m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, "shim login") {
		t.Fatalf("authenticate without URL elicitation: %+v", m.Error)
	}
	a.mu.Lock()
	after := len(a.dumps)
	a.mu.Unlock()
	if after != before {
		t.Errorf("a sign-in started: %d requests to the agent", after-before)
	}
	mu.Lock()
	if len(pages) != 1 {
		t.Errorf("a page was shown to a client that opens none: %v", pages[1:])
	}
	mu.Unlock()

}

// checkNoSecretOut checks that none of secrets reached p's stdout or its
// log.
func checkNoSecretOut(t *testing.T, p *acpProc, secrets ...string) {
	t.Helper()
	var out strings.Builder
	for _, m := range p.Messages() {
		out.Write(m.Raw)
	}
	for _, secret := range secrets {
		if secret != "" && (strings.Contains(out.String(), secret) || strings.Contains(p.logs(), secret)) {
			t.Errorf("a secret reached stdout or stderr")
		}
	}
}

// approvingEditor is an editor that records every request's params in
// pages and approves the sign-in code a URL page shows; it declines the
// rest.
func approvingEditor(t *testing.T, o *oidctest.OP, mu *sync.Mutex, pages *[]map[string]any) acptest.Handler {
	return func(method string, params json.RawMessage) (any, *acptest.RPCError) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		*pages = append(*pages, p)
		mu.Unlock()
		msg, _ := p["message"].(string)
		m := editorCodeRE.FindStringSubmatch(msg)
		if method != "elicitation/create" || p["mode"] != "url" || m == nil {
			return map[string]any{"action": "decline"}, nil
		}
		if err := o.Approve(m[1]); err != nil {
			t.Error(err)
		}
		return map[string]any{"action": "accept"}, nil
	}
}
