package privfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecodeVersioned: the one reader of shim's {"version": N, …} files
// returns the members but the version, and says what is wrong without
// quoting the content.
func TestDecodeVersioned(t *testing.T) {
	top, err := DecodeVersioned([]byte(`{"version": 1, "servers": {"u": {}}, "future": [1]}`), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 2 || string(top["servers"]) != `{"u": {}}` || string(top["future"]) != `[1]` {
		t.Errorf("members: %q", top)
	}
	const secret = "secret-in-the-file"
	for _, tc := range []struct{ data, want string }{
		{`{"version": 1, "tokens": {"` + secret + `"`, "not JSON (error at byte"},
		{secret, "not JSON (error at byte"},
		{``, "not JSON"},
		{`["` + secret + `"]`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`{"tokens": "` + secret + `"}`, "no version"},
		{`{"version": "1"}`, "version is not an integer"},
		{`{"version": 2, "tokens": "` + secret + `"}`, "version 2, want 1"},
	} {
		_, err := DecodeVersioned([]byte(tc.data), 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.data, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: the error quotes the content: %v", tc.data, err)
		}
	}
}

// TestVersionedCycle: a versioned file's read and write cycle. No file
// reads as no members; a write keeps what the change returns; a file of
// another version, or one whose members the owner refuses, is moved aside
// (logged) and the change made on nothing; young temporary files are left
// when an age is kept, old ones removed.
func TestVersionedCycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	var logs bytes.Buffer
	at := time.Unix(1700000000, 0)
	v := &Versioned{Path: filepath.Join(dir, "f.json"), Version: 1, Name: "test file",
		Log: slog.New(slog.NewTextHandler(&logs, nil)), Now: func() time.Time { return at }, TempAge: time.Minute}
	if m, fi, err := v.Read(); m != nil || fi != nil || err != nil {
		t.Fatalf("no file: %v %v %v", m, fi, err)
	}
	var seen []map[string]json.RawMessage
	put := func(content string) func(map[string]json.RawMessage) ([]byte, error) {
		return func(m map[string]json.RawMessage) ([]byte, error) {
			seen = append(seen, m)
			if string(m["bad"]) == "true" {
				return nil, &CorruptError{Path: v.Path, Err: errors.New("bad is true")}
			}
			return []byte(content), nil
		}
	}
	if err := v.Update(put(`{"version":1,"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if m, fi, err := v.Read(); err != nil || string(m["a"]) != "1" || fi == nil {
		t.Fatalf("after a write: %q %v", m, err)
	}

	for _, tc := range []struct{ content, aside string }{
		{`{"version":2}`, "f.json.corrupt-1700000000"},
		{`{"version":1,"bad":true}`, "f.json.corrupt-1700000000-1"},
	} {
		if err := os.WriteFile(v.Path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		seen = nil
		if err := v.Update(put(`{"version":1,"b":2}`)); err != nil {
			t.Fatal(err)
		}
		if n := len(seen); n == 0 || seen[n-1] != nil {
			t.Errorf("%s: the change was not made on nothing: %q", tc.content, seen)
		}
		if b, err := os.ReadFile(filepath.Join(dir, tc.aside)); err != nil || string(b) != tc.content {
			t.Errorf("%s: not moved aside to %s: %q %v", tc.content, tc.aside, b, err)
		}
		if b, _ := os.ReadFile(v.Path); string(b) != `{"version":1,"b":2}` {
			t.Errorf("%s: then written %q", tc.content, b)
		}
	}
	if n := strings.Count(logs.String(), "test file unreadable; moved aside"); n != 2 {
		t.Errorf("%d moves aside logged, want 2:\n%s", n, logs.String())
	}

	checkTempAge(t, v.Path, func() time.Time { at = time.Now(); return at }, func() error { return v.Update(put(`{"version":1}`)) })
}

// checkTempAge: with temporary files beside path, one young and one an
// hour old (by the clock setNow sets), update leaves the young one and
// removes the old one.
func checkTempAge(t *testing.T, path string, setNow func() time.Time, update func() error) {
	t.Helper()
	young, old := path+".tmp-young", path+".tmp-old"
	for _, p := range []string{young, old} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	at := setNow()
	_ = os.Chtimes(old, at.Add(-time.Hour), at.Add(-time.Hour))
	if err := update(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Error("a young temporary file was removed")
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("an old temporary file was kept")
	}
}
