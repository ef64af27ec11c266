package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/platformtest"
)

// TestShimLinksNoCredentialLibrary: shim itself (with its helper inside or
// not) links none of the heavy credential libraries, whose package init
// would cost every start; the helper links them all.
func TestShimLinksNoCredentialLibrary(t *testing.T) {
	heavy := []string{"github.com/aws/aws-sdk-go-v2/config", "github.com/aws/aws-sdk-go-v2/service/sts",
		"github.com/aws/aws-sdk-go-v2/service/sso", "github.com/Azure/azure-sdk-for-go/sdk/azidentity",
		"github.com/AzureAD/microsoft-authentication-library-for-go/"}
	for _, c := range []struct {
		pkg, tags string
		links     bool
	}{
		{".", "urfave_cli_no_docs", false},
		{".", "urfave_cli_no_docs,shim_platform_embed", false},
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

// TestPlatformHelperEmbedded: a shim built as `make build` builds it, the
// helper inside it, reaches an AgentCore runtime: initialize writes
// nothing; the first request writes the helper to the user's cache
// directory under its hash, 0700, and runs it; a helper changed there is
// refused and written again before it runs.
func TestPlatformHelperEmbedded(t *testing.T) {
	helper, err := os.ReadFile(filepath.Join(filepath.Dir(shimBin), "shim-platform"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(helper)
	zw.Close()
	sum := fmt.Sprintf("%x", sha256.Sum256(helper))
	src, _ := filepath.Abs("embed")
	overlay := map[string]map[string]string{"Replace": {
		filepath.Join(src, "shim-platform.gz"): filepath.Join(dir, "gz"), filepath.Join(src, "shim-platform.sha256"): filepath.Join(dir, "sum")}}
	ov, _ := json.Marshal(overlay)
	for name, b := range map[string][]byte{"gz": gz.Bytes(), "sum": []byte(sum + "\n"), "overlay.json": ov} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "bin", "shim") // no shim-platform beside it
	if out, err := exec.Command("go", "build", "-tags", "shim_platform_embed", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building shim with its helper inside: %v\n%s", err, out)
	}
	defer func(b string) { shimBin = b }(shimBin)
	shimBin = bin

	ac := testAgentCore(t, platformtest.AgentCoreOptions{})
	e := newShimEnv(t)
	cache := filepath.Join(t.TempDir(), "cache")
	e.vars = append(awsStaticVars(t), "XDG_CACHE_HOME="+cache)
	p := e.start(t, "--url", ac.InvocationsURL(), "--platform", "agentcore")
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatal(m)
	}
	if _, err := os.Stat(cache); err == nil || len(ac.Requests()) > 0 {
		t.Fatalf("initialize wrote the helper (%v) or called the runtime (%d requests)", err, len(ac.Requests()))
	}
	if m := p.call(t, 2, "session/new", newSessionParams()); m["result"] == nil {
		t.Fatalf("session/new: %v\n%s", m, p.logs())
	}
	if r := refusals(ac.Requests()); len(r) > 0 || len(ac.Requests()) == 0 {
		t.Fatalf("the runtime refused %v of %d", r, len(ac.Requests()))
	}
	path := filepath.Join(cache, "shim", "shim-platform-"+sum[:32])
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the helper in the cache: %v %v", fi, err)
	}

	if err := os.WriteFile(path, []byte("#!/bin/sh\necho '{\"v\":1,\"error\":\"not shim'\"'\"'s helper\"}'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "", "doctor", "--url", ac.InvocationsURL(), "--platform", "agentcore")
	if !strings.Contains(r.stdout, "AWS environment variables (AWS_ACCESS_KEY_ID), region us-west-2") || strings.Contains(r.stdout, "not shim") {
		t.Errorf("doctor with the helper changed in the cache:\n%s%s", r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, helper) {
		t.Error("the changed helper was not written again")
	}
}
