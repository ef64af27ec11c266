package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// session runs initialize, session/new and one prompt through an ACP
// server process and returns the session/new response.
func session(t *testing.T, p *proc, terminal bool) map[string]any {
	t.Helper()
	if m := p.call(t, 1, "initialize", initParams(terminal)); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	m := p.call(t, 2, "session/new", newSessionParams())
	if r, _ := m["result"].(map[string]any); r != nil {
		sid := r["sessionId"].(string)
		if res := p.call(t, 3, "session/prompt", map[string]any{"sessionId": sid,
			"prompt": []any{map[string]any{"type": "text", "text": "hi"}}}); res["result"] == nil {
			t.Fatalf("prompt: %v\n%s", res, p.logs())
		}
	}
	return m
}

// A token stored for URL A is never sent anywhere else: not to a server
// B given as --url, not to B named as --endpoint or as the card's
// endpoint, not to another path of A's origin. B records every
// Authorization header it gets; A is the positive control.
func TestStoredTokenOnlyForItsURL(t *testing.T) {
	tokA := "tok-A-" + rand.Text()
	a := newFakeA2A(t, "", tokA)
	b := newFakeA2A(t, "", "")
	e := newShimEnv(t)
	if r := e.run(t, tokA, "login", "--url", a.url()); r.code != 0 {
		t.Fatalf("login: %d\n%s", r.code, r.stderr)
	}
	noToken := func(t *testing.T, what string, reqs []seenReq) {
		t.Helper()
		if len(reqs) == 0 {
			t.Fatalf("%s: B got no request at all", what)
		}
		for _, q := range reqs {
			if q.Auth != "" {
				t.Fatalf("%s: B got Authorization %q on %s %s", what, q.Auth, q.Method, q.Path)
			}
		}
	}

	// Positive control: no --url means the last login's URL, with its token.
	// (The login read the card before it had the token.)
	afterLogin := len(a.requests())
	p := e.start(t)
	if m := session(t, p, false); m["result"] == nil {
		t.Fatalf("session against A: %v\n%s", m, p.logs())
	}
	for _, q := range a.requests()[afterLogin:] {
		if q.Auth != "Bearer "+tokA {
			t.Fatalf("A got %q on %s", q.Auth, q.Path)
		}
	}

	t.Run("B as --url", func(t *testing.T) {
		p := e.start(t, "--url", b.url())
		if m := session(t, p, false); m["result"] == nil {
			t.Fatalf("session against B: %v", m)
		}
		if r := e.run(t, "", "doctor", "--url", b.url()); !strings.Contains(r.stdout, "none for this URL") {
			t.Errorf("doctor against B:\n%s", r.stdout)
		}
		noToken(t, "--url B", b.requests())
	})
	t.Run("B as --endpoint", func(t *testing.T) {
		n := len(b.requests())
		p := e.start(t, "--url", a.url(), "--endpoint", b.url()+"/a2a")
		p.call(t, 1, "initialize", initParams(false))
		p.call(t, 2, "session/new", newSessionParams())
		noToken(t, "--endpoint B", b.requests()[n:])
	})
	t.Run("B as the card's endpoint", func(t *testing.T) {
		n := len(b.requests())
		a.set(func(f *fakeA2A) { f.card = b.url() + "/a2a" })
		defer a.set(func(f *fakeA2A) { f.card = "" })
		p := e.start(t, "--url", a.url())
		if m := session(t, p, false); m["result"] == nil {
			t.Fatalf("session: %v\n%s", m, p.logs())
		}
		if got := b.requests()[n:]; len(got) != 0 {
			t.Fatalf("B got requests meant for A's card endpoint: %+v", got)
		}
	})
	t.Run("another path of A's origin", func(t *testing.T) {
		n := len(a.requests())
		e.run(t, "", "doctor", "--url", a.url()+"/elsewhere")
		got := a.requests()[n:]
		if len(got) == 0 {
			t.Fatal("no request")
		}
		for _, q := range got {
			if q.Auth != "" {
				t.Fatalf("the token stored for %s went to %s", a.url(), q.Path)
			}
		}
	})
}

