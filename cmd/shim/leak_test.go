package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A whole session with a known token, debug logging and --trace-frames:
// initialize, session/new, a prompt, session/list, and a prompt the
// server fails with an error that quotes the Authorization header back.
// The token appears nowhere: not on stderr, not in the trace (which holds
// the frames), not on any stdout line, not in the error the editor gets
// (which says [redacted] where the server quoted it).
func TestTokenNeverLeaks(t *testing.T) {
	tok := "tok-leak-" + strings.ToLower(rand.Text())
	f := newFakeA2A(t, "", tok)
	f.set(func(f *fakeA2A) { f.echo = true })
	e := newShimEnv(t)
	if r := e.run(t, tok+"\n", "login", "--url", f.url(), "--log-level", "debug"); r.code != 0 || strings.Contains(r.stdout+r.stderr, tok) {
		t.Fatalf("login: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	trace := filepath.Join(t.TempDir(), "frames.jsonl")
	p := e.start(t, "--log-level", "debug", "--trace-frames", trace)
	if m := session(t, p, true); m["result"] == nil {
		t.Fatalf("session: %v\n%s", m, p.logs())
	}
	sid := p.call(t, 4, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"]
	p.call(t, 5, "session/list", map[string]any{"cwd": "/tmp"})
	m := p.call(t, 6, "session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "please fail"}}})
	msg, _ := rpcErrorOf(m)["message"].(string)
	if m["error"] == nil || !strings.Contains(msg, "bad credentials: Bearer [redacted]") {
		t.Fatalf("the failing prompt: %v", m)
	}
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("shim did not exit")
	}
	// Whatever stdout still held.
	rest, _ := bufioReadAll(p)

	p.mu.Lock()
	lines := append([][]byte(nil), p.lines...)
	p.mu.Unlock()
	if len(lines) < 8 {
		t.Fatalf("only %d stdout lines", len(lines))
	}
	for i, l := range append(lines, rest) {
		if bytes.Contains(l, []byte(tok)) {
			t.Errorf("stdout line %d holds the token: %s", i, l)
		}
	}
	logs := p.logs()
	if !strings.Contains(logs, "level=DEBUG") {
		t.Errorf("no debug logs")
	}
	if strings.Contains(logs, tok) {
		t.Errorf("stderr holds the token:\n%s", logs)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(tok)) {
		t.Errorf("the trace holds the token:\n%s", b)
	}
	frames, methods := traceMethods(t, b)
	if frames < 6 || !methods["SendStreamingMessage"] || !methods["GetTask"] {
		t.Errorf("the trace holds %d frames of %v; want the probe and both prompts", frames, methods)
	}
	if !bytes.Contains(b, []byte("[redacted]")) {
		t.Errorf("the trace does not show the server's echo, redacted:\n%s", b)
	}
}

func bufioReadAll(p *proc) ([]byte, error) {
	var out bytes.Buffer
	_, err := out.ReadFrom(bufio.NewReader(p.stdout))
	return out.Bytes(), err
}

// Tokens of every shape a server may echo: JSON's and HTML's special
// characters, non-ASCII characters, one of 8 characters (the shortest
// login takes). The server quotes each back in a failed task's status
// text, in an error message and in the error's data (ASCII-escaped); the
// token reaches neither stdout (where every line stays valid JSON), nor
// stderr, nor the trace, in any form.
func TestOddTokensNeverLeak(t *testing.T) {
	for _, tok := range []string{`a&b<c>d"e\f`, "tökén-ünï-çødé", "short9ch"} {
		t.Run(tok, func(t *testing.T) {
			f := newFakeA2A(t, "", tok)
			f.set(func(f *fakeA2A) { f.echoAll = true })
			e := newShimEnv(t)
			e.vars = append(e.vars, "SHIM_TOKEN="+tok)
			trace := filepath.Join(t.TempDir(), "frames.jsonl")
			p := e.start(t, "--url", f.url(), "--log-level", "debug", "--trace-frames", trace)
			if m := session(t, p, false); m["result"] == nil {
				t.Fatalf("session: %v\n%s", m, p.logs())
			}
			sid := p.call(t, 4, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"]
			for i, text := range []string{"please fail-task", "please fail-error"} {
				m := p.call(t, 5+i, "session/prompt", map[string]any{"sessionId": sid,
					"prompt": []any{map[string]any{"type": "text", "text": text}}})
				if m["error"] == nil {
					t.Fatalf("%s: %v", text, m)
				}
				if b, _ := json.Marshal(m); !bytes.Contains(b, []byte("[redacted]")) {
					t.Errorf("%s: the error does not show the echo, redacted: %s", text, b)
				}
			}
			p.stdin.Close()
			done := make(chan error, 1)
			go func() { done <- p.cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("shim did not exit")
			}
			rest, _ := bufioReadAll(p)
			p.mu.Lock()
			stdout := bytes.Join(append(p.lines, rest), nil)
			p.mu.Unlock()
			tr, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(tr, []byte("[redacted]")) {
				t.Errorf("the trace does not show the echo, redacted:\n%s", tr)
			}
			for where, out := range map[string]string{"stdout": string(stdout), "stderr": p.logs(), "trace": string(tr)} {
				for _, form := range tokenForms(tok) {
					if strings.Contains(out, form) {
						t.Errorf("%s holds the token as %q:\n%s", where, form, out)
					}
				}
			}
		})
	}
}

// tokenForms is what encoders make of a token: raw, JSON with and without
// HTML escaping, JSON with non-ASCII escaped, Go-quoted.
func tokenForms(tok string) []string {
	html, _ := json.Marshal(tok)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(tok)
	plain := strings.TrimSpace(b.String())
	ascii := strconv.QuoteToASCII(tok)
	goq := strconv.Quote(tok)
	var out []string
	for _, q := range []string{string(html), plain, ascii, goq} {
		out = append(out, q[1:len(q)-1])
	}
	return append(out, tok)
}

// traceMethods counts the frames of a --trace-frames file and the methods
// they name.
func traceMethods(t *testing.T, b []byte) (int, map[string]bool) {
	t.Helper()
	frames, methods := 0, map[string]bool{}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var fr struct{ Dir, Method string }
		if err := json.Unmarshal(l, &fr); err != nil {
			t.Fatalf("trace line %q: %v", l, err)
		}
		frames++
		methods[fr.Method] = true
	}
	return frames, methods
}
