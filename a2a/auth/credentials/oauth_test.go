package credentials

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOAuthRecordInTheFile(t *testing.T) {
	s := NewStore(t.TempDir(), nil, ModeOff, nil)
	// A field a newer shim wrote is kept.
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), []byte(`{"version":1,"tokens":{},"future":{"x":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	exp := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)
	rec := OAuthRecord{RefreshToken: "refresh-0123456789", Expiry: exp.Format(time.RFC3339), TokenURL: "https://id.example/token", ClientID: "shim"}
	where, err := s.SaveOAuth(urlA, "access-0123456789", rec)
	if err != nil || where != SourceFile {
		t.Fatal(where, err)
	}
	data, _ := os.ReadFile(s.Path())
	var f struct {
		Version int                        `json:"version"`
		Tokens  map[string]string          `json:"tokens"`
		OAuth   map[string]OAuthRecord     `json:"oauth"`
		Future  map[string]json.RawMessage `json:"future"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || f.Tokens[urlA] != "access-0123456789" || f.OAuth[urlA] != rec || f.Future == nil {
		t.Fatalf("file %s", data)
	}
	oauthReadBack(t, s, rec, exp)
	if err := s.Forget(urlA); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.OAuth(urlA); got != nil {
		t.Fatalf("forgotten record still there: %+v", got)
	}
	data, _ = os.ReadFile(s.Path())
	if strings.Contains(string(data), "refresh-0123456789") || !strings.Contains(string(data), "future") {
		t.Fatalf("after logout: %s", data)
	}
}

// oauthReadBack checks TestOAuthRecordInTheFile's store: the file's mode,
// the token and the record read back for urlA, none for urlB.
func oauthReadBack(t *testing.T, s *Store, rec OAuthRecord, exp time.Time) {
	t.Helper()
	checkMode(t, s.Path())
	tok, src, err := s.Token(urlA)
	if err != nil || tok != "access-0123456789" || src != SourceFile {
		t.Fatal(tok, src, err)
	}
	got, err := s.OAuth(urlA)
	if err != nil || got == nil || *got != rec || !got.ExpiryTime().Equal(exp) {
		t.Fatalf("%+v %v", got, err)
	}
	if other, _ := s.OAuth(urlB); other != nil {
		t.Fatalf("a record for another URL: %+v", other)
	}
}

func TestOAuthRecordInTheKeyring(t *testing.T) {
	kr := newMemKeyring()
	s := NewStore(t.TempDir(), kr, ModeAuto, nil)
	rec := OAuthRecord{RefreshToken: "refresh-0123456789", TokenURL: "https://id.example/token"}
	if where, err := s.SaveOAuth(urlA, "access-0123456789", rec); err != nil || where != SourceKeyring {
		t.Fatal(where, err)
	}
	if v, ok := kr.get(urlA); !ok || v != "access-0123456789" {
		t.Fatalf("keyring token %q", v)
	}
	if v, ok := kr.get(urlA + "#oauth"); !ok || !strings.Contains(v, "refresh-0123456789") {
		t.Fatalf("keyring record %q", v)
	}
	data, _ := os.ReadFile(s.Path())
	if strings.Contains(string(data), "refresh-0123456789") {
		t.Fatalf("the file holds the refresh token: %s", data)
	}
	got, err := s.OAuth(urlA)
	if err != nil || got == nil || *got != rec {
		t.Fatalf("%+v %v", got, err)
	}
	// A plain token login afterwards drops the record.
	if _, err := s.Save(urlA, "plain-token-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetOAuth(urlA); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.OAuth(urlA); got != nil || kr.len() != 1 {
		t.Fatalf("record %+v, keyring %d entries", got, kr.len())
	}
}

func checkMode(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Fatalf("%s is %#o", path, m)
	}
}

