package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/redact"
)

// TestMain builds the credential helper (cmd/shim-platform) beside the
// test binary, where an agent resolved with no Options.Helper finds it.
func TestMain(m *testing.M) {
	if os.Getenv("SHIM_TEST_FIND") == "1" { // TestHelperBesideLink's own run
		os.Exit(m.Run())
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helper := filepath.Join(filepath.Dir(self), HelperName+exeSuffix())
	if out, err := exec.Command("go", "build", "-o", helper, "../../../cmd/shim-platform").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n%s", HelperName, err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.Remove(helper)
	os.Exit(code)
}

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for the helper")
	}
	p := filepath.Join(t.TempDir(), "helper.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func at(path string) Locate { return func() (string, error) { return path, nil } }

// TestHelperFails: a helper that fails, says nothing shim can read, says
// too much, answers in another version or is missing gives a sign-in
// error that says so and what to do, bounded and safe for a terminal,
// never quoting what it printed on stdout (a credential, maybe); a
// credential shim knows is redacted from what the helper says.
func TestHelperFails(t *testing.T) {
	redact.Add("known-secret-0123456789")
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"error", `printf '{"v":1,"error":"no AWS credentials: run aws sso login (known-secret-0123456789)"}'; exit 1`,
			[]string{"no AWS credentials: run aws sso login"}},
		{"crash", `printf 'secret-on-stdout'; printf 'panic: \033]52;c;boom\n' >&2; exit 2`,
			[]string{"failed (exit status 2)", `panic: \x1b]52;c;boom`, "make build"}},
		{"garbage", `printf 'secret-on-stdout not json'`, []string{"gave an answer shim cannot read", "make build"}},
		{"huge", `yes secret-on-stdout`, []string{"wrote more than 64 KiB"}},
		{"huge json", `printf '{"v":1,"token":"'; head -c 200000 /dev/zero | tr '\0' a; printf '"}'`, []string{"wrote more than 64 KiB"}},
		{"version", `printf '{"v":2,"token":"secret-on-stdout"}'`, []string{"answers in version 2, this shim reads version 1"}},
		{"empty", `exit 0`, []string{"gave an answer shim cannot read"}},
	} {
		_, err := runHelper(context.Background(), at(script(t, c.body)), "aws")
		var se *a2a.SignInError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a sign-in error", c.name, err)
			continue
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
		if strings.Contains(msg, "secret-on-stdout") || strings.Contains(msg, "known-secret") || strings.ContainsAny(msg, "\x1b\n") || len(msg) > 2000 {
			t.Errorf("%s: %q", c.name, msg)
		}
	}
	if _, err := runHelper(context.Background(), at(filepath.Join(t.TempDir(), "missing")), "aws"); err == nil || !strings.Contains(err.Error(), "could not be run") {
		t.Errorf("missing helper: %v", err)
	}
	// One that may not be run says why it might be.
	noexec := filepath.Join(t.TempDir(), "noexec")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runHelper(context.Background(), at(noexec), "aws"); err == nil || !strings.Contains(err.Error(), "noexec") {
		t.Errorf("a helper that may not be run: %v", err)
	}
	// A helper that hangs ends with the request.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := runHelper(ctx, at(script(t, "sleep 30")), "aws"); err == nil || !strings.Contains(err.Error(), "gave no answer") {
		t.Errorf("a hanging helper: %v", err)
	}
}

