package main

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shimdev/shim/examples/agent"
)

// startRESTAgent runs the demo agent (a2a-go v2) with only its HTTP+JSON
// binding.
func startRESTAgent(t *testing.T) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = agent.NewHandler("http://"+srv.Listener.Addr().String(), agent.Options{Name: "Go Agent", Binding: "http+json"})
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDoctorBinding: doctor's binding row says which binding runs and why
// (the card, --binding, SHIM_BINDING); a binding the card lacks fails on
// the card row; an unknown one is refused before any call.
func TestDoctorBinding(t *testing.T) {
	url := startRESTAgent(t)
	e := newShimEnv(t)
	r := e.run(t, "", "doctor", "--url", url)
	rows := doctorRows(t, r.stdout)
	wantRow(t, rows, "binding", "ok HTTP+JSON (from the card)")
	wantRow(t, rows, "endpoint", "ok "+url+"/rest")
	wantRow(t, rows, "auth probe", "ok")

	r = e.run(t, "", "doctor", "--url", url, "--binding", "http+json")
	wantRow(t, doctorRows(t, r.stdout), "binding", "ok HTTP+JSON (--binding)")

	e.vars = append(e.vars, "SHIM_BINDING=jsonrpc")
	r = e.run(t, "", "doctor", "--url", url)
	if rows := doctorRows(t, r.stdout); r.code != 1 || !strings.Contains(rows["agent card"], "JSON-RPC") {
		t.Errorf("SHIM_BINDING=jsonrpc on an HTTP+JSON card: exit %d, %q", r.code, rows["agent card"])
	}

	if r := e.run(t, "", "doctor", "--url", url, "--binding", "grpc"); r.code == 0 || !strings.Contains(r.stderr, "--binding") {
		t.Errorf("--binding grpc: exit %d %s", r.code, r.stderr)
	}
}

// TestSessionOverHTTPJSON: --endpoint with --binding http+json drives a
// whole turn over the HTTP+JSON binding of a real a2a-go server.
func TestSessionOverHTTPJSON(t *testing.T) {
	url := startRESTAgent(t)
	p := startProc(t, "--endpoint", url+"/rest", "--binding", "http+json", "--steer-grace", "0")
	methods := map[string]string{"1": "initialize", "2": "session/new", "3": "session/prompt"}
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed","version":"1"}}}`)
	p.next(t, methods)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	m := p.next(t, methods)
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", m)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hello there"}]}}`, sid))
	var text strings.Builder
	for {
		m := p.next(t, methods)
		if idOf(m) == "3" {
			if r, _ := m["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Fatalf("prompt: %v", m)
			}
			break
		}
		if u, _ := m["params"].(map[string]any)["update"].(map[string]any); u["sessionUpdate"] == "agent_message_chunk" {
			c, _ := u["content"].(map[string]any)
			text.WriteString(fmt.Sprint(c["text"]))
		}
	}
	if !strings.Contains(text.String(), "You asked: hello there") {
		t.Errorf("answer %q", text.String())
	}
}

// TestLoginOverHTTPJSON: shim login probes the token over the binding
// --binding names, like every other command (one client configuration).
func TestLoginOverHTTPJSON(t *testing.T) {
	url := startRESTAgent(t)
	e := newShimEnv(t)
	r := e.run(t, "tok-login-rest-0001\n", "login", "--url", url, "--endpoint", url+"/rest", "--binding", "http+json")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "accepted the token") {
		t.Fatalf("login over HTTP+JSON: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}
