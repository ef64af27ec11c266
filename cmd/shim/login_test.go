package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/cmd/shim/internal/console"
)

// fakeConsole is a terminal whose typed lines are in, whose hidden input
// is secret, and whose screen is screen.
func fakeConsole(terminal bool, in, secret string) (*console.Console, *bytes.Buffer, *int) {
	screen := &bytes.Buffer{}
	reads := new(int)
	return &console.Console{
		In:       bufio.NewReader(strings.NewReader(in)),
		Prompt:   screen,
		Terminal: terminal,
		ReadSecret: func() ([]byte, error) {
			*reads++
			if secret == "" {
				return nil, io.EOF
			}
			return []byte(secret), nil
		},
	}, screen, reads
}

// plainURL checks a typed URL as login does for an agent on no platform.
func plainURL(u string) error {
	if _, err := credentials.Normalize(u, ""); err != nil {
		return urlError(u, err)
	}
	return nil
}

// The prompt logic of `shim login` on a terminal: the URL prompt offers
// the default and takes it on an empty line, a typed URL wins, a bad URL
// is asked again, the token is read through the no-echo reader (never
// shown), and without a terminal nothing is asked.
func TestLoginPrompts(t *testing.T) {
	const tok = "tok-prompt-0123456789"
	t.Run("default taken on an empty line", func(t *testing.T) { loginPromptsDefault(t, tok) })
	t.Run("typed URL wins", func(t *testing.T) { loginPromptsTyped(t, tok) })
	t.Run("no default: asks until a usable URL", func(t *testing.T) { loginPromptsAsksAgain(t, tok) })
	t.Run("no default and end of input", func(t *testing.T) { loginPromptsEndOfInput(t, tok) })
	t.Run("token pasted with the URL", func(t *testing.T) { loginPromptsPasted(t, tok) })
	t.Run("empty token", func(t *testing.T) { loginPromptsEmptyToken(t) })
	t.Run("Bearer prefix and white space dropped", func(t *testing.T) { loginPromptsBearer(t, tok) })
	t.Run("not a terminal", func(t *testing.T) { loginPromptsNoTerminal(t, tok) })
}

func loginPromptsDefault(t *testing.T, tok string) {
	con, screen, reads := fakeConsole(true, "\n", tok)
	u, err := con.URL("https://last.example", plainURL)
	if err != nil || u != "https://last.example" {
		t.Fatalf("askURL = %q, %v", u, err)
	}
	if !strings.Contains(screen.String(), "Agent URL [https://last.example]: ") {
		t.Errorf("prompt %q does not offer the default", screen.String())
	}
	got, err := con.Token("https://last.example", "Bearer token")
	if err != nil || got != tok || *reads != 1 {
		t.Fatalf("askToken = %q, %v (no-echo reads %d)", got, err, *reads)
	}
	if strings.Contains(screen.String(), tok) {
		t.Errorf("the token was echoed: %q", screen.String())
	}
	if !strings.Contains(screen.String(), "input hidden") {
		t.Errorf("token prompt %q", screen.String())
	}
}

func loginPromptsTyped(t *testing.T, tok string) {
	con, _, _ := fakeConsole(true, "  https://typed.example:7870/  \n", tok)
	if u, err := con.URL("https://last.example", plainURL); err != nil || u != "https://typed.example:7870/" {
		t.Fatalf("askURL = %q, %v", u, err)
	}
}

func loginPromptsAsksAgain(t *testing.T, tok string) {
	con, screen, _ := fakeConsole(true, "\nftp://x\nhttps://ok.example\n", tok)
	u, err := con.URL("", plainURL)
	if err != nil || u != "https://ok.example" {
		t.Fatalf("askURL = %q, %v", u, err)
	}
	s := screen.String()
	if !strings.Contains(s, "An agent URL is needed") || !strings.Contains(s, "is not http or https") {
		t.Errorf("screen %q", s)
	}
}

func loginPromptsEndOfInput(t *testing.T, tok string) {
	con, _, _ := fakeConsole(true, "", tok)
	if _, err := con.URL("", plainURL); err == nil || !strings.Contains(err.Error(), "--url") {
		t.Fatalf("askURL = %v, want an error naming --url", err)
	}
}

