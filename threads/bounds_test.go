package threads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// entryBytes is how many bytes the entry of id takes in the file at dir,
// read from the file itself: from the line of its id's opening quote to
// its closing brace, that line's indentation left out.
func entryBytes(t *testing.T, dir, id string) int {
	t.Helper()
	b, err := os.ReadFile(dir + "/threads.json")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := json.Marshal(id)
	start := bytes.Index(b, append(append([]byte("\n      "), key...), ':', ' ', '{'))
	if start < 0 {
		t.Fatalf("no entry %s in the file", key)
	}
	end := bytes.Index(b[start:], []byte("\n      }"))
	if end < 0 {
		t.Fatalf("entry %s does not end", key)
	}
	return end + len("\n      }") - len("\n      ")
}

// TestEntryBounded: one thread's entry takes at most 64 KiB of the file,
// cut only as far as it must: a long title first (to 80 characters), then
// the oldest task ids, then the rest of the title (SPEC §15).
func TestEntryBounded(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	ids := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%04d", strings.Repeat(string(rune('a'+i%26)), size-4), i)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		entry     Entry
		wantTitle func(string) bool
		ids       string // which task ids are kept: "all", "newest" (some, the newest), "none"
	}{
		{"a long title alone", Entry{CWD: "/w", Title: long("é", 100_000), TaskIDs: ids(3, 40)},
			func(s string) bool {
				return strings.HasPrefix(long("é", 100_000), strings.TrimSuffix(s, "…")) && utf8.RuneCountInString(s) > 20_000
			}, "all"},
		{"large task ids", Entry{CWD: "/w", Title: "Fix the bug", TaskIDs: ids(200, 1024)},
			func(s string) bool { return s == "Fix the bug" }, "newest"},
		{"a long title and large task ids", Entry{CWD: "/w", Title: long("x", 100_000), TaskIDs: ids(200, 1024)},
			func(s string) bool { return s == long("x", 80)+"…" }, "newest"},
		{"a cwd that leaves no room for task ids", Entry{CWD: "/" + long("d", 64<<10-200), Title: long("t", 1000), TaskIDs: ids(5, 100)},
			func(s string) bool { return strings.HasPrefix(s, "ttt") && len(s) < 80 }, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ix := Open(dir, nil)
			mustUpdate(t, ix, testServer, "s1", func(e *Entry) { *e = tc.entry })
			n := entryBytes(t, dir, "s1")
			if n > MaxEntryBytes || n < MaxEntryBytes-1100 {
				t.Errorf("the entry takes %d bytes of the file, want at most %d and cut no further than it must", n, MaxEntryBytes)
			}
			got := mustGet(t, ix, testServer, "s1")
			if !tc.wantTitle(got.Title) {
				t.Errorf("title cut to %d characters: %.40q…", utf8.RuneCountInString(got.Title), got.Title)
			}
			all, kept := tc.entry.TaskIDs, len(got.TaskIDs)
			ok := map[string]bool{"all": kept == len(all), "none": kept == 0, "newest": kept > 0 && kept < len(all)}[tc.ids]
			if !ok || !slices.Equal(got.TaskIDs, all[len(all)-kept:]) {
				t.Errorf("kept %d task ids of %d (the newest?), want %s", kept, len(all), tc.ids)
			}
			if got.CWD != tc.entry.CWD {
				t.Errorf("cwd changed")
			}
		})
	}
}

// TestEntryTooLargeNotWritten: an entry whose cwd and folders alone take
// more than 64 KiB (a cwd that long; folders of characters JSON escapes
// six bytes each) is refused, and the file is left byte for byte as it
// was, with no temporary file.
func TestEntryTooLargeNotWritten(t *testing.T) {
	for _, e := range []Entry{
		{CWD: "/" + strings.Repeat("d", 70_000)},
		{CWD: "/w", AdditionalDirectories: func() []string {
			out := make([]string, 32)
			for i := range out {
				out[i] = "/" + strings.Repeat("\x01", 1023)
			}
			return out
		}()},
	} {
		dir := t.TempDir()
		ix := Open(dir, nil)
		mustUpdate(t, ix, testServer, "old", func(e *Entry) { e.CWD, e.Title = "/old", "Old" })
		before, err := os.ReadFile(dir + "/threads.json")
		if err != nil {
			t.Fatal(err)
		}
		err = ix.Update(testServer, "new", func(x *Entry) { *x = e })
		if !errors.Is(err, ErrEntryTooLarge) {
			t.Fatalf("Update: %v, want ErrEntryTooLarge", err)
		}
		after, err := os.ReadFile(dir + "/threads.json")
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("the file changed (%v)", err)
		}
		if names := dirNames(t, dir, ""); strings.Join(names, ",") != "threads.json,threads.json.lock" {
			t.Errorf("the directory holds %v", names)
		}
	}
}
