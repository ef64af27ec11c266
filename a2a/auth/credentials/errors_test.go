package credentials

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestKeyringOnErrors: every failure of --keyring on is ErrKeyringOn
// (errors.Is), so that callers pick their advice by type; the same keyring
// in auto mode is no error at all.
func TestKeyringOnErrors(t *testing.T) {
	for name, kr := range map[string]Keyring{"failing": errKeyring{}, "absent": nil} {
		t.Run(name, func(t *testing.T) {
			s := NewStore(t.TempDir(), kr, ModeOn, nil)
			if _, err := s.Save(urlA, "a-token-of-some-length"); !errors.Is(err, ErrKeyringOn) {
				t.Errorf("Save: %v, want ErrKeyringOn", err)
			}
			if _, _, err := s.Token(urlA); !errors.Is(err, ErrKeyringOn) {
				t.Errorf("Token: %v, want ErrKeyringOn", err)
			}
			if err := s.Forget(urlA); !errors.Is(err, ErrKeyringOn) {
				t.Errorf("Forget: %v, want ErrKeyringOn", err)
			}
		})
	}
	auto := NewStore(t.TempDir(), errKeyring{}, ModeAuto, nil)
	if _, err := auto.Save(urlA, "a-token-of-some-length"); err != nil {
		t.Errorf("Save in auto mode: %v", err)
	}
}

// TestSourceError: a token source that is given but yields no usable token
// fails with a *SourceError naming the source; a token file's own error is
// still in the chain.
func TestSourceError(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(dir, "spaced")
	if err := os.WriteFile(spaced, []byte("two words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	s := NewStore(t.TempDir(), nil, ModeOff, nil)
	for _, tc := range []struct {
		name   string
		src    Sources
		source string
		file   bool
	}{
		{"bad --token", Sources{FlagToken: "two words"}, SourceFlagToken, false},
		{"bad SHIM_TOKEN", Sources{EnvToken: "two\twords"}, SourceEnvToken, false},
		{"missing --token-file", Sources{FlagTokenFile: missing}, SourceFlagTokenFile, true},
		{"empty SHIM_TOKEN_FILE", Sources{EnvTokenFile: empty}, SourceEnvTokenFile, true},
		{"bad token in --token-file", Sources{FlagTokenFile: spaced}, SourceFlagTokenFile, true},
	} {
		_, _, err := s.Lookup(urlA, tc.src)
		var se *SourceError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *SourceError", tc.name, err)
			continue
		}
		if se.Source != tc.source || se.File() != tc.file {
			t.Errorf("%s: Source %q, File %v; want %q, %v", tc.name, se.Source, se.File(), tc.source, tc.file)
		}
	}
	if _, _, err := s.Lookup(urlA, Sources{FlagTokenFile: missing}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing token file: %v, want fs.ErrNotExist in the chain", err)
	}
	if _, _, err := s.Lookup(urlA, Sources{FlagToken: "a-token-of-some-length"}); err != nil {
		t.Errorf("a good --token: %v", err)
	}
}
