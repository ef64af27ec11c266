package credentials

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	urlA = "https://agent.example"
	urlB = "https://other.example:7870/base"
)

// fileJSON is the credentials file as JSON.
type fileJSON struct {
	Version int               `json:"version"`
	LastURL string            `json:"lastUrl"`
	Tokens  map[string]string `json:"tokens"`
}

func readFileJSON(t *testing.T, s *Store) fileJSON {
	t.Helper()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("credentials file: %v\n%s", err, data)
	}
	return f
}

// wantToken checks Token(url).
func wantToken(t *testing.T, l *leakLog, s *Store, url, token, source string) {
	t.Helper()
	got, src, err := s.Token(url)
	if l.err(err) != nil {
		t.Fatalf("Token(%q): %v", url, err)
	}
	if got != token || src != source {
		t.Fatalf("Token(%q) = %q, %q; want %q, %q", url, got, src, token, source)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "ON": ModeOn, " off ": ModeOff} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"yes", "true", "1", "keyring"} {
		if _, err := ParseMode(in); err == nil {
			t.Errorf("ParseMode(%q): no error", in)
		}
	}
}

// With a keyring that answers, Save puts the token there (in auto and on),
// drops any copy from the file, records lastUrl; Token reads it back; Forget
// removes it from both.
func TestSaveTokenForgetWithKeyring(t *testing.T) {
	for _, mode := range []Mode{ModeAuto, ModeOn} {
		t.Run(string(mode), func(t *testing.T) {
			l, log := newLeakLog(t)
			kr := newMemKeyring()
			s := NewStore(t.TempDir(), kr, mode, log)
			old := l.secret("old-file-token-1")
			tok := l.secret("kr-token-2")

			// A token for urlA left in the file by an earlier fallback.
			if _, err := NewStore(s.Dir, nil, ModeOff, log).Save(urlA, old); l.err(err) != nil {
				t.Fatal(err)
			}
			wantToken(t, l, s, urlA, old, SourceFile)

			where, err := s.Save(urlA, tok)
			if l.err(err) != nil || where != SourceKeyring {
				t.Fatalf("Save = %q, %v; want %q", where, err, SourceKeyring)
			}
			if got, _ := kr.get(urlA); got != tok {
				t.Fatalf("keyring holds %q, want the token", got)
			}
			f := readFileJSON(t, s)
			if _, ok := f.Tokens[urlA]; ok || f.LastURL != urlA || f.Version != 1 {
				t.Fatalf("file = %+v; want no token for %s and lastUrl %s", f, urlA, urlA)
			}
			wantToken(t, l, s, urlA, tok, SourceKeyring)
			if last, err := s.LastURL(); l.err(err) != nil || last != urlA {
				t.Fatalf("LastURL = %q, %v", last, err)
			}

			if err := s.Forget(urlA); l.err(err) != nil {
				t.Fatal(err)
			}
			if _, ok := kr.get(urlA); ok {
				t.Fatal("keyring still holds the token after Forget")
			}
			wantToken(t, l, s, urlA, "", "")
			if last, _ := s.LastURL(); last != urlA {
				t.Fatalf("LastURL after Forget = %q, want it kept", last)
			}
			// Forgetting what is not there is fine.
			if err := s.Forget(urlB); l.err(err) != nil {
				t.Fatal(err)
			}
		})
	}
}