func loginPromptsPasted(t *testing.T, tok string) {
	con, screen, reads := fakeConsole(true, "https://a.example\n"+tok+"\n", "")
	if _, err := con.URL("", plainURL); err != nil {
		t.Fatal(err)
	}
	got, err := con.Token("https://a.example", "Bearer token")
	if err != nil || got != tok || *reads != 0 {
		t.Fatalf("askToken = %q, %v, reads %d", got, err, *reads)
	}
	if strings.Contains(screen.String(), tok) {
		t.Errorf("the token was echoed: %q", screen.String())
	}
}

func loginPromptsEmptyToken(t *testing.T) {
	con, _, _ := fakeConsole(true, "", "   ")
	if _, err := con.Token("https://a.example", "Bearer token"); err == nil || !strings.Contains(err.Error(), "shim login") {
		t.Fatalf("askToken = %v", err)
	}
}

func loginPromptsBearer(t *testing.T, tok string) {
	con, _, _ := fakeConsole(true, "", "  Bearer "+tok+"  ")
	if got, err := con.Token("https://a.example", "Bearer token"); err != nil || got != tok {
		t.Fatalf("askToken = %q, %v", got, err)
	}
}

func loginPromptsNoTerminal(t *testing.T, tok string) {
	con, screen, reads := fakeConsole(false, "\n  "+tok+"\n\n", "")
	u, err := con.URL("https://flag.example", plainURL)
	if err != nil || u != "https://flag.example" {
		t.Fatalf("askURL = %q, %v", u, err)
	}
	got, err := con.Token(u, "Bearer token")
	if err != nil || got != tok || *reads != 0 {
		t.Fatalf("askToken = %q, %v, reads %d", got, err, *reads)
	}
	if screen.Len() != 0 {
		t.Errorf("prompted without a terminal: %q", screen.String())
	}
	con, _, _ = fakeConsole(false, "", "")
	if _, err := con.URL("", plainURL); err == nil || !strings.Contains(err.Error(), "--url") {
		t.Fatalf("askURL without a URL = %v", err)
	}
	if _, err := con.Token(u, "Bearer token"); err == nil || !strings.Contains(err.Error(), "echo") {
		t.Fatalf("askToken on empty stdin = %v", err)
	}
	con, _, _ = fakeConsole(false, "two words", "")
	if _, err := con.Token(u, "Bearer token"); err == nil || !strings.Contains(err.Error(), "white space") {
		t.Fatalf("askToken with a space = %v", err)
	}
}

// runInProcess runs the CLI in this process with a fake terminal.
func runInProcess(t *testing.T, con *console.Console, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	for _, v := range []string{"SHIM_URL", "SHIM_TOKEN", "SHIM_TOKEN_FILE", "SHIM_KEYRING", "SHIM_SLUG", "SHIM_ENDPOINT"} {
		t.Setenv(v, "")
	}
	args = append([]string{"shim"}, args...)
	app := newApp(func(prompt io.Writer) *console.Console { con.Prompt = io.MultiWriter(con.Prompt, prompt); return con }, args)
	var out, errb bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errb
	err = app.Run(args)
	return out.String(), errb.String(), err
}

// The terminal path of `shim login` end to end in process: the typed URL
// and the hidden token are checked against the server and stored; the
// next login offers the last URL as the default and an empty line takes it.
func TestLoginTerminal(t *testing.T) {
	tok := "tok-terminal-" + rand.Text()
	f := newFakeA2A(t, "", tok)
	dir := t.TempDir()
	key := f.url()
	con, screen, reads := fakeConsole(true, f.url()+"/\n", tok)
	_, stderr, err := runInProcess(t, con, "login", "--config-dir", dir, "--keyring", "off")
	if err != nil || *reads != 1 {
		t.Fatalf("login: %v (reads %d)\n%s", err, *reads, stderr)
	}
	if !strings.Contains(screen.String(), "Agent URL (e.g.") || strings.Contains(screen.String(), tok) {
		t.Errorf("screen %q", screen.String())
	}
	if !strings.Contains(stderr, "accepted the token") || !strings.Contains(stderr, filepath.Join(dir, "credentials.json")) {
		t.Errorf("stderr %q", stderr)
	}
	e := &shimEnv{config: dir}
	last, tokens := e.credentialsFile(t)
	if last != key || tokens[key] != tok {
		t.Fatalf("stored lastUrl %q tokens %v", last, tokens)
	}

	tok2 := "tok-terminal-2-" + rand.Text()
	f.set(func(f *fakeA2A) { f.token = tok2 })
	con, screen, _ = fakeConsole(true, "\n", tok2)
	if _, stderr, err := runInProcess(t, con, "login", "--config-dir", dir, "--keyring", "off"); err != nil {
		t.Fatalf("second login: %v\n%s", err, stderr)
	}
	if want := "Agent URL [" + key + "]: "; !strings.Contains(screen.String(), want) {
		t.Errorf("screen %q, want the last URL offered: %q", screen.String(), want)
	}
	if _, tokens := e.credentialsFile(t); tokens[key] != tok2 {
		t.Fatalf("tokens %v after the second login", tokens)
	}

	// --url is the default over the last URL.
	con, screen, _ = fakeConsole(true, "\n", tok2)
	if _, stderr, err := runInProcess(t, con, "login", "--config-dir", dir, "--keyring", "off", "--url", f.url()+"/other"); err != nil {
		t.Fatalf("login --url: %v\n%s", err, stderr)
	}
	if want := "Agent URL [" + f.url() + "/other]: "; !strings.Contains(screen.String(), want) {
		t.Errorf("screen %q, want %q", screen.String(), want)
	}
}

