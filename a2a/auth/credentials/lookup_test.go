package credentials

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookupOrder(t *testing.T) {
	const (
		flagTok  = "flag-token-a1"
		flagFile = "flag-file-token-a2"
		envTok   = "env-token-a3"
		envFile  = "env-file-token-a4"
		stored   = "stored-token-a5"
		fileTok  = "file-only-token-a6"
	)
	home := t.TempDir()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flagPath := write("flag", "\n  "+flagFile+"  \r\n\n") // trimmed
	envPath := write("env", envFile+"\n")
	if err := os.WriteFile(filepath.Join(home, "tok"), []byte(" "+flagFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyPath := write("empty", " \n\t\n")
	twoLines := write("two", "abc\ndef\n")
	missing := filepath.Join(dir, "missing")

	tests := []struct {
		name       string
		url        string
		src        Sources
		want, from string
		wantErr    string
	}{
		{"flag token beats all", urlA, Sources{FlagToken: flagTok, FlagTokenFile: flagPath, EnvToken: envTok, EnvTokenFile: envPath}, flagTok, SourceFlagToken, ""},
		{"flag token file beats env token", urlA, Sources{FlagTokenFile: flagPath, EnvToken: envTok, EnvTokenFile: envPath}, flagFile, SourceFlagTokenFile, ""},
		{"env token beats env file", urlA, Sources{EnvToken: envTok, EnvTokenFile: envPath}, envTok, SourceEnvToken, ""},
		{"env token beats stored", urlA, Sources{EnvToken: envTok}, envTok, SourceEnvToken, ""},
		{"env token file beats stored", urlA, Sources{EnvTokenFile: envPath}, envFile, SourceEnvTokenFile, ""},
		{"stored keyring token", urlA, Sources{}, stored, SourceKeyring, ""},
		{"stored file token", urlB, Sources{}, fileTok, SourceFile, ""},
		{"nothing stored for this URL", "https://agent.example/agents/x", Sources{}, "", "", ""},
		{"no URL, nothing given", "", Sources{}, "", "", ""},
		{"no URL, flag given", "", Sources{FlagToken: flagTok}, flagTok, SourceFlagToken, ""},
		{"flag token trimmed", urlA, Sources{FlagToken: " " + flagTok + "\n"}, flagTok, SourceFlagToken, ""},
		{"tilde expanded against Home", urlA, Sources{FlagTokenFile: "~/tok", Home: home}, flagFile, SourceFlagTokenFile, ""},
		{"env tilde expanded too", urlA, Sources{EnvTokenFile: "~/tok", Home: home}, flagFile, SourceEnvTokenFile, ""},
		{"tilde-user left alone", urlA, Sources{FlagTokenFile: "~nobody/tok", Home: home}, "", "", "--token-file"},

		{"missing flag file is an error, not env", urlA, Sources{FlagTokenFile: missing, EnvToken: envTok}, "", "", "--token-file"},
		{"missing env file is an error, not stored", urlA, Sources{EnvTokenFile: missing}, "", "", "SHIM_TOKEN_FILE"},
		{"empty token file", urlA, Sources{FlagTokenFile: emptyPath}, "", "", "is empty"},
		{"two-line token file", urlA, Sources{FlagTokenFile: twoLines}, "", "", "white space"},
		{"blank flag token", urlA, Sources{FlagToken: "  "}, "", "", "empty token"},
		{"unnormalized URL", urlA + "/", Sources{}, "", "", "not normalized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, log := newLeakLog(t)
			l.secret(flagTok, flagFile, envTok, envFile, stored, fileTok, "abc\ndef")
			kr := newMemKeyring()
			s := NewStore(t.TempDir(), kr, ModeAuto, log)
			if _, err := s.Save(urlA, stored); err != nil {
				t.Fatal(err)
			}
			if _, err := NewStore(s.Dir, nil, ModeOff, log).Save(urlB, fileTok); err != nil {
				t.Fatal(err)
			}
			got, from, err := s.Lookup(tc.url, tc.src)
			if tc.wantErr != "" {
				if l.err(err) == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Lookup = %q, %q, %v; want an error containing %q", got, from, err, tc.wantErr)
				}
				return
			}
			if l.err(err) != nil || got != tc.want || from != tc.from {
				t.Fatalf("Lookup = %q, %q, %v; want %q, %q", got, from, err, tc.want, tc.from)
			}
		})
	}
}

func TestExpandHome(t *testing.T) {
	home := filepath.Join("/", "home", "u")
	tests := []struct{ in, want string }{
		{"~", home},
		{"~/x/tok", filepath.Join(home, "x", "tok")},
		{"/abs/tok", "/abs/tok"},
		{"rel/tok", "rel/tok"},
		{"~user/tok", "~user/tok"},
		{"a/~/tok", "a/~/tok"},
	}
	for _, tc := range tests {
		if got, err := ExpandHome(tc.in, home); err != nil || got != tc.want {
			t.Errorf("ExpandHome(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// "" home: the user's.
	if h, err := os.UserHomeDir(); err == nil {
		if got, _ := ExpandHome("~/t", ""); got != filepath.Join(h, "t") {
			t.Errorf("ExpandHome(~/t, \"\") = %q, want under %q", got, h)
		}
	}
}

func TestTokenFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, []byte(strings.Repeat("a", maxTokenFile+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir(), nil, ModeOff, nil)
	if _, _, err := s.Lookup(urlA, Sources{FlagTokenFile: p}); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Fatalf("Lookup with a huge token file: %v", err)
	}
}
