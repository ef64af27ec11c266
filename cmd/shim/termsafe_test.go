package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile is what a server might send to take over the terminal of whoever
// reads shim's output: retitle the window, clear the screen, plant an OSC
// 8 link, write the clipboard (OSC 52), a C1 CSI, a DEL.
const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b]52;c;cm0gLXJmIH4=\x07\u009b31m\x7f"

// escapedMark is how part of hostile reads once escaped.
const escapedMark = `\x1b]52;c;cm0gLXJmIH4=\x07`

// noControls fails when out holds a control character other than the
// newlines between lines (SPEC §13), or lacks the escaped hostile text
// (it was dropped, not escaped).
func noControls(t *testing.T, what, out string) {
	t.Helper()
	controlFree(t, what, out)
	if !strings.Contains(out, escapedMark) {
		t.Errorf("%s: the server's text is not shown escaped:\n%s", what, out)
	}
}

// controlFree fails when out holds a control character other than the
// newlines between lines.
func controlFree(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || (r == utf8.RuneError) {
			t.Errorf("%s: control character %U at byte %d:\n%q", what, r, i, out)
			return
		}
	}
}

// hostileAgent is an A2A server whose card name, error bodies and OAuth
// token error carry terminal escapes (no real server sends them:
// a fake is the only way to get them).
func hostileAgent(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		card := map[string]any{"name": "Agent " + hostile, "version": "1", "capabilities": map[string]any{"streaming": true},
			"supportedInterfaces": []any{map[string]any{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}}
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			json.NewEncoder(w).Encode(card)
		case "/oauth/.well-known/agent-card.json":
			card["supportedInterfaces"] = []any{map[string]any{"url": base + "/oauth/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}
			card["securitySchemes"] = map[string]any{"sso": map[string]any{"oauth2SecurityScheme": map[string]any{"flows": map[string]any{
				"deviceCode": map[string]any{"deviceAuthorizationUrl": base + "/device", "tokenUrl": base + "/token", "scopes": map[string]any{}}}}}}
			card["securityRequirements"] = requirement("sso")
			json.NewEncoder(w).Encode(card)
		case "/device":
			// A page or code holding control characters is refused, not
			// shown (SPEC §15, pages_test.go): these pass.
			json.NewEncoder(w).Encode(map[string]any{"device_code": "dc-0123456789", "user_code": "CODE-1234",
				"verification_uri": "https://verify.example/go", "interval": 1, "expires_in": 600})
		case "/token":
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": "server_error", "error_description": "denied " + hostile})
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "the model is down "+hostile)
		}
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestDoctorEscapesTheServer: doctor's table shows a card name and an
// error body with their control characters escaped, on a pipe as on a
// terminal (SPEC §13 amended).
func TestDoctorEscapesTheServer(t *testing.T) {
	srv := hostileAgent(t)
	e := newShimEnv(t)
	r := e.run(t, "", "doctor", "--url", srv.URL)
	noControls(t, "doctor (card name, probe error body)", r.stdout)
	if !strings.Contains(r.stdout, `Agent \x1b]0;pwned\x07`) {
		t.Errorf("card row:\n%s", r.stdout)
	}
	r = e.run(t, "", "doctor", "--url", srv.URL+"/nowhere")
	noControls(t, "doctor (card error body)", r.stdout)
	controlFree(t, "doctor's stderr", r.stderr)
}

// TestThreadsEscapesTheIndex: `shim threads` prints what the index holds
// (titles from the first prompt, ids and cwds from the editor, server
// keys) with control characters escaped.
func TestThreadsEscapesTheIndex(t *testing.T) {
	e := newShimEnv(t)
	if err := os.MkdirAll(e.state, 0o700); err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"version": 1, "servers": map[string]any{"https://agent.example": map[string]any{
		"chat-zed-1" + hostile: map[string]any{"cwd": "/w/" + hostile, "title": "Title " + hostile,
			"createdAt": "2026-12-01T10:00:00Z", "updatedAt": "2026-12-01T10:00:00Z"}}}}
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(e.state, "threads.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "", "threads")
	if r.code != 0 || !strings.Contains(r.stdout, `Title \x1b]0;pwned`) || !strings.Contains(r.stdout, `/w/\x1b]0;`) || !strings.Contains(r.stdout, `chat-zed-1\x1b`) {
		t.Errorf("threads: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noControls(t, "threads", r.stdout)
}

// TestLoginEscapesTheServer: `shim login` prints an error body and an
// authorization server's error with their control characters escaped (a
// verification page or user code holding them is refused instead: SPEC
// §15, pages_test.go).
func TestLoginEscapesTheServer(t *testing.T) {
	srv := hostileAgent(t)
	e := newShimEnv(t)
	r := e.run(t, "tok-hostile-0123456789\n", "login", "--url", srv.URL)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: could not check the token") {
		t.Fatalf("login: exit %d\n%s", r.code, r.stderr)
	}
	noControls(t, "login (probe error body)", r.stdout+r.stderr)

	r = e.run(t, "", "login", "--url", srv.URL+"/oauth", "--oauth-client-id", "shim-cli")
	if r.code != 1 || !strings.Contains(r.stderr, "enter the code CODE") || !strings.Contains(r.stderr, `denied \x1b]0;pwned`) {
		t.Fatalf("OAuth login: exit %d\n%s", r.code, r.stderr)
	}
	noControls(t, "login (device code, OAuth error)", r.stdout+r.stderr)
}
