package main

import (
	"bufio"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// doctorRows parses doctor's table: check → "VERDICT detail".
func doctorRows(t *testing.T, out string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	cols := regexp.MustCompile(`^(\S+(?: \S+)*)\s{2,}(\S+)\s{2,}(.*)$`)
	for sc.Scan() {
		m := cols.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("not a table row: %q in\n%s", sc.Text(), out)
		}
		rows[m[1]] = m[2] + " " + m[3]
	}
	if rows["CHECK"] != "VERDICT DETAIL" {
		t.Fatalf("no header in\n%s", out)
	}
	return rows
}

func wantRow(t *testing.T, rows map[string]string, check, prefix string) {
	t.Helper()
	if !strings.HasPrefix(rows[check], prefix) {
		t.Errorf("row %q = %q, want it to start with %q", check, rows[check], prefix)
	}
}

// shim doctor prints the rows of SPEC §1.1 with a verdict each; optional
// server APIs that answer 404 are "absent", not a failure; all good →
// exit 0. A refused token → the auth probe row FAILs and the exit status
// is 1; no URL → FAIL on the URL row.
func TestDoctor(t *testing.T) {
	tok := "tok-doctor-" + rand.Text()
	f := newFakeA2A(t, "", tok)
	f.set(func(f *fakeA2A) {
		f.api = map[string]int{
			"/api/chat/sessions":               200,
			"/api/chat/sessions/{id}/turns":    200,
			"/api/chat/sessions/{id}/steer":    405, // a POST-only route is there
			"/api/config":                      200,
			"/api/projects":                    200,
			"/api/editor/handoff/claim":        405,
			"/api/fs/roots/not-the-probed-one": 200,
		}
	})
	e := newShimEnv(t)
	if r := e.run(t, tok, "login", "--url", f.url()); r.code != 0 {
		t.Fatalf("login: %s", r.stderr)
	}
	if err := os.MkdirAll(e.state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(e.state, 0o755); err != nil {
		t.Fatal(err)
	}
	n := len(f.requests())
	r := e.run(t, "", "doctor")
	if r.code != 0 {
		t.Fatalf("all good: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := doctorRows(t, r.stdout)
	wantRow(t, rows, "agent URL", "ok "+f.url())
	wantRow(t, rows, "token", "ok from "+filepath.Join(e.config, "credentials.json"))
	wantRow(t, rows, "agent card", "ok Fake Agent")
	wantRow(t, rows, "dialect", "ok A2A 1.0")
	wantRow(t, rows, "binding", "ok JSON-RPC (from the card)")
	wantRow(t, rows, "endpoint", "ok "+f.url()+"/a2a")
	wantRow(t, rows, "auth probe", "ok")
	wantRow(t, rows, "api sessions", "ok")
	wantRow(t, rows, "api turns", "ok")
	wantRow(t, rows, "api steer", "ok")
	wantRow(t, rows, "api fs/roots", "absent")
	wantRow(t, rows, "api config", "ok")
	wantRow(t, rows, "api projects", "ok")
	wantRow(t, rows, "api handoff", "ok")
	wantRow(t, rows, "state dir", "warn "+e.state+" is 0755")
	wantRow(t, rows, "config dir", "ok")
	if strings.Contains(r.stdout+r.stderr, tok) {
		t.Errorf("doctor printed the token")
	}
	for _, q := range f.requests()[n:] {
		if strings.HasPrefix(q.Path, "/api/") && q.Method != "GET" {
			t.Errorf("doctor sent %s %s: only GETs may probe the server", q.Method, q.Path)
		}
		if q.Auth != "Bearer "+tok {
			t.Errorf("%s %s without the token", q.Method, q.Path)
		}
	}

	t.Run("refused token", func(t *testing.T) {
		r := e.run(t, "", "doctor", "--token", "tok-wrong-0123456789")
		if r.code != 1 || !strings.Contains(r.stderr, "FAIL") {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		rows := doctorRows(t, r.stdout)
		wantRow(t, rows, "agent card", "ok")
		wantRow(t, rows, "auth probe", "FAIL the server refused the token (HTTP 401): the token from --token was refused; fix it or remove it (it wins over the token `shim login` stores)")
		for check, v := range rows {
			if strings.HasPrefix(v, "FAIL") && check != "auth probe" {
				t.Errorf("row %q also failed: %q", check, v)
			}
		}
	})
	t.Run("no URL", func(t *testing.T) {
		r := newShimEnv(t).run(t, "", "doctor")
		if r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stdout)
		}
		wantRow(t, doctorRows(t, r.stdout), "agent URL", "FAIL none: run `shim login --url")
	})
	t.Run("unreachable", func(t *testing.T) {
		r := newShimEnv(t).run(t, "", "doctor", "--url", deadURL(t))
		if r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stdout)
		}
		rows := doctorRows(t, r.stdout)
		wantRow(t, rows, "agent card", "FAIL cannot reach")
		wantRow(t, rows, "auth probe", "skip")
		if !strings.HasSuffix(rows["agent card"], ": is the agent running, and is --url right?") {
			t.Errorf("the card row does not say what to check: %q", rows["agent card"])
		}
	})
}