// TestRenewalLock: two stores of one config dir (two processes, or two
// clients of one), one keeping tokens in the OS keyring and one in the
// file, take the same renewal lock: the second is told the lock is busy
// and waits; under the lock it reads what the first stored. The lock file
// is private.
func TestRenewalLock(t *testing.T) {
	dir := t.TempDir()
	kr := newMemKeyring()
	first := NewStore(dir, kr, ModeOn, nil)
	second := NewStore(dir, kr, ModeAuto, nil)
	unlock, err := first.LockRenewal(func() { t.Error("busy on a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	busy := make(chan struct{})
	read := make(chan string, 1)
	go func() {
		u, err := second.LockRenewal(func() { close(busy) })
		if err != nil {
			t.Error(err)
			read <- ""
			return
		}
		tok, _, _ := second.Token(urlA)
		u()
		read <- tok
	}()
	select {
	case <-busy:
	case tok := <-read:
		t.Fatalf("the second store took the lock the first holds (read %q)", tok)
	}
	rec := OAuthRecord{RefreshToken: "refresh-renewed-0123456789", TokenURL: "https://id.example/token"}
	if _, err := first.SaveOAuth(urlA, "access-renewed-0123456789", rec); err != nil {
		t.Fatal(err)
	}
	unlock()
	if tok := <-read; tok != "access-renewed-0123456789" {
		t.Fatalf("read %q under the lock, want the renewed token", tok)
	}
	checkMode(t, filepath.Join(dir, renewalName+".lock"))
}

// signInMarker is TestSignInMarker in a store of keyring kr and mode: the
// sign-in known from the file alone, forgotten by a plain token stored
// over it and by a logout.
func signInMarker(t *testing.T, kr Keyring, mode Mode, rec OAuthRecord) {
	dir := t.TempDir()
	s := NewStore(dir, kr, mode, nil)
	if agent, ok, err := s.SignIn(urlA); ok || agent != "" || err != nil {
		t.Fatalf("nothing stored: %q %v %v", agent, ok, err)
	}
	if _, err := s.SaveOAuth(urlA, "access-0123456789", rec); err != nil {
		t.Fatal(err)
	}
	// A store whose keyring must not be touched reads it.
	fileOnly := NewStore(dir, forbiddenKeyring{t}, ModeAuto, nil)
	if agent, ok, err := fileOnly.SignIn(urlA); !ok || agent != "Corp Agent" || err != nil {
		t.Fatalf("after the sign-in: %q %v %v", agent, ok, err)
	}
	if _, ok, _ := fileOnly.SignIn(urlB); ok {
		t.Fatal("another URL reads as signed in")
	}
	data, _ := os.ReadFile(s.Path())
	if !strings.Contains(string(data), `"signIns"`) || (kr != nil && strings.Contains(string(data), "refresh-0123456789")) {
		t.Fatalf("file %s", data)
	}
	if _, err := s.Save(urlA, "plain-token-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetOAuth(urlA); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.SignIn(urlA); ok {
		t.Fatal("a plain token stored over the sign-in still reads as one")
	}
	if _, err := s.SaveOAuth(urlA, "access-0123456789", rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(urlA); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.SignIn(urlA); ok {
		t.Fatal("a forgotten sign-in still reads as one")
	}
}

// TestSignInMarker: an OAuth sign-in stored for a URL is known from the
// credentials file alone (SignIn never reads the keyring), with the
// agent's name, whether the record went to the keyring or the file; a
// plain token stored over it, and a logout, forget it. A record an older
// shim stored in the file counts too.
func TestSignInMarker(t *testing.T) {
	rec := OAuthRecord{RefreshToken: "refresh-0123456789", TokenURL: "https://id.example/token", ClientID: "shim", Agent: "Corp Agent"}
	for _, tc := range []struct {
		name string
		kr   Keyring
		mode Mode
	}{{"file", nil, ModeOff}, {"keyring", newMemKeyring(), ModeAuto}} {
		t.Run(tc.name, func(t *testing.T) { signInMarker(t, tc.kr, tc.mode, rec) })
	}
	s := NewStore(t.TempDir(), nil, ModeOff, nil)
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := `{"version":1,"tokens":{"` + urlA + `":"access-0123456789"},"oauth":{"` + urlA + `":{"tokenUrl":"https://id.example/token"}}}`
	if err := os.WriteFile(s.Path(), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if agent, ok, err := s.SignIn(urlA); !ok || agent != "" || err != nil {
		t.Fatalf("an older shim's record: %q %v %v", agent, ok, err)
	}
}
