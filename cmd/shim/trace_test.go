package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// --trace-frames never writes through a symbolic link: tracing is off
// with a logged error, the session works, the link and its target are
// left as they were. An existing trace file of mode 0644 is made 0600 and
// appended to.
func TestTraceFramesFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFakeA2A(t, "", "tok-trace-0123456789")
	dir := t.TempDir()
	t.Run("link", func(t *testing.T) {
		target := filepath.Join(dir, "target")
		if err := os.WriteFile(target, []byte("theirs\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(target, 0o644)
		link := filepath.Join(dir, "frames.jsonl")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		e := newShimEnv(t)
		e.vars = append(e.vars, "SHIM_TOKEN=tok-trace-0123456789")
		p := e.start(t, "--url", f.url(), "--trace-frames", link)
		if m := session(t, p, false); m["result"] == nil {
			t.Fatalf("session: %v\n%s", m, p.logs())
		}
		if !strings.Contains(p.logs(), "level=ERROR") || !strings.Contains(p.logs(), "tracing is off") {
			t.Errorf("no logged error:\n%s", p.logs())
		}
		if got, err := os.Readlink(link); err != nil || got != target {
			t.Errorf("the link: %q, %v", got, err)
		}
		if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("the target's mode: %v, %v", fi, err)
		}
		if b, _ := os.ReadFile(target); string(b) != "theirs\n" {
			t.Errorf("the target was written: %q", b)
		}
	})
	t.Run("existing 0644", func(t *testing.T) {
		trace := filepath.Join(dir, "old.jsonl")
		if err := os.WriteFile(trace, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(trace, 0o644)
		e := newShimEnv(t)
		e.vars = append(e.vars, "SHIM_TOKEN=tok-trace-0123456789")
		p := e.start(t, "--url", f.url(), "--trace-frames", trace)
		if m := session(t, p, false); m["result"] == nil {
			t.Fatalf("session: %v\n%s", m, p.logs())
		}
		if fi, err := os.Stat(trace); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("the trace's mode: %v, %v; want 0600", fi, err)
		}
		if b, _ := os.ReadFile(trace); !strings.HasPrefix(string(b), "{}\n{") {
			t.Errorf("the trace was not appended to: %q", b)
		}
	})
}
