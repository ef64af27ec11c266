package credentials

import (
	"encoding/json"
	"os"
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