// In auto mode a keyring that fails, hangs or is absent sends the token to
// the file, quickly; in on mode the same is an error and stores nothing.
func TestKeyringUnavailable(t *testing.T) {
	const hangTimeout = 50 * time.Millisecond
	keyrings := []struct {
		name string
		kr   func(t *testing.T) Keyring
	}{
		{"errors", func(*testing.T) Keyring { return errKeyring{} }},
		{"hangs", func(t *testing.T) Keyring { return WithTimeout(newHangKeyring(t), hangTimeout) }},
		{"absent", func(*testing.T) Keyring { return nil }},
	}
	for _, k := range keyrings {
		t.Run(k.name+"/auto", func(t *testing.T) {
			l, log := newLeakLog(t)
			s := NewStore(t.TempDir(), k.kr(t), ModeAuto, log)
			tok := l.secret("fallback-token-3")
			start := time.Now()
			where, err := s.Save(urlA, tok)
			if l.err(err) != nil || where != SourceFile {
				t.Fatalf("Save = %q, %v; want %q", where, err, SourceFile)
			}
			f := readFileJSON(t, s)
			if f.Tokens[urlA] != tok || f.LastURL != urlA {
				t.Fatalf("file = %+v; want the token under %s", f, urlA)
			}
			wantToken(t, l, s, urlA, tok, SourceFile)
			if err := s.Forget(urlA); l.err(err) != nil {
				t.Fatal(err)
			}
			wantToken(t, l, s, urlA, "", "")
			// One timeout at most: later calls fail fast while the first hangs.
			if d := time.Since(start); d > hangTimeout+time.Second {
				t.Fatalf("took %v with a keyring timeout of %v", d, hangTimeout)
			}
		})
		t.Run(k.name+"/on", func(t *testing.T) {
			l, log := newLeakLog(t)
			s := NewStore(t.TempDir(), k.kr(t), ModeOn, log)
			tok := l.secret("on-mode-token-4")
			where, err := s.Save(urlA, tok)
			if l.err(err) == nil {
				t.Fatalf("Save = %q, nil; want an error", where)
			}
			if _, err := os.Stat(s.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Save failed but wrote the file (stat: %v)", err)
			}
			if _, _, err := s.Token(urlA); l.err(err) == nil {
				t.Fatal("Token with --keyring on and no working keyring: no error")
			}
			_ = l.err(s.Forget(urlA))
		})
	}
}

// Mode off never calls the keyring, for any operation.
func TestModeOffNeverTouchesKeyring(t *testing.T) {
	l, log := newLeakLog(t)
	s := NewStore(t.TempDir(), forbiddenKeyring{t}, ModeOff, log)
	tok := l.secret("off-token-5")
	if where, err := s.Save(urlA, tok); l.err(err) != nil || where != SourceFile {
		t.Fatalf("Save = %q, %v", where, err)
	}
	wantToken(t, l, s, urlA, tok, SourceFile)
	wantToken(t, l, s, urlB, "", "")
	if got, src, err := s.Lookup(urlA, Sources{}); l.err(err) != nil || got != tok || src != SourceFile {
		t.Fatalf("Lookup = %q, %q, %v", got, src, err)
	}
	if err := s.Forget(urlA); l.err(err) != nil {
		t.Fatal(err)
	}
	if _, err := s.LastURL(); l.err(err) != nil {
		t.Fatal(err)
	}
}

// A token stored for one URL is never returned for another, whether it
// lives in the keyring or in the file.
func TestTokenOnlyForItsURL(t *testing.T) {
	urls := []string{
		"https://agent.example",
		"http://agent.example",                  // scheme
		"https://agent.example:8443",            // port
		"https://agent.example/a",               // path
		"https://agent.example/a/b",             // longer path
		"https://agent.example/A",               // path case
		"https://agent.example/agents/bob",      // slug
		"https://agent.example/agents/alice",    // other slug
		"https://agent.example/a/agents/bob",    // slug under a path
		"https://agent.example.evil",            // host suffix
		"https://sub.agent.example",             // host prefix
		"https://agent.example:8443/agents/bob", // port and slug
	}
	unstored := []string{"https://agent.example/agents", "https://agent.example/a/agents", "https://agent.example:444"}
	for _, backend := range []struct {
		name   string
		mode   Mode
		source string
	}{{"keyring", ModeOn, SourceKeyring}, {"file", ModeOff, SourceFile}} {
		t.Run(backend.name, func(t *testing.T) {
			l, log := newLeakLog(t)
			s := NewStore(t.TempDir(), newMemKeyring(), backend.mode, log)
			tokens := map[string]string{}
			for i, u := range urls {
				tokens[u] = l.secret(fmt.Sprintf("tok-%d-%s", i, strings.Repeat("x", i+3)))
			}
			// Store every other one first, check, then the rest.
			for pass := range 2 {
				for i, u := range urls {
					if i%2 == pass {
						if _, err := s.Save(u, tokens[u]); l.err(err) != nil {
							t.Fatal(err)
						}
					}
				}
				for i, u := range urls {
					want, src := tokens[u], backend.source
					if pass == 0 && i%2 == 1 {
						want, src = "", ""
					}
					wantToken(t, l, s, u, want, src)
				}
			}
			for _, u := range unstored {
				wantToken(t, l, s, u, "", "")
			}
			// Spellings that are not normalized are refused, not matched.
			for _, u := range []string{"https://agent.example/", "HTTPS://agent.example", "https://agent.example:443", "https://agent.example/a?x"} {
				if got, _, err := s.Token(u); l.err(err) == nil {
					t.Fatalf("Token(%q) = %q, nil; want an error", u, got)
				}
			}
			// Forgetting one leaves the others.
			if err := s.Forget(urls[0]); l.err(err) != nil {
				t.Fatal(err)
			}
			wantToken(t, l, s, urls[0], "", "")
			for _, u := range urls[1:] {
				wantToken(t, l, s, u, tokens[u], backend.source)
			}
		})
	}
}