// TestHelperFind: the helper run is the one beside shim's executable,
// even with another on the PATH; with none beside it, the first on the
// PATH; with neither, a sign-in error that says where shim looked and how
// to get the helper, and nothing is run.
func TestHelperFind(t *testing.T) {
	self, _ := os.Executable()
	beside := filepath.Join(filepath.Dir(self), HelperName+exeSuffix())
	pathDir := t.TempDir()
	onPath := filepath.Join(pathDir, HelperName+exeSuffix())
	marker := filepath.Join(t.TempDir(), "ran")
	if runtime.GOOS != "windows" {
		if err := os.WriteFile(onPath, []byte("#!/bin/sh\necho \"$0\" >> "+marker+"\nprintf '{\"v\":1,\"token\":\"tok-on-the-path\"}'\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", pathDir)
	if got, err := Find(); err != nil || got != beside {
		t.Fatalf("Find = %q %v, want the helper beside the executable %s", got, err, beside)
	}
	if err := os.Rename(beside, beside+".away"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(beside+".away", beside)
	if runtime.GOOS != "windows" {
		if got, err := Find(); err != nil || got != onPath {
			t.Fatalf("Find with none beside = %q %v, want the one on the PATH %s", got, err, onPath)
		}
		ans, err := runHelper(context.Background(), nil, "azure")
		if err != nil || ans.Token != "tok-on-the-path" {
			t.Fatalf("the helper on the PATH: %+v %v", ans, err)
		}
		if b, _ := os.ReadFile(marker); string(b) != onPath+"\n" {
			t.Fatalf("runs of the helper on the PATH: %q", b)
		}
		if err := os.Remove(onPath); err != nil {
			t.Fatal(err)
		}
	}
	ran, _ := os.ReadFile(marker)
	_, err := runHelper(context.Background(), nil, "aws")
	var se *a2a.SignInError
	if !errors.As(err, &se) {
		t.Fatalf("no helper anywhere: %v, want a sign-in error", err)
	}
	for _, want := range []string{"was not found beside shim in " + filepath.Dir(self) + " or on the PATH",
		"release archive and npm package", "go install github.com/shimdev/shim/cmd/shim-platform@",
		"make build", "go build -o " + beside + " ./cmd/shim-platform"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if b, _ := os.ReadFile(marker); !bytes.Equal(b, ran) {
		t.Errorf("a helper ran with none to be found: %q", b)
	}
}

// TestHelperBesideLink: shim reached through a link (a package manager's
// bin/shim pointing at the installed file) runs the helper beside the
// file the link points to, not one beside the link.
func TestHelperBesideLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links and shell scripts")
	}
	if os.Getenv("SHIM_TEST_FIND") == "1" {
		p, err := Find()
		fmt.Print(p)
		if err != nil {
			fmt.Print(" ", err)
		}
		return
	}
	self, _ := os.Executable()
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "platform.test")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	// A helper beside the link that is not the one to run.
	if err := os.WriteFile(filepath.Join(linkDir, HelperName), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "-test.run=^TestHelperBesideLink$")
	cmd.Env = append(os.Environ(), "SHIM_TEST_FIND=1", "PATH="+linkDir)
	out, err := cmd.Output()
	want := filepath.Join(filepath.Dir(self), HelperName)
	if err != nil || !strings.HasPrefix(string(out), want) {
		t.Fatalf("Find through a link = %q %v, want %s", out, err, want)
	}
}

// TestCredentialKept: the helper runs once while its credential is good
// for more than refreshMargin, again when it is about to expire; a
// failure is tried again by the next request.
func TestCredentialKept(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	expires := filepath.Join(dir, "expires")
	if err := os.WriteFile(expires, []byte(time.Now().Add(time.Hour).UTC().Format(time.RFC3339)), 0o600); err != nil {
		t.Fatal(err)
	}
	h := script(t, `echo run >> `+count+`
echo "$@" >> `+dir+`/args
if [ -e `+dir+`/fail ]; then printf '{"v":1,"error":"no token"}'; exit 1; fi
printf '{"v":1,"token":"tok-%s","expires":"%s","from":"Azure CLI (az login)","accessKeyId":"AKIDKEPT","secretAccessKey":"kept-secret","region":"us-east-1"}' $(wc -l < `+count+`) $(cat `+expires+`)`)
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
	fd, _ := Resolve(Foundry, "https://acct.services.ai.azure.com/api/projects/p/agents/a/endpoint/protocols/a2a", Options{Helper: at(h)})
	ac, _ := Resolve(AgentCore, testARN, Options{Helper: at(h)})
	apply := func(a *Agent) (string, error) {
		req, _ := http.NewRequest(http.MethodPost, a.Cards[0].URL, nil)
		err := a.Ambient().Apply(req)
		return req.Header.Get("Authorization"), err
	}
	for range 3 {
		if got, err := apply(fd); err != nil || got != "Bearer tok-1" {
			t.Fatalf("%q %v", got, err)
		}
	}
	if got, err := apply(ac); err != nil || !strings.Contains(got, "Credential=AKIDKEPT/") || !strings.Contains(got, "/us-east-1/bedrock-agentcore/") {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := apply(ac); err != nil || runs() != 2 {
		t.Fatalf("%d runs, want 2 (one per credential): %v", runs(), err)
	}
	if fd.Ambient().Loaded() != "Azure CLI (az login)" || ac.Ambient().Loaded() != "Azure CLI (az login), region us-east-1" {
		t.Errorf("%q %q", fd.Ambient().Loaded(), ac.Ambient().Loaded())
	}
	// Only what to load is in the arguments: no credential, ever.
	if b, _ := os.ReadFile(filepath.Join(dir, "args")); string(b) != "azure --scope https://ai.azure.com/.default\naws --region us-west-2\n" {
		t.Errorf("the helper's arguments: %q", b)
	}
	credentialAskedAgain(t, dir, h, expires, apply)
}

// credentialAskedAgain: a credential about to expire is asked for again
// at each request; a failure, then the next request tries again.
func credentialAskedAgain(t *testing.T, dir, h, expires string, apply func(*Agent) (string, error)) {
	t.Helper()
	// About to expire: asked again.
	if err := os.WriteFile(expires, []byte(time.Now().Add(time.Minute).UTC().Format(time.RFC3339)), 0o600); err != nil {
		t.Fatal(err)
	}
	fd2, _ := Resolve(Foundry, "https://acct.services.ai.azure.com/api/projects/p/agents/a/endpoint/protocols/a2a", Options{Helper: at(h)})
	for i := range 2 {
		if got, err := apply(fd2); err != nil || got != fmt.Sprintf("Bearer tok-%d", 3+i) {
			t.Fatalf("%q %v", got, err)
		}
	}
	// A failure, then the next request tries again.
	if err := os.WriteFile(filepath.Join(dir, "fail"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := apply(fd2); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "fail"))
	if got, err := apply(fd2); err != nil || got != "Bearer tok-6" {
		t.Fatalf("%q %v", got, err)
	}
}