// With --slug every request goes under /agents/<slug>: the card, the
// JSON-RPC endpoint, the operator API (sessions, hand-off, roots) and
// doctor's probes; a login with --slug is stored under the member's URL,
// and a later run with --slug and no --url does not add the prefix twice.
func TestSlugPaths(t *testing.T) {
	tok := "tok-slug-" + rand.Text()
	hub := newFakeA2A(t, "/agents/s1", tok)
	hub.set(func(f *fakeA2A) {
		f.api = map[string]int{"/api/chat/sessions": 200, "/api/fs/roots": 200, "/api/config": 200}
	})
	e := newShimEnv(t)
	key := hub.url() + "/agents/s1"
	if r := e.run(t, tok, "login", "--url", hub.url(), "--slug", "s1"); r.code != 0 {
		t.Fatalf("login: %s", r.stderr)
	}
	if last, tokens := e.credentialsFile(t); last != key || tokens[key] != tok {
		t.Fatalf("stored %q %v, want under %s", last, tokens, key)
	}
	for _, args := range [][]string{{"--url", hub.url(), "--slug", "s1"}, {"--slug", "s1"}, {}} {
		p := e.start(t, args...)
		if m := session(t, p, false); m["result"] == nil {
			t.Fatalf("%v: session/new: %v\n%s", args, m, p.logs())
		}
		if m := p.call(t, 9, "session/list", map[string]any{"cwd": "/tmp"}); m["result"] == nil {
			t.Fatalf("%v: session/list: %v", args, m)
		}
		if r := e.run(t, "", append([]string{"doctor"}, args...)...); r.code != 0 {
			t.Fatalf("%v: doctor: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	seen := map[string]bool{}
	for _, q := range hub.requests() {
		if !strings.HasPrefix(q.Path, "/agents/s1/") {
			t.Errorf("%s %s is outside /agents/s1", q.Method, q.Path)
		}
		p := strings.SplitN(strings.TrimPrefix(q.Path, "/agents/s1"), "?", 2)[0]
		seen[p] = true
	}
	for _, want := range []string{"/.well-known/agent-card.json", "/a2a", "/api/chat/sessions", "/api/editor/handoff/claim", "/api/fs/roots"} {
		if !seen[want] {
			t.Errorf("no request to /agents/s1%s; saw %v", want, seen)
		}
	}
}

// --help says how to sign in and how to check the setup; each command's
// help says what it does on failure.
func TestHelpSaysWhatToDo(t *testing.T) {
	e := newShimEnv(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"shim login --url", "shim doctor", "--token-file", "other local users can read it in the process list"}},
		{[]string{"login", "--help"}, []string{`echo "$TOKEN" | shim login --url URL`, "not echoed", "401/403", "exit status is 1", "credentials.json"}},
		{[]string{"logout", "--help"}, []string{"forget"}},
		{[]string{"doctor", "--help"}, []string{"FAIL", "absent", "Exits 1"}},
	} {
		r := e.run(t, "", c.args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d", c.args, r.code)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v does not say %q:\n%s", c.args, w, r.stdout)
			}
		}
	}
}