func TestSaveRefusesBadInput(t *testing.T) {
	l, log := newLeakLog(t)
	s := NewStore(t.TempDir(), forbiddenKeyring{t}, ModeOff, log)
	tests := []struct{ name, url, token string }{
		{"empty token", urlA, ""},
		{"space in token", urlA, l.secret("abc def-6")},
		{"newline in token", urlA, l.secret("abc\nInjected: header-7")},
		{"control in token", urlA, l.secret("abc\x00def-8")},
		{"url not normalized", urlA + "/", l.secret("good-token-9")},
		{"url not http", "ftp://agent.example", l.secret("good-token-10")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if where, err := s.Save(tc.url, tc.token); l.err(err) == nil {
				t.Fatalf("Save = %q, nil; want an error", where)
			}
		})
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("refused saves wrote the file (stat: %v)", err)
	}
	if _, _, err := NewStore(s.Dir, nil, "sometimes", log).Token(urlA); err == nil {
		t.Fatal("a Store with an invalid mode: no error")
	}
}

// LastURL follows the last Save; Forget keeps it; no file means "".
func TestLastURL(t *testing.T) {
	l, log := newLeakLog(t)
	s := NewStore(t.TempDir(), newMemKeyring(), ModeAuto, log)
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error { return nil }, ""},
		{func() error { _, err := s.Save(urlA, l.secret("last-a-11")); return err }, urlA},
		{func() error { _, err := s.Save(urlB, l.secret("last-b-12")); return err }, urlB},
		{func() error { return s.Forget(urlB) }, urlB},
	}
	for i, st := range steps {
		if err := st.do(); l.err(err) != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, err := s.LastURL(); l.err(err) != nil || got != st.want {
			t.Fatalf("step %d: LastURL = %q, %v; want %q", i, got, err, st.want)
		}
	}
}

