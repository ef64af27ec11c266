package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallAll: shim, each variant and the floor are measured from a
// copy written into the run's directory (the bytes and the mode of the
// original, the variant's label kept), never from where they were built.
func TestInstallAll(t *testing.T) {
	src := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := config{
		shim:     write("shim", "shim bytes"),
		variants: []string{"pre=" + write("pre", "pre bytes"), "next=" + write("next", "next bytes")},
		floor:    write("floor", "floor bytes"),
	}
	dir := filepath.Join(t.TempDir(), "bin")
	if err := installAll(&c, dir); err != nil {
		t.Fatal(err)
	}
	check := func(path, want string) {
		t.Helper()
		if filepath.Dir(path) != dir {
			t.Errorf("%s is not in %s", path, dir)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v (%v), want 0755", path, fi.Mode(), err)
		}
	}
	check(c.shim, "shim bytes")
	check(c.floor, "floor bytes")
	for i, want := range []struct{ label, body string }{{"pre", "pre bytes"}, {"next", "next bytes"}} {
		label, path, _ := strings.Cut(c.variants[i], "=")
		if label != want.label {
			t.Errorf("variant %d: label %q, want %q", i, label, want.label)
		}
		check(path, want.body)
	}
}
