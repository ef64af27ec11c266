package threads

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// outside writes a file beyond the state directory, mode 0644, and
// returns its path.
func outside(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// untouched fails unless the file at p still holds content with mode 0644.
func untouched(t *testing.T, p, content string) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatalf("the link's target: %v", err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target got mode %o", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != content {
		t.Errorf("the link's target now holds %q", b)
	}
}

// isLinkTo fails unless p is a symbolic link to target.
func isLinkTo(t *testing.T, p, target string) {
	t.Helper()
	if got, err := os.Readlink(p); err != nil || got != target {
		t.Errorf("%s: want the link to %s moved here, got %q, %v", p, target, got, err)
	}
}

func linkedIndex(t *testing.T) (*Index, string, *bytes.Buffer) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	ix := open(dir, slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return time.Unix(1700000000, 0) })
	return ix, dir, &logs
}

// A threads.json that is a link to a file that is not an index is moved
// aside itself: the link is renamed, its target keeps its content and its
// mode 0644.
func TestIndexLinkToJunkMovedAside(t *testing.T) {
	ix, _, logs := linkedIndex(t)
	target := outside(t, "not an index")
	if err := os.Symlink(target, ix.Path()); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, ix, testServer, "fresh", func(e *Entry) { e.Title = "new" })
	untouched(t, target, "not an index")
	isLinkTo(t, ix.Path()+".corrupt-1700000000", target)
	if fi, err := os.Lstat(ix.Path()); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("threads.json is %v, %v; want a new 0600 file", fi, err)
	}
	if !strings.Contains(logs.String(), "moved aside") {
		t.Errorf("the move was not logged:\n%s", logs)
	}
}

// A link to a file that parses as an index is never read: a read fails
// as on a corrupt file, and the write that follows moves the link aside
// and keeps none of the target's entries.
func TestIndexLinkToIndexNotMerged(t *testing.T) {
	ix, _, _ := linkedIndex(t)
	content := `{"version": 1, "servers": {"` + testServer + `": {"planted": {"cwd": "/tmp", "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-01T00:00:00Z"}}}}`
	target := outside(t, content)
	if err := os.Symlink(target, ix.Path()); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.List(testServer); !errors.Is(err, ErrCorrupt) {
		t.Errorf("List through a link: %v, want ErrCorrupt", err)
	}
	mustUpdate(t, ix, testServer, "fresh", func(e *Entry) {})
	items, err := ix.List(testServer)
	if err != nil || len(items) != 1 || items[0].ID != "fresh" {
		t.Errorf("the index holds %+v, %v; want only the fresh entry", items, err)
	}
	untouched(t, target, content)
	isLinkTo(t, ix.Path()+".corrupt-1700000000", target)
}

// A threads.json.lock that is a link (here to a file that does not exist)
// never creates its target, neither on a read nor on a write; the write
// moves the link aside and locks a new regular file.
func TestIndexLockLinkMovedAside(t *testing.T) {
	ix, _, logs := linkedIndex(t)
	mustUpdate(t, ix, testServer, "one", func(e *Entry) {})
	lock := ix.Path() + ".lock"
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "created-through-the-link")
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.List(testServer); err == nil {
		t.Error("a read through a lock link succeeded")
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a read created the lock link's target: %v", err)
	}
	mustUpdate(t, ix, testServer, "two", func(e *Entry) {})
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a write created the lock link's target: %v", err)
	}
	isLinkTo(t, lock+".corrupt-1700000000", target)
	if fi, err := os.Lstat(lock); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the lock is %v, %v; want a new regular file", fi, err)
	}
	if items, err := ix.List(testServer); err != nil || len(items) != 2 {
		t.Errorf("List: %+v, %v", items, err)
	}
	if !strings.Contains(logs.String(), "lock file was not a regular file") {
		t.Errorf("the move was not logged:\n%s", logs)
	}
}