// The file has the documented shape, keeps unknown fields and is 0600 in a
// 0700 directory.
func TestFileShape(t *testing.T) {
	l, log := newLeakLog(t)
	dir := filepath.Join(t.TempDir(), "shim")
	s := NewStore(dir, nil, ModeOff, log)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), []byte(`{"version":1,"future":{"x":1},"tokens":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tok := l.secret("shape-token-13")
	if _, err := s.Save(urlA, tok); l.err(err) != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"version": 1.0, "lastUrl": urlA,
		"tokens": map[string]any{urlA: tok}, "future": map[string]any{"x": 1.0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("file = %v, want %v", got, want)
	}
	if !strings.HasPrefix(string(data), "{\n  \"version\": 1,") {
		t.Fatalf("file does not start with the version:\n%s", data)
	}
}

// Widened modes of the file and the directory are put back by every write.
func TestModesRestored(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not enforced on Windows")
	}
	writes := []struct {
		name  string
		write func(s *Store, l *leakLog) error
	}{
		{"save", func(s *Store, l *leakLog) error { _, err := s.Save(urlA, l.secret("mode-token-14")); return err }},
		{"forget", func(s *Store, _ *leakLog) error { return s.Forget(urlA) }},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			l, log := newLeakLog(t)
			dir := filepath.Join(t.TempDir(), "cfg")
			s := NewStore(dir, nil, ModeOff, log)
			if _, err := s.Save(urlA, l.secret("first-token-15")); l.err(err) != nil {
				t.Fatal(err)
			}
			checkModes(t, s)
			if err := os.Chmod(s.Path(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Token(urlA); l.err(err) != nil {
				t.Fatal(err)
			}
			if !strings.Contains(l.output(), "readable by others") {
				t.Errorf("no warning about the widened file mode:\n%s", l.output())
			}
			if err := w.write(s, l); l.err(err) != nil {
				t.Fatal(err)
			}
			checkModes(t, s)
		})
	}
}

func checkModes(t *testing.T, s *Store) {
	t.Helper()
	for path, want := range map[string]fs.FileMode{s.Path(): 0o600, s.Dir: 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Fatalf("%s has mode %#o, want %#o", path, got, want)
		}
	}
}

// An unreadable file is left alone (and reported) by reads and moved aside
// by the next write, never overwritten; the token in it never shows.
func TestCorruptFileMovedAside(t *testing.T) {
	const inside = "token-inside-corrupt-16"
	tests := []struct{ name, content string }{
		{"not json", `{"version": 1, "tokens": {"` + urlA + `": "` + inside + `"`},
		{"garbage", inside},
		{"array", `["` + inside + `"]`},
		{"no version", `{"tokens": {"` + urlA + `": "` + inside + `"}}`},
		{"version 2", `{"version": 2, "tokens": {"` + urlA + `": "` + inside + `"}}`},
		{"tokens not strings", `{"version": 1, "tokens": {"` + urlA + `": ["` + inside + `"]}}`},
		{"lastUrl not a string", `{"version": 1, "lastUrl": ["` + inside + `"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, log := newLeakLog(t)
			l.secret(inside)
			s := newStore(t.TempDir(), nil, ModeOff, log, func() time.Time { return time.Unix(1700000000, 0) })
			if err := os.WriteFile(s.Path(), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Token(urlA); !errors.Is(l.err(err), ErrCorrupt) {
				t.Fatalf("Token on a corrupt file: %v, want ErrCorrupt", err)
			}
			if _, err := s.LastURL(); !errors.Is(l.err(err), ErrCorrupt) {
				t.Fatalf("LastURL on a corrupt file: %v, want ErrCorrupt", err)
			}
			if data, _ := os.ReadFile(s.Path()); string(data) != tc.content {
				t.Fatal("a read changed the corrupt file")
			}

			// Something in the way of the first name: the suffix -1 is used.
			aside := s.Path() + ".corrupt-1700000000"
			if err := os.WriteFile(aside, []byte("earlier"), 0o600); err != nil {
				t.Fatal(err)
			}
			tok := l.secret("new-token-17")
			if _, err := s.Save(urlB, tok); l.err(err) != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(aside + "-1"); err != nil || string(data) != tc.content {
				t.Fatalf("moved-aside file: %q, %v; want the old content", data, err)
			}
			if data, _ := os.ReadFile(aside); string(data) != "earlier" {
				t.Fatal("an earlier moved-aside file was overwritten")
			}
			if f := readFileJSON(t, s); f.Tokens[urlB] != tok || len(f.Tokens) != 1 {
				t.Fatalf("new file = %+v", f)
			}
			out := l.output()
			if !strings.Contains(out, "moved aside") || !strings.Contains(out, aside+"-1") {
				t.Fatalf("the move was not logged:\n%s", out)
			}
		})
	}
}

// Writers in several goroutines with separate Stores on one directory lose
// nothing (the flock and the rename), and leave no temporary files.
func TestConcurrentWriters(t *testing.T) {
	l, log := newLeakLog(t)
	dir := t.TempDir()
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s := NewStore(dir, nil, ModeOff, log)
			u := fmt.Sprintf("https://agent%d.example", i)
			if _, err := s.Save(u, l.secret(fmt.Sprintf("concurrent-%d-token", i))); l.err(err) != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s := NewStore(dir, nil, ModeOff, log)
	if runtime.GOOS != "windows" {
		if f := readFileJSON(t, s); len(f.Tokens) != n {
			t.Fatalf("%d tokens in the file, want %d", len(f.Tokens), n)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	if len(matches) != 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
}

// Temporary files of a writer that died are removed once they are old.
func TestStaleTempRemoved(t *testing.T) {
	l, log := newLeakLog(t)
	dir := t.TempDir()
	s := NewStore(dir, nil, ModeOff, log)
	old := filepath.Join(dir, tempPrefix+"dead")
	young := filepath.Join(dir, tempPrefix+"alive")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(urlA, l.secret("stale-token-18")); l.err(err) != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stale temp file kept (stat: %v)", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatalf("young temp file removed: %v", err)
	}
}
