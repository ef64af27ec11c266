package platform

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
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

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestExtract: the helper shim carries is written 0700 under a name keyed
// by its hash and runs from there; a file there that is not it (changed
// after it was written) is refused and written again before the run; a
// carried helper that does not match its hash is never written.
func TestExtract(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for the helper")
	}
	helper := []byte("#!/bin/sh\nprintf '{\"v\":1,\"token\":\"tok-0123456789abcdef\",\"from\":\"carried\"}'\n")
	sum := fmt.Sprintf("%x", sha256.Sum256(helper))
	dir := filepath.Join(t.TempDir(), "cache", "shim")
	locate := func() (string, error) { return Extract(dir, gz(t, helper), sum) }

	// Another version's helper, and a file of someone else's.
	stale, mine := filepath.Join(dir, HelperName+"-0123456789abcdef0123456789abcdef"), filepath.Join(dir, HelperName+"-notes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, mine} {
		if err := os.WriteFile(p, []byte("old"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ans, err := runHelper(context.Background(), locate, "azure")
	if err != nil || ans.Token != "tok-0123456789abcdef" || ans.From != "carried" {
		t.Fatalf("%+v %v", ans, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("another version's helper is still there: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file that is no helper was removed: %v", err)
	}
	path := filepath.Join(dir, HelperName+"-"+sum[:32])
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v", path, fi, err)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v %v", dir, di, err)
	}
	extractRewritesTampered(t, dir, path, helper, sum, locate)
	extractRefusesDamaged(t, helper, sum)
}

// extractRewritesTampered: a helper file changed after it was written is
// refused and written again; a link in its place is replaced, its target
// untouched.
func extractRewritesTampered(t *testing.T, dir, path string, helper []byte, sum string, locate func() (string, error)) {
	t.Helper()
	evil := []byte("#!/bin/sh\nprintf '{\"v\":1,\"token\":\"stolen\"}'\n")
	if err := os.WriteFile(path, evil, 0o700); err != nil {
		t.Fatal(err)
	}
	ans, err := runHelper(context.Background(), locate, "azure")
	if err != nil || ans.Token != "tok-0123456789abcdef" {
		t.Fatalf("after tampering: %+v %v", ans, err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, helper) {
		t.Errorf("the tampered file was not written again: %q", b)
	}
	// A link in its place is replaced, its target untouched.
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, evil, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil || os.Symlink(target, path) != nil {
		t.Fatal(err)
	}
	if p, err := Extract(dir, gz(t, helper), sum); err != nil || p != path {
		t.Fatalf("%s %v", p, err)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link is still there: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, evil) {
		t.Error("the link's target was changed")
	}
}

// extractRefusesDamaged: a carried helper that is not what its hash says
// is never written.
func extractRefusesDamaged(t *testing.T, helper []byte, sum string) {
	t.Helper()
	evil := []byte("#!/bin/sh\nprintf '{\"v\":1,\"token\":\"stolen\"}'\n")
	other := filepath.Join(t.TempDir(), "other")
	for _, c := range []struct {
		gz   []byte
		sum  string
		want string
	}{
		{gz(t, evil), sum, "does not match its hash"},
		{[]byte("not gzip"), sum, "damaged"},
		{gz(t, helper), "", "no hash"},
	} {
		if p, err := Extract(other, c.gz, c.sum); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Extract = %q %v, want an error saying %q", p, err, c.want)
		}
	}
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused helper left %s: %v", other, err)
	}
}

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

// TestHelperBeside: a shim built without the helper inside says where it
// looked and how to build the helper.
func TestHelperBeside(t *testing.T) {
	self, _ := os.Executable()
	p := filepath.Join(filepath.Dir(self), HelperName+exeSuffix())
	if got, err := Beside(); err != nil || got != p {
		t.Fatalf("Beside = %q %v", got, err)
	}
	if err := os.Rename(p, p+".away"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(p+".away", p)
	_, err := runHelper(context.Background(), nil, "aws")
	if err == nil || !strings.Contains(err.Error(), "go build -o "+p+" ./cmd/shim-platform") || !strings.Contains(err.Error(), "make build") {
		t.Errorf("%v", err)
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
