package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/internal/termsafe"
)

// deviceAS is an authorization server whose device authorization answers
// what the test gives (no real server sends a hostile page: a fake is the
// only way to get one) and whose token endpoint issues token at the
// first poll. It keeps the path of every request it is sent.
type deviceAS struct {
	srv   *httptest.Server
	token string

	mu     sync.Mutex
	answer map[string]any
	seen   []string
}

func newDeviceAS(t *testing.T, answer map[string]any) *deviceAS {
	t.Helper()
	as := &deviceAS{token: "issued-access-token-0123456789", answer: answer}
	as.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		as.mu.Lock()
		as.seen = append(as.seen, r.Method+" "+r.URL.Path)
		answer := as.answer
		as.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/device":
			out := map[string]any{"device_code": "dc-0123456789", "interval": 1, "expires_in": 600}
			for k, v := range answer {
				out[k] = v
			}
			json.NewEncoder(w).Encode(out)
		case "/token":
			json.NewEncoder(w).Encode(map[string]any{"access_token": as.token, "token_type": "Bearer", "expires_in": 3600})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(as.srv.Close)
	return as
}

func (as *deviceAS) requests() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.seen)
}

// agent is an A2A agent whose card signs in with the device-code flow at
// as and that takes the token as issues.
func (as *deviceAS) agent(t *testing.T) *schemeAgent {
	return newSchemeAgent(t, map[string]any{"sso": map[string]any{"oauth2SecurityScheme": map[string]any{"flows": map[string]any{
		"deviceCode": map[string]any{"deviceAuthorizationUrl": as.srv.URL + "/device", "tokenUrl": as.srv.URL + "/token", "scopes": map[string]any{}}}}}},
		requirement("sso"), func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+as.token })
}

// editorPages is an editor that opens every page shim asks it to
// (accepts every URL elicitation) and keeps what it was asked.
type editorPages struct {
	mu    sync.Mutex
	asked []map[string]any
}

func (e *editorPages) handle(method string, params json.RawMessage) (any, *acptest.RPCError) {
	var p map[string]any
	_ = json.Unmarshal(params, &p)
	p["method"] = method
	e.mu.Lock()
	e.asked = append(e.asked, p)
	e.mu.Unlock()
	if method == "elicitation/create" && p["mode"] == "url" {
		return map[string]any{"action": "accept"}, nil
	}
	return map[string]any{"action": "decline"}, nil
}

func (e *editorPages) requests() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

// noCredentialsFile fails when the sign-in wrote the credentials file.
func noCredentialsFile(t *testing.T, what string, e *shimEnv) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(e.config, "credentials.json")); !errors.Is(err, os.ErrNotExist) {
		b, _ := os.ReadFile(filepath.Join(e.config, "credentials.json"))
		t.Errorf("%s: the credentials file was written (%v): %s", what, err, b)
	}
}

const (
	goodPage = "https://verify.example/device"
	goodCode = "WDJB-MQHT"
	osc52    = "\x1b]52;c;cm0gLXJmIH4=\x07"
)

