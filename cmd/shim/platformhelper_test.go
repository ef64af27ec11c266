package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/internal/platformtest"
)

// TestShimLinksNoCredentialLibrary: shim itself links none of the heavy
// credential libraries, whose package init would cost every start; the
// helper links them all.
func TestShimLinksNoCredentialLibrary(t *testing.T) {
	heavy := []string{"github.com/aws/aws-sdk-go-v2/config", "github.com/aws/aws-sdk-go-v2/service/sts",
		"github.com/aws/aws-sdk-go-v2/service/sso", "github.com/Azure/azure-sdk-for-go/sdk/azidentity",
		"github.com/AzureAD/microsoft-authentication-library-for-go/"}
	for _, c := range []struct {
		pkg, tags string
		links     bool
	}{
		{".", "urfave_cli_no_docs", false},
		{"../shim-platform", "", true},
	} {
		out, err := exec.Command("go", "list", "-e", "-deps", "-tags", c.tags, c.pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", c.pkg, err)
		}
		deps := strings.Split(string(out), "\n")
		for _, h := range heavy {
			found := false
			for _, d := range deps {
				found = found || strings.HasPrefix(d, h)
			}
			if found != c.links {
				t.Errorf("%s (tags %s) links %s: %v", c.pkg, c.tags, h, found)
			}
		}
	}
}

// makeBuild runs `make build` with BIN in a directory of its own (once
// per test binary) and returns that directory.
var makeBuild = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(filepath.Dir(shimBin), "make-build")
	out, err := exec.Command("make", "-C", filepath.Join("..", ".."), "build", "BIN="+filepath.Join(dir, "shim")).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("make build: %v\n%s", err, out)
	}
	return dir, nil
})

// tree is every file under root: its path and mode, and its content's hash.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		files[p] = fi.Mode().String() + " " + sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameTree reports what changed between two trees.
func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if before[p] != v {
			t.Errorf("%s: %s was written (%s, was %q)", what, p, v, before[p])
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s: %s was removed", what, p)
		}
	}
}

