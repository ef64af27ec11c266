package main

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/platformtest"
)

// SPEC §15: ambient platform credentials stay on the platform's hosts.
// Every test here runs shim with its requests to hosts off this machine
// sent to a recording proxy (platformtest.Proxy, trusted through its test
// CA), so a credential sent to a hostile host would be seen there; the
// credentials are the real libraries' from test credentials (static AWS
// keys, ADC files whose token endpoint is a loopback token server, an
// app's secret at a loopback Entra authority).

// refusedAddr is one agent address shim must refuse, the platform's
// credential in the environment.
type refusedAddr struct {
	name string
	// args give the address (and the platform).
	args []string
	// want are what the refusal must say.
	want []string
	// setup gives the environment and the token servers that must see
	// nothing.
	setup func(t *testing.T, proxy *platformtest.Proxy) (vars []string, servers []func() []platformtest.Seen)
}

// googleSetup: ADC from a service account's key (Vertex) or an authorized
// user's file with a quota project (Gemini Enterprise), the token server
// on loopback.
func googleSetup(gemini bool) func(*testing.T, *platformtest.Proxy) ([]string, []func() []platformtest.Seen) {
	return func(t *testing.T, proxy *platformtest.Proxy) ([]string, []func() []platformtest.Seen) {
		tokens := platformtest.StartGoogleTokenServer(t)
		file := tokens.ServiceAccountJSON(t, "shim-test@shim-proj.iam.gserviceaccount.com", "shim-proj")
		if gemini {
			file = tokens.AuthorizedUserJSON(t, "alice@example.com", "123456789012")
		}
		vars := append(adcVars(t, file), proxy.Env()...)
		return append(vars, "SSL_CERT_FILE="+proxy.CAFile), []func() []platformtest.Seen{tokens.Requests}
	}
}

// awsSetup: static AWS keys in the environment.
func awsSetup(t *testing.T, proxy *platformtest.Proxy) ([]string, []func() []platformtest.Seen) {
	vars := append(awsStaticVars(t), proxy.Env()...)
	return append(vars, "SSL_CERT_FILE="+proxy.CAFile), nil
}

// azureSetup: an app's client secret for the loopback Entra authority,
// whose certificate is trusted beside the proxy's CA.
func azureSetup(t *testing.T, proxy *platformtest.Proxy) ([]string, []func() []platformtest.Seen) {
	e := platformtest.StartEntra(t)
	app := e.AddApp("shim-secret-0123456789")
	vars := append(entraVars(t, e), "AZURE_CLIENT_ID="+app, "AZURE_CLIENT_SECRET=shim-secret-0123456789")
	vars = append(vars, proxy.Env()...)
	return append(vars, "SSL_CERT_FILE="+bothCAs(t, e.CertFile(t), proxy.CAFile)), []func() []platformtest.Seen{e.Requests}
}

// serviceNowSetup: a ServiceNow API key given by variable.
func serviceNowSetup(t *testing.T, proxy *platformtest.Proxy) ([]string, []func() []platformtest.Seen) {
	vars := append([]string{"SHIM_TOKEN=" + testSNKey}, proxy.Env()...)
	return append(vars, "SSL_CERT_FILE="+proxy.CAFile), nil
}