// The pages and codes a hostile authorization server (or the issue that
// asked for this) gives: each ends the sign-in, naming the rule, before
// anything is shown or polled.
var refusedPages = []struct {
	name, uri, code string
	rule            string // what the error says
	mark            string // part of the hostile value that must not be shown
}{
	{"javascript", "javascript:alert(document.cookie)", goodCode, "it is not https (nor http to this machine)", "javascript"},
	{"file", "file:///etc/passwd", goodCode, "it is not https (nor http to this machine)", "etc/passwd"},
	{"data", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", goodCode, "it is not https (nor http to this machine)", "PHNjcmlwdD5"},
	{"protocol handler", "ms-msdt:/id%20PCWDiagnostic%20/skip%20force", goodCode, "it is not https (nor http to this machine)", "ms-msdt"},
	{"http elsewhere", "http://phish.example/device", goodCode, "it is not https (nor http to this machine)", "phish.example"},
	{"userinfo", "https://verify.example@phish.example/device", goodCode, "it carries a user name or password before its host", "phish.example"},
	{"CR LF and OSC 52", "https://verify.example/device\r\nX-Y: z" + osc52, goodCode, "it holds a control or whitespace character", "cm0gLXJm"},
	{"right-to-left override", "https://verify.example/\u202elmth.evil", goodCode, "it holds a control or whitespace character", "lmth.evil"},
	{"longer than 2,048 bytes", goodPage + "/" + strings.Repeat("a", 2048-len(goodPage)), goodCode, "it is longer than 2,048 bytes", strings.Repeat("a", 64)},
	{"code with ESC", goodPage, "WDJB" + osc52 + "MQHT", "it holds a character other than printable ASCII", "cm0gLXJm"},
	{"code with newlines", goodPage, "WDJB\nMQHT\n", "it holds a character other than printable ASCII", "MQHT"},
	{"code with U+202E", goodPage, "WDJB\u202eTHQM", "it holds a character other than printable ASCII", "THQM"},
	{"code of 65 characters", goodPage, strings.Repeat("K", 65), "it is longer than 64 characters", strings.Repeat("K", 65)},
}

// TestSignInRefusesHostilePages: authenticate with "Sign in to <agent>"
// from an editor that opens pages, against a device authorization that
// answers a hostile page or code: -32000 naming the rule, no
// elicitation/create, no polling at the token endpoint, nothing stored,
// and the hostile value nowhere in the answer.
func TestSignInRefusesHostilePages(t *testing.T) {
	for _, tt := range refusedPages {
		t.Run(tt.name, func(t *testing.T) {
			as := newDeviceAS(t, map[string]any{"verification_uri": tt.uri, "user_code": tt.code})
			a := as.agent(t)
			e := newShimEnv(t)
			var editor editorPages
			p := e.serveACP(t, editor.handle, "--url", a.srv.URL, "--oauth-client-id", "shim-cli")
			p.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}})
			m := p.Call("authenticate", map[string]any{"methodId": "shim-oauth"})
			if m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, tt.rule) {
				t.Fatalf("authenticate: want -32000 saying %q, got %+v %s\n%s", tt.rule, m.Error, m.Result, p.logs())
			}
			if got := editor.requests(); len(got) != 0 {
				t.Errorf("the editor was asked: %v", got)
			}
			var out strings.Builder
			for _, msg := range p.Messages() {
				if msg.Method == "elicitation/create" {
					t.Errorf("elicitation/create sent: %s", msg.Raw)
				}
				out.Write(msg.Raw)
			}
			if strings.Contains(out.String(), tt.mark) {
				t.Errorf("the hostile value reached the editor:\n%s", out.String())
			}
			if got := as.requests(); !slices.Equal(got, []string{"POST /device"}) {
				t.Errorf("authorization server saw %q, want only the device authorization", got)
			}
			noCredentialsFile(t, "authenticate", e)
		})
	}
}

// TestLoginRefusesHostilePages: `shim login` against the same device
// authorizations exits 1 naming the rule, prints no part of the hostile
// value, polls no token and stores nothing.
func TestLoginRefusesHostilePages(t *testing.T) {
	for _, tt := range refusedPages {
		t.Run(tt.name, func(t *testing.T) {
			as := newDeviceAS(t, map[string]any{"verification_uri": tt.uri, "user_code": tt.code})
			a := as.agent(t)
			e := newShimEnv(t)
			r := e.run(t, "", "login", "--url", a.srv.URL, "--oauth-client-id", "shim-cli")
			out := r.stdout + r.stderr
			if r.code != 1 || !strings.Contains(r.stderr, tt.rule) || !strings.Contains(r.stderr, "nothing was stored") {
				t.Fatalf("login: exit %d, want 1 saying %q\n%s", r.code, tt.rule, out)
			}
			if strings.Contains(out, tt.mark) || strings.Contains(out, termsafe.String(tt.uri)) || strings.Contains(out, termsafe.String(tt.code)) {
				t.Errorf("login printed the hostile value:\n%s", out)
			}
			if got := as.requests(); !slices.Equal(got, []string{"POST /device"}) {
				t.Errorf("authorization server saw %q, want only the device authorization", got)
			}
			noCredentialsFile(t, "login", e)
		})
	}
}

