package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a/auth/credentials"
)

// TestTokenErrorAdvice: the advice for a token that cannot be had follows
// the kind of error the credentials store gave (a token file, a token
// given inline, --keyring on, a corrupt file), whatever its text.
func TestTokenErrorAdvice(t *testing.T) {
	const url = "https://agent.example"
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	off := credentials.NewStore(t.TempDir(), nil, credentials.ModeOff, nil)
	on := credentials.NewStore(t.TempDir(), nil, credentials.ModeOn, nil)
	corrupt := credentials.NewStore(t.TempDir(), nil, credentials.ModeOff, nil)
	if err := os.WriteFile(corrupt.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		store *credentials.Store
		src   credentials.Sources
		want  string
	}{
		{"missing --token-file", off, credentials.Sources{FlagTokenFile: filepath.Join(dir, "none")}, "the token file must exist and hold only the token"},
		{"empty SHIM_TOKEN_FILE", off, credentials.Sources{EnvTokenFile: empty}, "the token file must exist and hold only the token"},
		{"spaces in --token", off, credentials.Sources{FlagToken: "two words"}, "give the token alone, without spaces"},
		{"spaces in SHIM_TOKEN", off, credentials.Sources{EnvToken: "two words"}, "give the token alone, without spaces"},
		{"--keyring on without a keyring", on, credentials.Sources{}, "start the OS keyring (Secret Service), or pass --keyring auto"},
		{"corrupt file", corrupt, credentials.Sources{}, "`shim login` moves it aside"},
	} {
		_, _, err := tc.store.Lookup(url, tc.src)
		if err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		got := tokenError(err).Error()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want the advice %q", tc.name, got, tc.want)
		}
		if strings.HasPrefix(got, "reading the stored token") {
			t.Errorf("%s: the generic advice: %q", tc.name, got)
		}
	}
}
