package privfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// names lists dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// TestFailedWriteLeavesNothing: a write of a versioned file that fails at
// any step (writing the temporary file, syncing it, renaming it) returns
// the error and leaves the directory holding exactly the old file, byte
// for byte, and its lock: no temporary file, nothing moved aside, an
// unreadable old file included (SPEC §15).
func TestFailedWriteLeavesNothing(t *testing.T) {
	full := errors.New("no space left on device (injected)")
	for _, step := range []string{"write", "sync", "rename"} {
		for _, old := range []string{`{"version": 1, "n": 1}` + "\n", `not json`} {
			t.Run(step+"/"+old, func(t *testing.T) {
				dir := t.TempDir()
				v := &Versioned{Path: filepath.Join(dir, "f.json"), Version: 1, Name: "test file",
					Now: func() time.Time { return time.Unix(1700000000, 0) }}
				// The old file and its lock, as an earlier write left them.
				if err := os.WriteFile(v.Path, []byte(old), FileMode); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(v.Path+".lock", nil, FileMode); err != nil {
					t.Fatal(err)
				}
				failAt(t, step, full)
				err := v.Update(func(map[string]json.RawMessage) ([]byte, error) {
					return []byte(`{"version": 1, "n": 2}` + "\n"), nil
				})
				if !errors.Is(err, full) {
					t.Errorf("Update: %v, want the write's error", err)
				}
				if got := names(t, dir); !slices.Equal(got, []string{"f.json", "f.json.lock"}) {
					t.Errorf("the directory holds %v", got)
				}
				if b, err := os.ReadFile(v.Path); err != nil || !bytes.Equal(b, []byte(old)) {
					t.Errorf("the old file changed: %q %v", b, err)
				}
			})
		}
	}
}

// TestFailedReplaceLeavesNothing: Replace and WriteTemp, failing at any
// step, leave no temporary file and the old file as it was.
func TestFailedReplaceLeavesNothing(t *testing.T) {
	full := errors.New("file too large (injected)")
	for _, step := range []string{"write", "sync", "rename"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte("old"), FileMode); err != nil {
			t.Fatal(err)
		}
		failAt(t, step, full)
		if err := Replace(path, []byte("new")); !errors.Is(err, full) {
			t.Errorf("%s: Replace: %v", step, err)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"f.json"}) {
			t.Errorf("%s: the directory holds %v", step, got)
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Errorf("%s: the old file changed: %q", step, b)
		}
	}
}