// The page with the code in it (verification_uri_complete) is shown only
// when it passes and has the page's origin; otherwise the page and the
// code, and the other one nowhere.
var completePages = []struct {
	name, complete string
	used           bool
	mark           string // part of a complete page not used, that must not be shown
}{
	{"same origin", goodPage + "?user_code=" + goodCode, true, ""},
	{"another host", "https://phish.example/device?user_code=" + goodCode, false, "phish.example"},
	{"another port", "https://verify.example:8443/device?user_code=" + goodCode, false, ":8443"},
	{"another scheme", "http://verify.example/device?user_code=" + goodCode, false, "http://verify"},
	{"same origin, OSC 52", goodPage + "?user_code=" + goodCode + osc52, false, "cm0gLXJm"},
	{"same origin, userinfo", "https://verify.example@verify.example/device?user_code=" + goodCode, false, "verify.example@"},
}

// TestSignInCompletePageOrigin: authenticate shows the complete page when
// it has the page's origin, else the page (the code in the message); the
// sign-in ends stored either way.
func TestSignInCompletePageOrigin(t *testing.T) {
	for _, tt := range completePages {
		t.Run(tt.name, func(t *testing.T) {
			as := newDeviceAS(t, map[string]any{"verification_uri": goodPage, "verification_uri_complete": tt.complete, "user_code": goodCode})
			a := as.agent(t)
			e := newShimEnv(t)
			var editor editorPages
			p := e.serveACP(t, editor.handle, "--url", a.srv.URL, "--oauth-client-id", "shim-cli")
			p.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}})
			if m := p.Call("authenticate", map[string]any{"methodId": "shim-oauth"}); m.Error != nil || string(m.Result) != "{}" {
				t.Fatalf("authenticate: %+v\n%s", m.Error, p.logs())
			}
			asked := editor.requests()
			want := goodPage
			if tt.used {
				want = tt.complete
			}
			if len(asked) != 1 || asked[0]["method"] != "elicitation/create" || asked[0]["url"] != want {
				t.Fatalf("the editor was asked %v, want one page %s", asked, want)
			}
			if msg, _ := asked[0]["message"].(string); !strings.Contains(msg, "enter the code "+goodCode) {
				t.Errorf("message %q lacks the code", msg)
			}
			var out strings.Builder
			for _, msg := range p.Messages() {
				out.Write(msg.Raw)
			}
			if tt.mark != "" && strings.Contains(out.String(), tt.mark) {
				t.Errorf("the complete page of another origin reached the editor:\n%s", out.String())
			}
			if f := readStored(t, e); f.Tokens[a.srv.URL] != as.token {
				t.Errorf("stored %+v", f)
			}
		})
	}
}

// TestLoginCompletePageOrigin: `shim login` prints the complete page when
// it has the page's origin, else only the page and the code.
func TestLoginCompletePageOrigin(t *testing.T) {
	for _, tt := range completePages {
		t.Run(tt.name, func(t *testing.T) {
			as := newDeviceAS(t, map[string]any{"verification_uri": goodPage, "verification_uri_complete": tt.complete, "user_code": goodCode})
			a := as.agent(t)
			e := newShimEnv(t)
			r := e.run(t, "", "login", "--url", a.srv.URL, "--oauth-client-id", "shim-cli")
			out := r.stdout + r.stderr
			if r.code != 0 || !strings.Contains(out, "open "+goodPage+" and enter the code "+goodCode+"\n") {
				t.Fatalf("login: exit %d\n%s", r.code, out)
			}
			if got := strings.Contains(out, "(or open "+tt.complete+")"); got != tt.used {
				t.Errorf("complete page shown: %v, want %v\n%s", got, tt.used, out)
			}
			if tt.mark != "" && strings.Contains(out, tt.mark) {
				t.Errorf("the complete page of another origin was printed:\n%s", out)
			}
			if f := readStored(t, e); f.Tokens[a.srv.URL] != as.token {
				t.Errorf("stored %+v", f)
			}
		})
	}
}