// bothCAs writes the certificates of files into one PEM file.
func bothCAs(t *testing.T, files ...string) string {
	t.Helper()
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	p := filepath.Join(t.TempDir(), "cas.pem")
	if err := os.WriteFile(p, all, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const hostileVertex = "https://evil.test/v1beta1/projects/p/locations/us-central1/reasoningEngines/1"

// hostiles are the addresses of SPEC §15's first rule: a part of a host
// name not of its form (#, ?, a port, @, %, /, . in a location or a
// region), and a URL outside the platform's domains with --platform named.
var hostiles = []refusedAddr{
	{"vertex location #", []string{"--url", "projects/p/locations/evil.test#/reasoningEngines/1"},
		[]string{"location of the resource name", `"evil.test#"`, "not a Google Cloud location"}, googleSetup(false)},
	{"vertex location ?", []string{"--url", "projects/p/locations/evil.test?/reasoningEngines/1"},
		[]string{"location of the resource name", `"evil.test?"`}, googleSetup(false)},
	{"vertex location region.host#", []string{"--url", "projects/p/locations/us-central1.evil.test#/reasoningEngines/1"},
		[]string{"location of the resource name", `"us-central1.evil.test#"`}, googleSetup(false)},
	{"vertex location port", []string{"--url", "projects/p/locations/evil.test:443#/reasoningEngines/1"},
		[]string{"location of the resource name", `"evil.test:443#"`}, googleSetup(false)},
	{"vertex location @", []string{"--url", "projects/p/locations/us-central1@evil.test#/reasoningEngines/1"},
		[]string{"location of the resource name", `"us-central1@evil.test#"`}, googleSetup(false)},
	{"vertex location %", []string{"--url", "projects/p/locations/evil.test%23/reasoningEngines/1"},
		[]string{"location of the resource name", `"evil.test%23"`}, googleSetup(false)},
	{"vertex location .", []string{"--url", "projects/p/locations/evil.test/reasoningEngines/1"},
		[]string{"location of the resource name", `"evil.test"`}, googleSetup(false)},
	{"gemini enterprise location #", []string{"--url", "projects/p/locations/evil.test#/collections/c/engines/e/assistants/a/agents/1"},
		[]string{"location of the resource name", `"evil.test#"`}, googleSetup(true)},
	{"agentcore region #", []string{"--url", "arn:aws:bedrock-agentcore:us-east-1.evil.test#:123456789012:runtime/x"},
		[]string{"region of the runtime ARN", `"us-east-1.evil.test#"`, "not an AWS region"}, awsSetup},
	{"agentcore region /", []string{"--url", "arn:aws:bedrock-agentcore:us-east-1/evil.test#:123456789012:runtime/x"},
		[]string{"region of the runtime ARN", `"us-east-1/evil.test#"`}, awsSetup},
	{"agentcore account", []string{"--url", "arn:aws:bedrock-agentcore:us-east-1:1234@evil.test:runtime/x"},
		[]string{"account of the runtime ARN", `"1234@evil.test"`, "12 digits"}, awsSetup},
	{"--platform vertex, another host", []string{"--platform", "vertex", "--url", hostileVertex},
		[]string{"the host evil.test is outside the platform's domains", "--platform-host evil.test"}, googleSetup(false)},
	{"--platform gemini-enterprise, another host", []string{"--platform", "gemini-enterprise", "--url",
		"https://evil.test/v1/projects/p/locations/global/collections/c/engines/e/assistants/a/agents/1"},
		[]string{"the host evil.test is outside", "--platform-host evil.test"}, googleSetup(true)},
	{"--platform agentcore, another host", []string{"--platform", "agentcore", "--url", "https://evil.test/runtimes/" +
		"arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fx/invocations"},
		[]string{"the host evil.test is outside", "bedrock-agentcore.<region>.amazonaws.com", "--platform-host evil.test"}, awsSetup},
	{"--platform foundry, another host", []string{"--platform", "foundry", "--url", "https://evil.test/api/projects/p/agents/a/endpoint/protocols/a2a"},
		[]string{"the host evil.test is outside", "<account>.services.ai.azure.com", "--platform-host evil.test"}, azureSetup},
	{"--platform servicenow, another host", []string{"--platform", "servicenow", "--url", "https://evil.test/api/sn_aia/a2a/v2/agent/id/1"},
		[]string{"the host evil.test is outside", "<instance>.service-now.com", "--platform-host evil.test"}, serviceNowSetup},
	{"--platform vertex, a look-alike host", []string{"--platform", "vertex", "--url",
		"https://us-central1-aiplatform.googleapis.com.evil.test/v1beta1/projects/p/locations/us-central1/reasoningEngines/1"},
		[]string{"the host us-central1-aiplatform.googleapis.com.evil.test is outside", "--platform-host"}, googleSetup(false)},
}

// TestPlatformCredentialStaysOnItsHosts: for each hostile address,
// initialize answers; session/new, session/load and session/resume
// answer -32602 naming the part or the host (and --platform-host for a
// host); `shim doctor` and `shim login` say the same and exit 2; and
// nothing was sent anywhere (the proxy and the token servers saw no
// request) nor written (no file under the user's home, config or state).
func TestPlatformCredentialStaysOnItsHosts(t *testing.T) {
	for _, c := range hostiles {
		t.Run(c.name, func(t *testing.T) {
			proxy := platformtest.StartProxy(t)
			e := newShimEnv(t)
			var servers []func() []platformtest.Seen
			e.vars, servers = c.setup(t, proxy)
			says := func(what, text string) {
				t.Helper()
				for _, w := range c.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s does not say %q: %s", what, w, text)
					}
				}
			}
			p := e.start(t, c.args...)
			if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
				t.Fatalf("initialize: %v\n%s", m, p.logs())
			}
			load := map[string]any{"sessionId": "chat-zed-1", "cwd": "/tmp", "mcpServers": []any{}}
			for i, call := range []struct {
				method string
				params any
			}{{"session/new", newSessionParams()}, {"session/load", load}, {"session/resume", load}} {
				m := p.call(t, 2+i, call.method, call.params)
				if errCode(m) != -32602 {
					t.Fatalf("%s: %v, want -32602\n%s", call.method, m, p.logs())
				}
				says(call.method, fmt.Sprint(rpcErrorOf(m)["message"]))
			}
			for _, cmd := range []string{"doctor", "login"} {
				r := e.run(t, "shim-test-token-0123456789\n", append([]string{cmd}, c.args...)...)
				if r.code != 2 {
					t.Errorf("shim %s: exit %d, want 2\n%s%s", cmd, r.code, r.stdout, r.stderr)
				}
				says("shim "+cmd, r.stderr)
			}
			sentNothing(t, proxy, servers...)
			wroteNothing(t, e)
		})
	}
}

