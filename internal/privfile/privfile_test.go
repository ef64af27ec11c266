package privfile

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestReplaceModesAndAside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "f.json")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	// The data goes through a temporary file beside the target (the first
	// half of Replace).
	tmp, err := WriteTemp(path, []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(tmp)
	if err != nil || filepath.Dir(tmp) != dir {
		t.Error("the data must go through a temporary file beside the target")
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != FileMode {
		t.Errorf("temp mode %o", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(tmp); string(b) != "one" {
		t.Errorf("temp content %q", b)
	}
	_ = os.Remove(tmp)
	if err := Replace(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, TempPrefix(path)+"*")); len(left) != 0 {
		t.Errorf("temporary files left by Replace: %v", left)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("content %q", b)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(dir)
		if fi.Mode().Perm() != DirMode {
			t.Errorf("dir mode %o", fi.Mode().Perm())
		}
		fi, _ = os.Stat(path)
		if fi.Mode().Perm() != FileMode {
			t.Errorf("file mode %o", fi.Mode().Perm())
		}
	}
	checkMoveAside(t, path)
}

// checkMoveAside: a file moved aside twice at the same second gets two
// names, the first one kept.
func checkMoveAside(t *testing.T, path string) {
	t.Helper()
	now := time.Unix(1700000000, 0)
	a1, err := MoveAside(path, now)
	if err != nil || filepath.Base(a1) != "f.json.corrupt-1700000000" {
		t.Fatalf("aside %q %v", a1, err)
	}
	_ = os.WriteFile(path, []byte("two"), 0o600)
	a2, err := MoveAside(path, now)
	if err != nil || filepath.Base(a2) != "f.json.corrupt-1700000000-1" {
		t.Fatalf("second aside %q %v", a2, err)
	}
	if b, _ := os.ReadFile(a1); string(b) != "one" {
		t.Errorf("the first file was overwritten: %q", b)
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	old, young, other := filepath.Join(dir, "f.json.tmp-old"), filepath.Join(dir, "f.json.tmp-young"), filepath.Join(dir, "g.json.tmp-x")
	for _, p := range []string{old, young, other} {
		_ = os.WriteFile(p, nil, 0o600)
	}
	now := time.Now()
	_ = os.Chtimes(old, now.Add(-time.Hour), now.Add(-time.Hour))
	removed, errs := RemoveStaleTemps(path, time.Minute, now)
	if len(errs) != 0 || len(removed) != 1 || removed[0] != old {
		t.Fatalf("removed %v errs %v", removed, errs)
	}
	removed, _ = RemoveStaleTemps(path, 0, time.Time{})
	if len(removed) != 1 || removed[0] != young {
		t.Fatalf("with no age: removed %v", removed)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("another file's temp was removed")
	}
}

func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	var mu sync.Mutex
	inside := 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				unlock, _, err := Lock(path, time.Now)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				if inside != 1 {
					t.Error("two holders of the lock at once")
				}
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				unlock()
			}
		}()
	}
	wg.Wait()
}

// TestLockNotify: LockNotify says once that another holder has the lock,
// then waits for it; a free lock is taken without a word.
func TestLockNotify(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	unlock, _, err := LockNotify(path, time.Now, func() { t.Error("busy called on a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	busy := make(chan struct{})
	got := make(chan func(), 1)
	go func() {
		u, _, err := LockNotify(path, time.Now, func() { close(busy) })
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	select {
	case <-busy:
	case u := <-got:
		u()
		t.Fatal("took a lock another holder has")
	}
	unlock()
	(<-got)()
}