// TestPlatformHelperNeverWritten (SPEC §15, no executable written at run
// time): `make build` puts shim-platform beside shim; that shim, copied
// elsewhere with its helper as an archive unpacks them, reaches an
// AgentCore runtime (XDG_CACHE_HOME set) and a Foundry agent (HOME's
// cache) with the helper beside it: nothing is written to either cache,
// and the shim-platform files planted there, and one on the PATH, are
// never run (each would leave a mark). With no helper beside it shim runs
// the one on the PATH; with none anywhere the request fails with
// auth_required saying how to get it, and nothing reaches the agent.
func TestPlatformHelperNeverWritten(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for planted helpers")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make to build shim as `make build` does")
	}
	built, err := makeBuild()
	if err != nil {
		t.Fatal(err)
	}
	install := filepath.Join(t.TempDir(), "bin")
	installBuilt(t, built, install)
	defer func(b string) { shimBin = b }(shimBin)
	shimBin = filepath.Join(install, "shim")
	helper := filepath.Join(install, "shim-platform")

	e := newShimEnv(t)
	cache, homeCache := filepath.Join(t.TempDir(), "cache"), filepath.Join(e.home, ".cache")
	planted, onPath := t.TempDir(), t.TempDir()
	mark := filepath.Join(planted, "ran")
	fake := []byte("#!/bin/sh\necho \"$0\" >> " + mark + "\nprintf '{\"v\":1,\"error\":\"a planted helper ran\"}'\nexit 1\n")
	b, _ := os.ReadFile(helper)
	sum := fmt.Sprintf("%x", sha256.Sum256(b))
	plant(t, fake,
		filepath.Join(cache, "shim", "shim-platform"), filepath.Join(cache, "shim", "shim-platform-"+sum[:32]),
		filepath.Join(homeCache, "shim", "shim-platform"), filepath.Join(homeCache, "shim", "shim-platform-"+sum[:32]),
		filepath.Join(onPath, "shim-platform"),
	)
	before, beforeHome := tree(t, cache), tree(t, homeCache)
	path := "PATH=" + onPath + string(os.PathListSeparator) + os.Getenv("PATH")

	// AgentCore, XDG_CACHE_HOME set: session/new answers once the card
	// was read with the credential the helper gave.
	ac := testAgentCore(t, platformtest.AgentCoreOptions{})
	e.vars = append(awsStaticVars(t), "XDG_CACHE_HOME="+cache, path)
	openSession(t, e.start(t, "--url", ac.InvocationsURL(), "--platform", "agentcore"))
	if r := refusals(ac.Requests()); len(r) > 0 || len(ac.Requests()) == 0 {
		t.Fatalf("the runtime refused %v of %d", r, len(ac.Requests()))
	}
	// Foundry, no XDG_CACHE_HOME: HOME's cache.
	entra := platformtest.StartEntra(t)
	app := entra.AddApp("shim-secret-0123456789")
	f := platformtest.StartFoundry(t, platformtest.FoundryOptions{Entra: entra})
	e.vars = append(entraVars(t, entra), "AZURE_CLIENT_ID="+app, "AZURE_CLIENT_SECRET=shim-secret-0123456789", path)
	openSession(t, e.start(t, "--url", f.Base, "--platform", "foundry"))
	if r := refusals(f.Requests()); len(r) > 0 || len(f.Requests()) == 0 {
		t.Fatalf("the agent refused %v of %d", r, len(f.Requests()))
	}
	sameTree(t, "XDG_CACHE_HOME", before, tree(t, cache))
	sameTree(t, "HOME's cache", beforeHome, tree(t, homeCache))
	if b, err := os.ReadFile(mark); err == nil {
		t.Fatalf("a planted helper ran: %s", b)
	}

	// No helper beside shim: the one on the PATH (here the real one).
	realOnPath := t.TempDir()
	if err := os.Rename(helper, filepath.Join(realOnPath, "shim-platform")); err != nil {
		t.Fatal(err)
	}
	ac2 := testAgentCore(t, platformtest.AgentCoreOptions{})
	e.vars = append(awsStaticVars(t), "XDG_CACHE_HOME="+cache, "PATH="+realOnPath+string(os.PathListSeparator)+os.Getenv("PATH"))
	openSession(t, e.start(t, "--url", ac2.InvocationsURL(), "--platform", "agentcore"))
	if r := refusals(ac2.Requests()); len(r) > 0 || len(ac2.Requests()) == 0 {
		t.Fatalf("with the helper on the PATH, the runtime refused %v of %d", r, len(ac2.Requests()))
	}

	// None anywhere: auth_required, nothing sent, nothing written.
	ac3 := testAgentCore(t, platformtest.AgentCoreOptions{})
	e.vars = append(awsStaticVars(t), "XDG_CACHE_HOME="+cache, "PATH="+t.TempDir())
	p := e.start(t, "--url", ac3.InvocationsURL(), "--platform", "agentcore")
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatal(m)
	}
	m := p.call(t, 2, "session/new", newSessionParams())
	msg := fmt.Sprint(rpcErrorOf(m)["message"])
	if errCode(m) != -32000 {
		t.Fatalf("session/new with no helper: %v", m)
	}
	for _, want := range []string{"shim-platform was not found beside shim in " + install + " or on the PATH",
		"release archive and npm package", "go install github.com/shimdev/shim/cmd/shim-platform@", "make build"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if n := len(ac3.Requests()); n > 0 {
		t.Errorf("the runtime got %d requests with no helper", n)
	}
	sameTree(t, "XDG_CACHE_HOME", before, tree(t, cache))
	if b, err := os.ReadFile(mark); err == nil {
		t.Fatalf("a planted helper ran: %s", b)
	}
}

// installBuilt copies shim and shim-platform from built into install.
func installBuilt(t *testing.T, built, install string) {
	t.Helper()
	for _, name := range []string{"shim", "shim-platform"} {
		b, err := os.ReadFile(filepath.Join(built, name))
		if err != nil {
			t.Fatalf("make build left no %s beside shim: %v", name, err)
		}
		if err := os.MkdirAll(install, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(install, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// plant writes the executable fake at each of paths.
func plant(t *testing.T, fake []byte, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, fake, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}