// `shim login` with the token on stdin, through the binary: accepted →
// stored in credentials.json (0600 in a 0700 directory) with lastUrl, exit
// 0; refused (401 or 403) → nothing stored, exit 1, told what to do;
// unreachable → stored with a warning, exit 0; plain http to another
// machine → refused before any connection, exit 1, naming the flag.
// `shim logout` forgets the token.
func TestLoginStdin(t *testing.T) {
	tok := "tok-stdin-" + rand.Text()
	t.Run("accepted", func(t *testing.T) { loginStdinAccepted(t, tok) })
	for _, status := range []int{401, 403} {
		t.Run("refused "+strconv.Itoa(status), func(t *testing.T) {
			f := newFakeA2A(t, "", "")
			f.set(func(f *fakeA2A) { f.refuse = status })
			e := newShimEnv(t)
			r := e.run(t, tok, "login", "--url", f.url())
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"refused the token", fmt.Sprintf("HTTP %d", status), "nothing was stored", "shim login"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if _, tokens := e.credentialsFile(t); len(tokens) != 0 {
				t.Fatalf("a refused token was stored: %v", tokens)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) { loginStdinUnreachable(t, tok) })
	t.Run("plain http to another machine", func(t *testing.T) { loginStdinPlainHTTP(t, tok) })
	t.Run("usage errors say what to do", func(t *testing.T) { loginStdinUsage(t, tok) })
}

func loginStdinAccepted(t *testing.T, tok string) {
	f := newFakeA2A(t, "", tok)
	e := newShimEnv(t)
	r := e.run(t, tok+"\n", "login", "--url", f.url()+"/")
	if r.code != 0 || !strings.Contains(r.stderr, "accepted the token") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, tok) {
		t.Errorf("the token was printed:\n%s%s", r.stdout, r.stderr)
	}
	last, tokens := e.credentialsFile(t)
	if last != f.url() || tokens[f.url()] != tok {
		t.Fatalf("lastUrl %q tokens %v", last, tokens)
	}
	checkMode(t, filepath.Join(e.config, "credentials.json"), 0o600)
	checkMode(t, e.config, 0o700)
	probes := 0
	for _, q := range f.requests() {
		if q.RPC == "GetTask" && q.Auth == "Bearer "+tok {
			probes++
		}
	}
	if probes != 1 {
		t.Errorf("want one GetTask probe with the token, got %+v", f.requests())
	}

	r = e.run(t, "", "logout", "--url", f.url())
	if r.code != 0 || !strings.Contains(r.stdout, "Forgot the token for "+f.url()) {
		t.Fatalf("logout: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if last, tokens := e.credentialsFile(t); len(tokens) != 0 || last != f.url() {
		t.Fatalf("after logout: lastUrl %q tokens %v", last, tokens)
	}
	// The default URL is the last login's.
	r = e.run(t, "", "logout")
	if r.code != 0 || !strings.Contains(r.stdout, "No token was stored for "+f.url()) {
		t.Fatalf("second logout: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func loginStdinUnreachable(t *testing.T, tok string) {
	e := newShimEnv(t)
	u := deadURL(t)
	r := e.run(t, tok, "login", "--url", u)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: could not check the token") || !strings.Contains(r.stderr, "shim doctor") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, tokens := e.credentialsFile(t); tokens[u] != tok {
		t.Fatalf("tokens %v", tokens)
	}
}

func loginStdinPlainHTTP(t *testing.T, tok string) {
	e := newShimEnv(t)
	// .invalid never resolves: a connection attempt would make this
	// "unreachable" (stored, exit 0), so exit 1 proves the refusal
	// came first.
	r := e.run(t, tok, "login", "--url", "http://agent.example.invalid:7870")
	if r.code != 1 || !strings.Contains(r.stderr, "--allow-insecure-http") || !strings.Contains(r.stderr, "nothing was stored") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, tokens := e.credentialsFile(t); len(tokens) != 0 {
		t.Fatalf("tokens %v", tokens)
	}
}

func loginStdinUsage(t *testing.T, tok string) {
	e := newShimEnv(t)
	if r := e.run(t, tok, "login"); r.code != 2 || !strings.Contains(r.stderr, "pass --url") {
		t.Errorf("no URL: exit %d\n%s", r.code, r.stderr)
	}
	if r := e.run(t, "", "login", "--url", "https://a.example"); r.code != 2 || !strings.Contains(r.stderr, "echo") {
		t.Errorf("empty stdin: exit %d\n%s", r.code, r.stderr)
	}
	if r := e.run(t, tok, "login", "--url", "ftp://a.example"); r.code == 0 || !strings.Contains(r.stderr, "https://host") {
		t.Errorf("bad URL: exit %d\n%s", r.code, r.stderr)
	}
	if r := e.run(t, "", "logout"); r.code != 2 || !strings.Contains(r.stderr, "pass --url") {
		t.Errorf("logout without URL: exit %d\n%s", r.code, r.stderr)
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %#o, want %#o", path, got, want)
	}
}

// With --keyring auto and no Secret Service (no session bus, or a bus
// address nothing listens on), login stores the token in the file and
// later runs find it there; --keyring on refuses and says what to do.
func TestLoginWithoutSecretService(t *testing.T) {
	if _, err := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); err == nil {
		t.Skip("a session bus exists at /run/user/<uid>/bus: go-keyring would use it even without DBUS_SESSION_BUS_ADDRESS")
	}
	tok := "tok-nokeyring-" + rand.Text()
	f := newFakeA2A(t, "", tok)
	for _, bus := range []string{"", "unix:path=/nonexistent/shim-test-bus"} {
		t.Run("bus="+bus, func(t *testing.T) {
			e := newShimEnv(t)
			if bus != "" {
				e.vars = append(e.vars, "DBUS_SESSION_BUS_ADDRESS="+bus)
			}
			r := e.run(t, tok, "login", "--url", f.url(), "--keyring", "auto")
			if r.code != 0 || !strings.Contains(r.stderr, "Stored the token in "+filepath.Join(e.config, "credentials.json")) {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if _, tokens := e.credentialsFile(t); tokens[f.url()] != tok {
				t.Fatalf("tokens %v", tokens)
			}
			r = e.run(t, "", "doctor", "--keyring", "auto")
			if r.code != 0 || !strings.Contains(r.stdout, "credentials.json") {
				t.Fatalf("doctor with the stored token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			r = e.run(t, tok, "login", "--url", f.url(), "--keyring", "on")
			if r.code == 0 || !strings.Contains(r.stderr, "--keyring auto") {
				t.Fatalf("--keyring on without a keyring: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// TestKeyringReal stores, uses and forgets a token through the binary in
// a real Secret Service. It skips when none answers; CI runs it under
// dbus-run-session with an unlocked gnome-keyring (see .ci/run).
func TestKeyringReal(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Skip("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset); run under dbus-run-session with gnome-keyring-daemon --unlock --components=secrets")
	}
	kr := credentials.SystemKeyring()
	if _, err := kr.Get(credentials.Service, "https://shim-probe.invalid"); err != nil && !errors.Is(err, credentials.ErrNotFound) {
		t.Skipf("no Secret Service answers on the session bus (%v); start gnome-keyring-daemon --unlock --components=secrets", err)
	}
	tok := "tok-keyring-" + rand.Text()
	f := newFakeA2A(t, "", tok)
	key := f.url()
	t.Cleanup(func() { _ = kr.Delete(credentials.Service, key) })
	e := newShimEnv(t)
	e.vars = append(e.vars, "DBUS_SESSION_BUS_ADDRESS="+os.Getenv("DBUS_SESSION_BUS_ADDRESS"))

	r := e.run(t, tok, "login", "--url", f.url(), "--keyring", "on")
	if r.code != 0 || !strings.Contains(r.stderr, `Stored the token in the OS keyring (service "shim", account `+key+")") {
		t.Fatalf("login: exit %d\n%s", r.code, r.stderr)
	}
	if got, err := kr.Get(credentials.Service, key); err != nil || got != tok {
		t.Fatalf("keyring holds a token: %v, the right one: %v, err %v", got != "", got == tok, err)
	}
	if last, tokens := e.credentialsFile(t); last != key || len(tokens) != 0 {
		t.Fatalf("the file must hold the last URL only: %q %v", last, tokens)
	}
	before := len(f.requests())
	r = e.run(t, "", "doctor", "--keyring", "auto")
	if r.code != 0 || !strings.Contains(r.stdout, "from the OS keyring") {
		t.Fatalf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sent := false
	for _, q := range f.requests()[before:] {
		sent = sent || q.Auth == "Bearer "+tok
	}
	if !sent {
		t.Fatal("the token from the keyring was not sent")
	}
	r = e.run(t, "", "logout", "--keyring", "on")
	if r.code != 0 || !strings.Contains(r.stdout, "Forgot the token") {
		t.Fatalf("logout: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := kr.Get(credentials.Service, key); !errors.Is(err, credentials.ErrNotFound) {
		t.Fatalf("keyring after logout: %v, want not found", err)
	}
}

// `shim login` takes no secret shorter than 8 characters (counted as
// characters, not bytes): it says so, exits non-zero, sends nothing and
// stores nothing.
func TestLoginRefusesShortSecret(t *testing.T) {
	for _, tok := range []string{"abc1234", "ééééééé"} {
		f := newFakeA2A(t, "", "")
		e := newShimEnv(t)
		r := e.run(t, tok+"\n", "login", "--url", f.url())
		if r.code == 0 || !strings.Contains(r.stderr, "7 characters") || !strings.Contains(r.stderr, "shorter than 8") ||
			!strings.Contains(r.stderr, "nothing was stored") {
			t.Errorf("%q: exit %d\n%s", tok, r.code, r.stderr)
		}
		if _, tokens := e.credentialsFile(t); len(tokens) != 0 {
			t.Errorf("%q: stored %v", tok, tokens)
		}
		// Only the card is read (to learn the security scheme), with no
		// credential.
		for _, q := range f.requests() {
			if q.Path != "/.well-known/agent-card.json" || q.Auth != "" {
				t.Errorf("%q: the server was asked %+v", tok, q)
			}
		}
	}
	f := newFakeA2A(t, "", "short9ch")
	e := newShimEnv(t)
	if r := e.run(t, "short9ch\n", "login", "--url", f.url()); r.code != 0 {
		t.Errorf("8 characters: exit %d\n%s", r.code, r.stderr)
	}
}

// A secret shorter than 8 characters given by a flag or a variable is
// used, and warned about once on stderr, however often it is read.
func TestShortTokenWarnedOnce(t *testing.T) {
	const tok = "abc1234"
	for _, how := range []string{"SHIM_TOKEN", "--token"} {
		t.Run(how, func(t *testing.T) {
			f := newFakeA2A(t, "", tok)
			e := newShimEnv(t)
			args := []string{"--url", f.url()}
			if how == "--token" {
				args = append(args, "--token", tok)
			} else {
				e.vars = append(e.vars, "SHIM_TOKEN="+tok)
			}
			p := e.start(t, args...)
			if m := session(t, p, true); m["result"] == nil {
				t.Fatalf("session: %v\n%s", m, p.logs())
			}
			// authenticate reads the token again.
			if m := p.call(t, 4, "authenticate", map[string]any{"methodId": "shim-credentials"}); m["result"] == nil {
				t.Fatalf("authenticate: %v", m)
			}
			if m := p.call(t, 5, "session/new", newSessionParams()); m["result"] == nil {
				t.Fatalf("session/new: %v", m)
			}
			auths := 0
			for _, a := range f.auths() {
				if a == "Bearer "+tok {
					auths++
				}
			}
			if auths < 2 {
				t.Fatalf("the token was sent %d times; want it used", auths)
			}
			if n := strings.Count(p.logs(), "fewer than 8"); n != 1 || !strings.Contains(p.logs(), "from "+how) {
				t.Errorf("warned %d times:\n%s", n, p.logs())
			}
		})
	}
}
