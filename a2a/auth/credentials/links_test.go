package credentials

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A credentials.json that is a symbolic link, here to a file that parses
// and holds a token for the URL, is never read: Token fails as on a
// corrupt file rather than return the planted token, and Save moves the
// link itself aside, leaving its target's content and mode 0644 as they
// were. A credentials.json.lock link is moved aside without its target
// being created.
func TestCredentialsLinkMovedAside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	l, log := newLeakLog(t)
	planted := l.secret("planted-token-0123")
	content := `{"version": 1, "lastUrl": "` + urlA + `", "tokens": {"` + urlA + `": "` + planted + `"}}`
	target := filepath.Join(t.TempDir(), "target.json")
	if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	lockTarget := filepath.Join(t.TempDir(), "lock-target")
	s := newStore(t.TempDir(), nil, ModeOff, log, func() time.Time { return time.Unix(1700000000, 0) })
	if err := os.Symlink(target, s.Path()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(lockTarget, s.Path()+".lock"); err != nil {
		t.Fatal(err)
	}
	if tok, _, err := s.Token(urlA); tok != "" || !errors.Is(l.err(err), ErrCorrupt) {
		t.Fatalf("Token through a link = %q, %v; want ErrCorrupt", tok, err)
	}
	tok := l.secret("new-token-0123456")
	if _, err := s.Save(urlB, tok); l.err(err) != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(s.Path() + ".corrupt-1700000000"); err != nil || got != target {
		t.Errorf("want the link moved aside, got %q, %v", got, err)
	}
	if got, err := os.Readlink(s.Path() + ".lock.corrupt-1700000000"); err != nil || got != lockTarget {
		t.Errorf("want the lock link moved aside, got %q, %v", got, err)
	}
	if _, err := os.Lstat(lockTarget); err == nil {
		t.Error("the lock link's target was created")
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the target's mode changed: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != content {
		t.Errorf("the target changed: %s", b)
	}
	if f := readFileJSON(t, s); len(f.Tokens) != 1 || f.Tokens[urlB] != tok {
		t.Errorf("new file = %+v", f)
	}
	checkModes(t, s)
}