// The authorization URL the authorization-code flow builds from a card's
// authorizationUrl that the card's own checks (https) let through, and
// the rule it breaks as a page to open.
var refusedAuthPages = []struct{ name, authURL, rule, mark string }{
	{"userinfo", "https://user:pass@login.example/authorize", "it carries a user name or password before its host", "user:pass"},
	{"space", "https://login.example/author ize", "it holds a control or whitespace character", "author ize"},
	{"right-to-left override", "https://login.example/\u202eexe.authorize", "it holds a control or whitespace character", "exe.authorize"},
	{"longer than 2,048 bytes", "https://login.example/" + strings.Repeat("b", 2048), "it is longer than 2,048 bytes", strings.Repeat("b", 64)},
}

// TestAuthCodePageRefused: a card whose authorization-code flow leads to
// a page shim will not show: `shim login` exits 1 naming the rule and
// prints no URL, authenticate answers -32000 with no elicitation/create;
// no token is asked for and nothing is stored.
func TestAuthCodePageRefused(t *testing.T) {
	for _, tt := range refusedAuthPages {
		t.Run(tt.name, func(t *testing.T) {
			as := newDeviceAS(t, nil)
			a := newSchemeAgent(t, map[string]any{"sso": map[string]any{"oauth2SecurityScheme": map[string]any{"flows": map[string]any{
				"authorizationCode": map[string]any{"authorizationUrl": tt.authURL, "tokenUrl": as.srv.URL + "/token", "scopes": map[string]any{}}}}}},
				requirement("sso"), func(*http.Request) bool { return false })
			e := newShimEnv(t)
			r := e.run(t, "", "login", "--url", a.srv.URL, "--oauth-client-id", "shim-cli")
			out := r.stdout + r.stderr
			if r.code != 1 || !strings.Contains(r.stderr, "the sign-in page built from the authorization URL was refused: "+tt.rule) ||
				!strings.Contains(r.stderr, "nothing was stored") {
				t.Fatalf("login: exit %d, want 1 saying %q\n%s", r.code, tt.rule, out)
			}
			if strings.Contains(out, tt.mark) || strings.Contains(out, "code_challenge") {
				t.Errorf("login printed the page:\n%s", out)
			}
			noCredentialsFile(t, "login", e)

			var editor editorPages
			p := e.serveACP(t, editor.handle, "--url", a.srv.URL, "--oauth-client-id", "shim-cli")
			p.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}})
			m := p.Call("authenticate", map[string]any{"methodId": "shim-oauth"})
			if m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, tt.rule) {
				t.Fatalf("authenticate: want -32000 saying %q, got %+v %s\n%s", tt.rule, m.Error, m.Result, p.logs())
			}
			if got := editor.requests(); len(got) != 0 {
				t.Errorf("the editor was asked: %v", got)
			}
			for _, msg := range p.Messages() {
				if msg.Method == "elicitation/create" || strings.Contains(string(msg.Raw), tt.mark) {
					t.Errorf("the page reached the editor: %s", msg.Raw)
				}
			}
			if got := as.requests(); len(got) != 0 {
				t.Errorf("the token endpoint was asked: %q", got)
			}
			noCredentialsFile(t, "authenticate", e)
		})
	}
}
