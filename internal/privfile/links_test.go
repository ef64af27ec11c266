//go:build !windows

package privfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func target0644(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(p, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(p, 0o644)
	return p
}

func wantUntouched(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the target: %v, %v; want mode 0644", fi, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "theirs" {
		t.Errorf("the target holds %q", b)
	}
}

// MoveAside renames a link itself and never changes its target's mode.
func TestMoveAsideLink(t *testing.T) {
	target := target0644(t)
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	aside, err := MoveAside(path, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(aside); err != nil || got != target {
		t.Errorf("aside is %q, %v; want the link", got, err)
	}
	wantUntouched(t, target)
}

// ReadFile and OpenAppend open no link (dangling or not) and no FIFO
// (without blocking on it); OpenAppend makes an existing 0644 file 0600.
func TestNoFollow(t *testing.T) {
	dir := t.TempDir()
	target := target0644(t)
	link := filepath.Join(dir, "link")
	dangling := filepath.Join(dir, "dangling")
	fifo := filepath.Join(dir, "fifo")
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gone, dangling); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, dangling, fifo} {
		if _, _, err := ReadFile(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v, want ErrNotRegular", p, err)
		}
		if f, err := OpenAppend(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenAppend(%s): %v, want ErrNotRegular", p, err)
			if f != nil {
				f.Close()
			}
		}
	}
	wantUntouched(t, target)
	if _, err := os.Lstat(gone); err == nil {
		t.Error("the dangling link's target was created")
	}

	existing := filepath.Join(dir, "trace")
	if err := os.WriteFile(existing, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(existing, 0o644)
	f, err := OpenAppend(existing)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("new\n")
	f.Close()
	if fi, _ := os.Stat(existing); fi.Mode().Perm() != FileMode {
		t.Errorf("mode %o, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(existing); string(b) != "old\nnew\n" {
		t.Errorf("content %q: want it appended to", b)
	}
	fresh := filepath.Join(dir, "fresh")
	if f, err := OpenAppend(fresh); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != FileMode {
		t.Errorf("new file mode %o", fi.Mode().Perm())
	}
	if data, fi, err := ReadFile(existing); err != nil || string(data) != "old\nnew\n" || fi.Mode().Perm() != FileMode {
		t.Errorf("ReadFile: %q, %v, %v", data, fi, err)
	}
}

// With KeepUnreadable, Update refuses a file it cannot read as one (a link,
// bad content) and leaves it where it is: no change made, nothing moved
// aside, nothing written, the link's target untouched.
func TestVersionedKeepUnreadable(t *testing.T) {
	target := target0644(t)
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"link", func(p string) error { return os.Symlink(target, p) }},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{not json"), 0o600) }},
		{"another version", func(p string) error { return os.WriteFile(p, []byte(`{"version": 2}`), 0o600) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(path)
			v := &Versioned{Path: path, Version: 1, Name: "test file", KeepUnreadable: true}
			called := false
			err := v.Update(func(map[string]json.RawMessage) ([]byte, error) {
				called = true
				return []byte(`{"version": 1}`), nil
			})
			var corrupt *CorruptError
			if !errors.As(err, &corrupt) || called {
				t.Fatalf("Update: %v (change called: %v); want a *CorruptError and no change", err, called)
			}
			after, lerr := os.Lstat(path)
			if lerr != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
				t.Errorf("the file was replaced or moved: %v, %v", after, lerr)
			}
			des, _ := os.ReadDir(dir)
			for _, de := range des {
				if de.Name() != "f.json" && de.Name() != "f.json.lock" {
					t.Errorf("Update left %s", de.Name())
				}
			}
			wantUntouched(t, target)
		})
	}
}
