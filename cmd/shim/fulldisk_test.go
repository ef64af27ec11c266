package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// dirFiles is what dir holds: each name and its content.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[de.Name()] = b
	}
	return out
}

// sameFiles fails the test unless dir holds what it held (names and
// contents, byte for byte).
func sameFiles(t *testing.T, what string, before, after map[string][]byte) {
	t.Helper()
	var names []string
	for n := range after {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if b, ok := before[n]; !ok {
			t.Errorf("%s: a failed write left %s behind", what, n)
		} else if !bytes.Equal(b, after[n]) {
			t.Errorf("%s: %s changed: %q, was %q", what, n, after[n], b)
		}
	}
	for n := range before {
		if _, ok := after[n]; !ok {
			t.Errorf("%s: %s is gone", what, n)
		}
	}
}

func unixOnly(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the file size limit (RLIMIT_FSIZE) is a Unix one")
	}
}

// fileLimit is the most bytes shim may write to a file in these tests: the
// files it has written are larger, so every write past it fails (EFBIG)
// part-way through its temporary file, as on a disk that fills.
const fileLimit = 64

// TestFullDiskKeepsIndex: the thread index written on a disk that fills
// (a real EFBIG, through the built binary) stays as it was, byte for
// byte, with no temporary file beside it; the failure is logged and the
// session served (SPEC §8, §15).
func TestFullDiskKeepsIndex(t *testing.T) {
	unixOnly(t)
	env := newShimEnv(t)
	f := newFakeA2A(t, "", "")
	p := env.start(t, "--url", f.url())
	p.call(t, 1, "initialize", initParams(false))
	first, _ := p.call(t, 2, "session/new", newSessionParams())["result"].(map[string]any)["sessionId"].(string)
	// A session enters the index with its first prompt (SPEC §18).
	if m := p.call(t, 3, "session/prompt", promptParams(first, "hello")); rpcErrorOf(m) != nil {
		t.Fatalf("the first shim's prompt: %v", m)
	}
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the first shim: %v\n%s", err, p.logs())
	}
	before := dirFiles(t, env.state)
	if len(before["threads.json"]) <= fileLimit {
		t.Fatalf("no index written first: %v", before)
	}

	env.fileSize = fileLimit
	p = env.start(t, "--url", f.url())
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new on a full disk: %v", m)
	}
	if m := p.call(t, 3, "session/prompt", promptParams(sid, "hi")); rpcErrorOf(m) != nil {
		t.Fatalf("prompt on a full disk: %v", m)
	}
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shim on a full disk: %v\n%s", err, p.logs())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("shim did not end after stdin closed")
	}
	if !strings.Contains(p.logs(), "thread index not updated") || !strings.Contains(p.logs(), "file too large") {
		t.Errorf("the failed writes are not logged:\n%s", p.logs())
	}
	sameFiles(t, "the state directory", before, dirFiles(t, env.state))
}

// TestFullDiskKeepsCredentials: `shim login` storing a token on a disk
// that fills (a real EFBIG, through the built binary) fails, and leaves
// credentials.json as it was, byte for byte, with no temporary file
// beside it (SPEC §9, §15).
func TestFullDiskKeepsCredentials(t *testing.T) {
	unixOnly(t)
	tok := "tok-first-0123456789"
	first := newFakeA2A(t, "", tok)
	env := newShimEnv(t)
	if r := env.run(t, tok+"\n", "login", "--url", first.url()); r.code != 0 {
		t.Fatalf("the first login: exit %d\n%s", r.code, r.stderr)
	}
	before := dirFiles(t, env.config)
	if len(before["credentials.json"]) <= fileLimit {
		t.Fatalf("no credentials written first: %v", before)
	}

	env.fileSize = fileLimit
	second := newFakeA2A(t, "", "tok-second-0123456789")
	r := env.run(t, "tok-second-0123456789\n", "login", "--url", second.url())
	if r.code == 0 || !strings.Contains(r.stderr, "file too large") {
		t.Errorf("login on a full disk: exit %d\n%s", r.code, r.stderr)
	}
	sameFiles(t, "the config directory", before, dirFiles(t, env.config))
}
