package main

import (
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shimdev/shim/threads"
)

// initialize lists shim-credentials (no type) first, then shim-login: as a
// terminal method when the client advertises auth.terminal, else in the
// legacy _meta form with the absolute path of the running binary. It
// makes no network call: the first request the server sees comes after
// the session/new that follows it (stdin is read in order).
func TestInitializeAuthMethods(t *testing.T) {
	exe, err := filepath.EvalSymlinks(shimBin)
	if err != nil {
		t.Fatal(err)
	}
	for _, terminal := range []bool{false, true} {
		f := newFakeA2A(t, "", "")
		e := newShimEnv(t)
		p := e.start(t, "--url", f.url())
		m := p.call(t, 1, "initialize", initParams(terminal))
		var res struct {
			AgentCapabilities struct {
				Auth struct {
					Logout *struct{} `json:"logout"`
				} `json:"auth"`
			} `json:"agentCapabilities"`
			AuthMethods []map[string]any `json:"authMethods"`
		}
		b, _ := json.Marshal(m["result"])
		if err := json.Unmarshal(b, &res); err != nil || len(res.AuthMethods) != 2 {
			t.Fatalf("initialize: %v", m)
		}
		if res.AgentCapabilities.Auth.Logout == nil {
			t.Errorf("agentCapabilities.auth.logout missing: %s", b)
		}
		first, second := res.AuthMethods[0], res.AuthMethods[1]
		if first["id"] != "shim-credentials" || first["type"] != nil || first["name"] == "" {
			t.Errorf("first auth method %v", first)
		}
		if second["id"] != "shim-login" {
			t.Fatalf("second auth method %v", second)
		}
		if terminal {
			if second["type"] != "terminal" || !reflect.DeepEqual(second["args"], []any{"login"}) || second["_meta"] != nil {
				t.Errorf("terminal auth method %v", second)
			}
		} else {
			want := map[string]any{"label": "shim login", "command": exe, "args": []any{"login"}, "env": map[string]any{}}
			meta, _ := second["_meta"].(map[string]any)
			if second["type"] != nil || !reflect.DeepEqual(meta["terminal-auth"], want) {
				t.Errorf("legacy auth method %v, want _meta.terminal-auth %v", second, want)
			}
		}
		if got := f.requests(); len(got) != 0 {
			t.Fatalf("initialize made network calls: %+v", got)
		}
		if m := p.call(t, 2, "session/new", newSessionParams()); m["error"] != nil {
			t.Fatalf("session/new: %v", m)
		}
		// Exactly what session/new does: the card, then the auth probe,
		// the hand-off claim, the roots lookup, the busy signal and the
		// sessions list, in parallel (SPEC §19); anything more came from
		// initialize.
		got := requestLines(f.requests())
		want := []string{"GET /.well-known/agent-card.json ", "GET /api/chat/sessions/{id} ", "GET /api/chat/sessions?limit=1 ", "GET /api/config ", "GET /api/fs/roots ", "GET /api/projects ",
			"POST /a2a GetTask", "POST /api/editor/handoff/claim "}
		if len(got) > 0 {
			slices.Sort(got[1:])
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("requests up to session/new's answer: %q, want %q", got, want)
		}
	}
}

