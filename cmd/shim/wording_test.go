package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answering serves every request with one status, content type and body.
func answering(t *testing.T, status int, ctype, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const cardHint = "check --url (and --slug), or pass --endpoint"

// TestWordingNotAnAgent: a server that answers 404, 500 or an HTML page is
// not called unreachable: doctor and a session say what it answered, and
// the hint comes once.
func TestWordingNotAnAgent(t *testing.T) {
	for _, tt := range []struct {
		name, ctype, body string
		status            int
		got               string
	}{
		{"404", "text/plain", "404 page not found", 404, "answered HTTP 404: 404 page not found"},
		{"500", "text/plain", "", 500, "answered HTTP 500"},
		{"HTML", "text/html", "<html><title>Welcome to nginx!</title></html>", 200, "answered an HTML page, not an agent card"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := answering(t, tt.status, tt.ctype, tt.body)
			e := newShimEnv(t)
			r := e.run(t, "", "doctor", "--url", u)
			row := doctorRows(t, r.stdout)["agent card"]
			want := "FAIL no agent card: " + u + "/.well-known/agent-card.json " + tt.got
			if r.code != 1 || !strings.HasPrefix(row, want) {
				t.Errorf("exit %d, agent card row %q, want it to start with %q", r.code, row, want)
			}
			if n := strings.Count(row, cardHint); n != 1 || strings.Contains(row, "unreachable") {
				t.Errorf("row %q: the hint %d times (want 1), or says unreachable", row, n)
			}

			p := e.start(t, "--url", u)
			p.call(t, 1, "initialize", initParams(false))
			m := p.call(t, 2, "session/new", newSessionParams())
			msg, _ := rpcErrorOf(m)["message"].(string)
			if !strings.Contains(msg, tt.got) || strings.Contains(msg, "unreachable") || strings.Count(msg, cardHint) != 1 {
				t.Errorf("session/new error %q: want it to say %q, not unreachable, the hint once", msg, tt.got)
			}
		})
	}
}

// TestWordingURLWithoutScheme: --url localhost:7870 says the http:// or
// https:// is missing, not that "localhost" is a scheme.
func TestWordingURLWithoutScheme(t *testing.T) {
	r := newShimEnv(t).run(t, "", "doctor", "--url", "localhost:7870")
	want := `shim: --url: "localhost:7870" has no http:// or https://; write it as https://localhost:7870 (or http://localhost:7870 for an agent on this machine)`
	if r.code == 0 || strings.TrimSpace(r.stderr) != want {
		t.Errorf("exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
	}
}

// TestWordingNoTokenSent: doctor does not say "the token works" when no
// token was sent.
func TestWordingNoTokenSent(t *testing.T) {
	f := newFakeA2A(t, "", "")
	r := newShimEnv(t).run(t, "", "doctor", "--url", f.url())
	row := doctorRows(t, r.stdout)["auth probe"]
	if !strings.HasPrefix(row, "ok no token was sent") || !strings.Contains(row, "accepts calls without one") || strings.Contains(row, "the token works") {
		t.Errorf("auth probe row %q", row)
	}
}

// TestWordingRefusedEnvToken: a refused SHIM_TOKEN is named, and the
// advice is not `shim login` (which cannot override it).
func TestWordingRefusedEnvToken(t *testing.T) {
	f := newFakeA2A(t, "", "tok-right-0123456789")
	e := newShimEnv(t)
	e.vars = append(e.vars, "SHIM_TOKEN=tok-wrong-0123456789")
	r := e.run(t, "", "doctor", "--url", f.url())
	want := "FAIL the server refused the token (HTTP 401): the token from SHIM_TOKEN was refused; fix it or remove it"
	if row := doctorRows(t, r.stdout)["auth probe"]; !strings.HasPrefix(row, want) {
		t.Errorf("auth probe row %q\nwant %q", row, want)
	}
}

// TestFailuresLogged: in editor mode each failure the editor is told about
// is also logged once on stderr at warn (the log the recipes point at),
// tokens redacted.
func TestFailuresLogged(t *testing.T) {
	tok := "tok-logged-0123456789"
	f := newFakeA2A(t, "", tok)
	f.set(func(f *fakeA2A) { f.echo = true })
	e := newShimEnv(t)
	p := e.start(t, "--url", f.url(), "--token", tok)
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	m = p.call(t, 3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "please fail"}}})
	if rpcErrorOf(m) == nil {
		t.Fatalf("prompt: %v", m)
	}
	// An agent that answers 404 to everything, and a refused token.
	bad := answering(t, 404, "text/plain", "nope")
	p2 := e.start(t, "--url", bad)
	p2.call(t, 1, "initialize", initParams(false))
	p2.call(t, 2, "session/new", newSessionParams())
	p3 := e.start(t, "--url", f.url(), "--token", "tok-wrong-0123456789")
	p3.call(t, 1, "initialize", initParams(false))
	p3.call(t, 2, "session/new", newSessionParams())
	for _, c := range []struct {
		p    *proc
		want string
	}{
		{p, "method=session/prompt code=-32603 state=failed"},
		{p2, "method=session/new code=-32603 state=unreachable"},
		{p3, "method=session/new code=-32000"},
	} {
		// stderr is its own pipe: wait for the line to be read.
		logs := c.p.waitLogs(t, "request failed")
		var warns []string
		for _, l := range strings.Split(logs, "\n") {
			if strings.Contains(l, "level=WARN") && strings.Contains(l, "request failed") {
				warns = append(warns, l)
			}
		}
		if len(warns) != 1 || !strings.Contains(warns[0], c.want) {
			t.Errorf("want one warn line with %q, got %q\nlog:\n%s", c.want, warns, logs)
		}
		if strings.Contains(logs, tok) {
			t.Errorf("the token reached the log:\n%s", logs)
		}
	}
}

// waitLogs waits until stderr holds want (the process wrote it before its
// answer, but the two pipes are read apart), then returns the log.
func (p *proc) waitLogs(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.logs(), want) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return p.logs()
}