// The token order of SPEC §9 (--token, --token-file, SHIM_TOKEN,
// SHIM_TOKEN_FILE, stored), a flag beating any variable, token files
// trimmed and "~" expanded; a token source that cannot be read is an
// error that says what to do, not a silent fall-through.
func TestTokenOrder(t *testing.T) {
	f := newFakeA2A(t, "", "")
	cases := []struct {
		name   string
		stored string
		env    map[string]string
		files  map[string]string // name under home → content
		args   []string
		want   string
	}{
		{name: "stored only", stored: "tok-stored-000", want: "tok-stored-000"},
		{name: "SHIM_TOKEN_FILE beats stored", stored: "tok-stored-000",
			files: map[string]string{"f1": "tok-envfile-111\n"}, env: map[string]string{"SHIM_TOKEN_FILE": "~/f1"}, want: "tok-envfile-111"},
		{name: "SHIM_TOKEN beats SHIM_TOKEN_FILE", files: map[string]string{"f1": "tok-envfile-111"},
			env: map[string]string{"SHIM_TOKEN_FILE": "~/f1", "SHIM_TOKEN": "tok-env-222"}, want: "tok-env-222"},
		{name: "--token-file beats SHIM_TOKEN", files: map[string]string{"f2": "  \n tok-flagfile-333 \n\n"},
			env: map[string]string{"SHIM_TOKEN": "tok-env-222"}, args: []string{"--token-file", "~/f2"}, want: "tok-flagfile-333"},
		{name: "--token beats --token-file", files: map[string]string{"f2": "tok-flagfile-333"},
			args: []string{"--token-file", "~/f2", "--token", "tok-flag-444"}, want: "tok-flag-444"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newShimEnv(t)
			if tc.stored != "" {
				if r := e.run(t, tc.stored, "login", "--url", f.url()); r.code != 0 {
					t.Fatalf("login: %s", r.stderr)
				}
			}
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(e.home, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tc.env {
				e.vars = append(e.vars, k+"="+v)
			}
			n := len(f.requests())
			r := e.run(t, "", append([]string{"doctor", "--url", f.url()}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			got := f.requests()[n:]
			if len(got) == 0 {
				t.Fatal("no request")
			}
			for _, q := range got {
				if q.Auth != "Bearer "+tc.want {
					t.Fatalf("%s %s sent %q, want the token %q", q.Method, q.Path, q.Auth, tc.want)
				}
			}
			if strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Errorf("doctor printed the token:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
	t.Run("unreadable token file", func(t *testing.T) { tokenOrderUnreadableFile(t, f) })
}

func tokenOrderUnreadableFile(t *testing.T, f *fakeA2A) {
	e := newShimEnv(t)
	if r := e.run(t, "tok-stored-000", "login", "--url", f.url()); r.code != 0 {
		t.Fatalf("login: %s", r.stderr)
	}
	n := len(f.requests())
	r := e.run(t, "", "doctor", "--token-file", "~/missing")
	if r.code != 1 || !strings.Contains(r.stdout, "token  ") || !strings.Contains(r.stdout, "FAIL") ||
		!strings.Contains(r.stdout, filepath.Join(e.home, "missing")) || !strings.Contains(r.stdout, "fix the path") {
		t.Fatalf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(f.requests()) != n {
		t.Errorf("the stored token was used instead: %+v", f.requests()[n:])
	}
	p := e.start(t, "--token-file", "~/missing")
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	reason, _ := errData(m)["reason"].(string)
	if errCode(m) != -32000 || !strings.Contains(reason, "fix the path") {
		t.Fatalf("session/new: %v", m)
	}
}

// A token over plain http to a host that is not this machine is refused
// before any connection: in ACP as -32603 with data.state "insecure" and
// a message naming --allow-insecure-http; in doctor as a FAIL row.
// --allow-insecure-http lifts it (the .invalid host then fails as
// unreachable, which shows a connection was tried).
func TestInsecureHTTPRefused(t *testing.T) {
	e := newShimEnv(t)
	const u = "http://agent.example.invalid:7870"
	p := e.start(t, "--url", u, "--token", "tok-insecure-0123456789")
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	msg, _ := rpcErrorOf(m)["message"].(string)
	if errCode(m) != -32603 || errData(m)["state"] != "insecure" || !strings.Contains(msg, "--allow-insecure-http") {
		t.Fatalf("session/new: %v", m)
	}
	if strings.Contains(p.logs(), "no such host") || strings.Contains(p.logs(), "cannot reach") {
		t.Errorf("a connection was tried:\n%s", p.logs())
	}
	r := e.run(t, "", "doctor", "--url", u, "--token", "tok-insecure-0123456789")
	if r.code != 1 || !strings.Contains(r.stdout, "--allow-insecure-http") {
		t.Fatalf("doctor: exit %d\n%s", r.code, r.stdout)
	}

	p = e.start(t, "--url", u, "--token", "tok-insecure-0123456789", "--allow-insecure-http")
	p.call(t, 1, "initialize", initParams(false))
	m = p.call(t, 2, "session/new", newSessionParams())
	if errCode(m) != -32603 || errData(m)["state"] != "unreachable" {
		t.Fatalf("session/new with --allow-insecure-http: %v", m)
	}
}