// sentNothing fails the test for each request the proxy (any host off
// this machine) or a token server saw, saying which credential it carried.
func sentNothing(t *testing.T, proxy *platformtest.Proxy, servers ...func() []platformtest.Seen) {
	t.Helper()
	for _, s := range proxy.Requests() {
		t.Errorf("a request left this machine: %s %s, credential %q", s.Method, s.Path, credentialOf(s.Header))
	}
	for _, seen := range servers {
		for _, s := range seen() {
			t.Errorf("the token server was asked: %s %s", s.Method, s.Path)
		}
	}
}

// credentialOf names the credentials a request's headers carry.
func credentialOf(h http.Header) string {
	var out []string
	for _, k := range []string{"Authorization", "X-Amz-Security-Token", "X-Goog-User-Project", platformtest.ServiceNowAPIKeyHeader} {
		if v := h.Get(k); v != "" {
			out = append(out, k+": "+v)
		}
	}
	return strings.Join(out, "; ")
}

// wroteNothing fails the test for each file under the user's home (the
// credential helper's cache among them) and for a config or state
// directory.
func wroteNothing(t *testing.T, e *shimEnv) {
	t.Helper()
	_ = filepath.WalkDir(e.home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("a file was written: %s", p)
		}
		return nil
	})
	for _, dir := range []string{e.config, e.state} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s was created", dir)
		}
	}
}