// authenticate with shim-credentials reloads the URL and the token: with
// nothing configured it answers -32000 with a reason naming shim login;
// after `shim login` ran in between it succeeds with that token; after a
// second login it uses the new token. shim-login answers -32000 telling
// to run `shim login`. The ACP logout forgets the stored token.
func TestAuthenticateReloads(t *testing.T) {
	tok1, tok2 := "tok-one-"+rand.Text(), "tok-two-"+rand.Text()
	f := newFakeA2A(t, "", tok1)
	e := newShimEnv(t)
	p := e.start(t)
	p.call(t, 1, "initialize", initParams(false))
	id := 10
	call := func(method string, params any) map[string]any {
		id++
		return p.call(t, id, method, params)
	}
	wantAuthRequired := func(what string, m map[string]any, words ...string) {
		t.Helper()
		checkAuthRequired(t, what, m, words...)
	}
	wantAuthRequired("session/new without a URL", call("session/new", newSessionParams()), "shim login", "--url")
	wantAuthRequired("session/list without a URL", call("session/list", map[string]any{}), "shim login", "--url")
	wantAuthRequired("authenticate without a URL", call("authenticate", map[string]any{"methodId": "shim-credentials"}), "shim login")

	if r := e.run(t, tok1, "login", "--url", f.url()); r.code != 0 {
		t.Fatalf("login: %s", r.stderr)
	}
	n := len(f.requests())
	if m := call("authenticate", map[string]any{"methodId": "shim-credentials"}); m["result"] == nil {
		t.Fatalf("authenticate after login: %v\n%s", m, p.logs())
	}
	if got := f.requests()[n:]; len(got) == 0 || got[len(got)-1].RPC != "GetTask" || got[len(got)-1].Auth != "Bearer "+tok1 {
		t.Fatalf("authenticate did not probe with the new token: %+v", got)
	}
	m := call("session/new", newSessionParams())
	if m["result"] == nil {
		t.Fatalf("session/new after authenticate: %v", m)
	}
	// The thread is indexed (with its first prompt, SPEC §18) under the
	// URL the login stored, though shim started without one.
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	if m := call("session/prompt", promptParams(sid, "hello")); m["result"] == nil {
		t.Fatalf("the first prompt: %v", m)
	}
	key := strings.TrimSuffix(f.url(), "/")
	checkIndexedOnce(t, e, key, sid)

	f.set(func(f *fakeA2A) { f.token = tok2 })
	if r := e.run(t, tok2, "login", "--url", f.url()); r.code != 0 {
		t.Fatalf("second login: %s", r.stderr)
	}
	n = len(f.requests())
	if m := call("authenticate", map[string]any{"methodId": "shim-credentials"}); m["result"] == nil {
		t.Fatalf("authenticate after the second login: %v", m)
	}
	if got := f.requests()[n:]; len(got) == 0 || got[len(got)-1].Auth != "Bearer "+tok2 {
		t.Fatalf("authenticate did not reload the token: %+v", got)
	}

	m = call("authenticate", map[string]any{"methodId": "shim-login"})
	if msg, _ := rpcErrorOf(m)["message"].(string); errCode(m) != -32000 || !strings.Contains(msg, "run `shim login`") {
		t.Fatalf("authenticate shim-login: %v", m)
	}
	if m := call("authenticate", map[string]any{"methodId": "nope"}); errCode(m) != -32602 {
		t.Fatalf("authenticate with an unknown method: %v", m)
	}

	if m := call("logout", map[string]any{}); m["result"] == nil {
		t.Fatalf("logout: %v", m)
	}
	if _, tokens := e.credentialsFile(t); len(tokens) != 0 {
		t.Fatalf("logout left %v", tokens)
	}
	wantAuthRequired("authenticate after logout", call("authenticate", map[string]any{"methodId": "shim-credentials"}), "shim login", "HTTP 401")
	wantAuthRequired("session/new after logout", call("session/new", newSessionParams()), "shim login", "HTTP 401")
	if strings.Contains(p.logs(), tok1) || strings.Contains(p.logs(), tok2) {
		t.Errorf("a token reached the log:\n%s", p.logs())
	}
}

// A token the server refuses: session/new and session/list answer -32000
// with a reason a person can act on.
func TestBadTokenAuthRequired(t *testing.T) {
	f := newFakeA2A(t, "", "tok-right-"+rand.Text())
	e := newShimEnv(t)
	p := e.start(t, "--url", f.url(), "--token", "tok-wrong-0123456789")
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	reason, _ := errData(m)["reason"].(string)
	// `shim login` cannot override --token: the advice names the flag.
	advice := "the token from --token was refused; fix it or remove it"
	if errCode(m) != -32000 || !strings.Contains(reason, "HTTP 401") || !strings.Contains(reason, advice) || strings.Contains(reason, "run `shim login`") || !strings.Contains(reason, f.url()) {
		t.Fatalf("session/new: %v", m)
	}
	m = p.call(t, 3, "session/list", map[string]any{"cwd": "/tmp"})
	if reason, _ := errData(m)["reason"].(string); errCode(m) != -32000 || !strings.Contains(reason, advice) || strings.Contains(reason, "run `shim login`") {
		t.Fatalf("session/list: %v", m)
	}
}

// checkAuthRequired checks that m is the -32000 answer and its
// data.reason names each of words.
func checkAuthRequired(t *testing.T, what string, m map[string]any, words ...string) {
	t.Helper()
	reason, _ := errData(m)["reason"].(string)
	if errCode(m) != -32000 {
		t.Fatalf("%s: want -32000, got %v", what, m)
	}
	for _, w := range words {
		if !strings.Contains(reason, w) {
			t.Errorf("%s: data.reason %q lacks %q", what, reason, w)
		}
	}
}

// checkIndexedOnce checks that the thread index holds sid alone under key.
func checkIndexedOnce(t *testing.T, e *shimEnv, key, sid string) {
	t.Helper()
	items, err := threads.Open(e.state, nil).List(key)
	if err != nil || len(items) != 1 || items[0].ID != sid {
		t.Errorf("index under %s: %+v %v", key, items, err)
	}
}

// requestLines are the requests as "METHOD path rpc", a session's own
// path under /api/chat/sessions/ as {id} (the session id minted).
func requestLines(reqs []seenReq) []string {
	var out []string
	for _, r := range reqs {
		path := r.Path
		if strings.HasPrefix(path, "/api/chat/sessions/") {
			path = "/api/chat/sessions/{id}"
		}
		out = append(out, r.Method+" "+path+" "+r.RPC)
	}
	return out
}