// TestPlatformHostFlag: --platform-host HOST lets the platform's
// credential go to exactly that host (the proxy sees the card's request
// to it with the access token the token server issued, and doctor says
// where it goes); a host it does not name exactly (another one, one under
// it, one that ends like it) is still refused and nothing is sent; a
// loopback host (localhost) needs no flag.
func TestPlatformHostFlag(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	file := tokens.ServiceAccountJSON(t, "shim-test@shim-proj.iam.gserviceaccount.com", "shim-proj")
	env := func(proxy *platformtest.Proxy) *shimEnv {
		e := newShimEnv(t)
		e.vars = append(append(adcVars(t, file), proxy.Env()...), "SSL_CERT_FILE="+proxy.CAFile)
		return e
	}

	proxy := platformtest.StartProxy(t)
	e := env(proxy)
	r := e.run(t, "", "doctor", "--platform", "vertex", "--url", hostileVertex, "--platform-host", "evil.test")
	wantRow(t, doctorRows(t, r.stdout), "credential host", "ok evil.test (named with --platform-host)")
	var sent bool
	for _, s := range proxy.Requests() {
		if s.Method == http.MethodConnect {
			if s.Path != "evil.test:443" {
				t.Errorf("the proxy was asked for %s", s.Path)
			}
			continue
		}
		tok := strings.TrimPrefix(s.Header.Get("Authorization"), "Bearer ")
		if strings.HasPrefix(s.Path, "https://evil.test:443/v1beta1/projects/p/locations/us-central1/reasoningEngines/1/a2a/v1/card") &&
			tokens.Token(tok) != nil {
			sent = true
		}
	}
	if !sent {
		t.Errorf("the named host did not get the card's request with the platform's token: %v", proxy.Hosts())
	}

	for _, c := range []struct{ url, named string }{
		{hostileVertex, "other.test"},
		{strings.Replace(hostileVertex, "evil.test", "api.evil.test", 1), "evil.test"},
		{strings.Replace(hostileVertex, "evil.test", "notevil.test", 1), "evil.test"},
		{strings.Replace(hostileVertex, "evil.test", "evil.test.example", 1), "evil.test"},
	} {
		proxy := platformtest.StartProxy(t)
		before := len(tokens.Requests())
		e := env(proxy)
		r := e.run(t, "", "doctor", "--platform", "vertex", "--url", c.url, "--platform-host", c.named)
		if r.code != 2 || !strings.Contains(r.stderr, "--platform-host") {
			t.Errorf("--url %s --platform-host %s: exit %d\n%s%s", c.url, c.named, r.code, r.stdout, r.stderr)
		}
		sentNothing(t, proxy)
		if n := len(tokens.Requests()); n != before {
			t.Errorf("--url %s --platform-host %s: the token server was asked %d times", c.url, c.named, n-before)
		}
	}

	// This machine by name: the stand-in on localhost gets the token.
	g := platformtest.StartVertex(t, platformtest.GoogleOptions{Tokens: tokens})
	local := strings.Replace(strings.TrimSuffix(g.Base, "/a2a"), "127.0.0.1", "localhost", 1)
	r = env(platformtest.StartProxy(t)).run(t, "", "doctor", "--platform", "vertex", "--url", local)
	if r.code != 0 {
		t.Errorf("localhost: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	wantRow(t, doctorRows(t, r.stdout), "credential host", "ok localhost (this machine)")
	if rs := refusals(g.Requests()); len(rs) > 0 || len(g.Requests()) == 0 {
		t.Errorf("the stand-in on localhost: %d requests, refused %v", len(g.Requests()), rs)
	}
}

// TestPlatformHostFlagValues: --platform-host (and SHIM_PLATFORM_HOST)
// takes host names alone; a URL, a port or a wildcard stops shim with a
// line saying so, like any bad flag value.
func TestPlatformHostFlagValues(t *testing.T) {
	e := newShimEnv(t)
	for _, bad := range []string{"https://evil.test", "evil.test:443", "*.evil.test", "evil.test/x"} {
		r := e.run(t, "", "doctor", "--platform", "vertex", "--url", hostileVertex, "--platform-host", bad)
		if r.code == 0 || !strings.Contains(r.stderr, "--platform-host") || !strings.Contains(r.stderr, "host name alone") {
			t.Errorf("--platform-host %q: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
	e.vars = []string{"SHIM_PLATFORM_HOST=evil.test:443"}
	if r := e.run(t, "", "doctor", "--url", hostileVertex, "--platform", "vertex"); !strings.Contains(r.stderr, `--platform-host "evil.test:443"`) {
		t.Errorf("SHIM_PLATFORM_HOST is not read: exit %d\n%s", r.code, r.stderr)
	}
}

// TestPlatformCredentialNotRedirected: the platform's credential never
// follows the agent off the host it was allowed for: a card answered
// with a redirect to another host is not followed (nothing reaches that
// host), and a --card-url on another host is read without the
// credential or the platform's headers.
func TestPlatformCredentialNotRedirected(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	file := tokens.AuthorizedUserJSON(t, "alice@example.com", "123456789012")
	g := platformtest.StartGeminiEnterprise(t, platformtest.GoogleOptions{Tokens: tokens})
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/a2a/v1/card") {
			http.Redirect(w, r, "https://evil.test/card", http.StatusTemporaryRedirect)
			return
		}
		g.ServeHTTP(w, r)
	}))
	t.Cleanup(redirecting.Close)
	url := strings.Replace(strings.TrimSuffix(g.Base, "/a2a"), g.URL, redirecting.URL, 1)

	proxy := platformtest.StartProxy(t)
	e := newShimEnv(t)
	e.vars = append(append(adcVars(t, file), proxy.Env()...), "SSL_CERT_FILE="+proxy.CAFile)
	r := e.run(t, "", "doctor", "--platform", "gemini-enterprise", "--url", url)
	wantRow(t, doctorRows(t, r.stdout), "agent card", "FAIL no agent card")
	sentNothing(t, proxy)

	r = e.run(t, "", "doctor", "--platform", "gemini-enterprise", "--url", strings.TrimSuffix(g.Base, "/a2a"),
		"--card-url", "https://evil.test/agent-card.json")
	var card bool
	for _, s := range proxy.Requests() {
		if s.Method == http.MethodConnect {
			continue
		}
		card = card || strings.HasSuffix(s.Path, "/agent-card.json")
		if c := credentialOf(s.Header); c != "" {
			t.Errorf("%s %s carried %s", s.Method, s.Path, c)
		}
	}
	if !card {
		t.Errorf("the card on the other host was not asked for: %v\n%s%s", proxy.Hosts(), r.stdout, r.stderr)
	}
}

// TestPlatformCardNamesAnotherHost: a Foundry agent's card (the one
// platform whose calls go where its card says) naming an endpoint on
// another host does not take the platform's credential there: the calls
// of a session go to the agent's own host (the answer streams), and
// nothing leaves this machine.
func TestPlatformCardNamesAnotherHost(t *testing.T) {
	proxy := platformtest.StartProxy(t)
	e := platformtest.StartEntra(t)
	app := e.AddApp("shim-secret-0123456789")
	f := platformtest.StartFoundry(t, platformtest.FoundryOptions{Entra: e})
	var rewritten bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/agentCard/") {
			f.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, r)
		body := strings.ReplaceAll(rec.Body.String(), f.URL, "https://evil.test")
		rewritten = rewritten || strings.Contains(body, "https://evil.test/api/projects/")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(front.Close)
	env := newShimEnv(t)
	env.vars = append(append(entraVars(t, e), "AZURE_CLIENT_ID="+app, "AZURE_CLIENT_SECRET=shim-secret-0123456789"), proxy.Env()...)
	env.vars = append(env.vars, "SSL_CERT_FILE="+bothCAs(t, e.CertFile(t), proxy.CAFile))
	p := env.start(t, "--url", strings.Replace(f.Base, f.URL, front.URL, 1), "--platform", "foundry", "--steer-grace", "0")
	sid := openSession(t, p)
	if stop, answer := promptAnswer(t, p, 3, sid, "stay here"); stop != "end_turn" || answer != platformtest.Answer("stay here") {
		t.Fatalf("prompt: %s %q\n%s", stop, answer, p.logs())
	}
	if !rewritten {
		t.Fatal("the card was not rewritten to name another host")
	}
	sentNothing(t, proxy)
}
