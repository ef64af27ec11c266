package credentials

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, raw, slug string
		want            string
		wantErr         string // substring; "" = no error
	}{
		{"plain https", "https://agent.example", "", "https://agent.example", ""},
		{"scheme and host lowercased", "HTTPS://Agent.EXAMPLE", "", "https://agent.example", ""},
		{"https default port dropped", "https://agent.example:443", "", "https://agent.example", ""},
		{"http default port dropped", "http://agent.example:80/x", "", "http://agent.example/x", ""},
		{"https keeps :80", "https://agent.example:80", "", "https://agent.example:80", ""},
		{"http keeps :443", "http://agent.example:443", "", "http://agent.example:443", ""},
		{"other port kept", "https://agent.example:7870", "", "https://agent.example:7870", ""},
		{"empty port dropped", "https://agent.example:/", "", "https://agent.example", ""},
		{"trailing slash dropped", "https://agent.example/", "", "https://agent.example", ""},
		{"trailing slashes dropped", "https://agent.example/a//", "", "https://agent.example/a", ""},
		{"path kept, case and all", "https://agent.example/Team/A", "", "https://agent.example/Team/A", ""},
		{"escaped path kept", "https://agent.example/a%20b/c%2Fd", "", "https://agent.example/a%20b/c%2Fd", ""},
		{"query and fragment dropped", "https://agent.example/p/?q=1#frag", "", "https://agent.example/p", ""},
		{"surrounding space trimmed", "  https://agent.example/p \n", "", "https://agent.example/p", ""},
		{"slug appended", "https://hub.example/", "bob", "https://hub.example/agents/bob", ""},
		{"slug after path", "https://hub.example:8443/base/", "team-1.x_y~z", "https://hub.example:8443/base/agents/team-1.x_y~z", ""},
		{"slug escaped", "https://hub.example", "café", "https://hub.example/agents/caf%C3%A9", ""},
		{"ipv6 default port", "http://[::1]:80/", "", "http://[::1]", ""},
		{"ipv6 port kept", "http://[::1]:8080", "", "http://[::1]:8080", ""},
		{"ipv6 lowercased", "https://[FE80::1]", "", "https://[fe80::1]", ""},
		{"ipv6 zone", "http://[fe80::1%25eth0]:8080/", "", "http://[fe80::1%25eth0]:8080", ""},
		{"loopback ip", "http://127.0.0.1:7870/", "", "http://127.0.0.1:7870", ""},

		{"empty", "", "", "", "empty URL"},
		{"no scheme", "agent.example:7870", "", "", `"agent.example:7870" has no http:// or https://; write it as https://agent.example:7870`},
		{"bare host", "agent.example", "", "", "has no http:// or https://"},
		{"localhost without a scheme", "localhost:7870", "", "", `"localhost:7870" has no http:// or https://; write it as https://localhost:7870 (or http://localhost:7870 for an agent on this machine)`},
		{"IP without a scheme", "127.0.0.1:7870", "", "", "write it as https://127.0.0.1:7870"},
		{"other scheme", "ftp://agent.example", "", "", `URL scheme "ftp" is not http or https`},
		{"ftp", "ftp://agent.example", "", "", "not http or https"},
		{"ws", "wss://agent.example", "", "", "not http or https"},
		{"no host", "https://", "", "", "no host"},
		{"port only", "https://:8443/x", "", "", "no host"},
		{"opaque", "https:agent.example", "", "", "no host"},
		{"user info", "https://user:s3cret@agent.example", "", "", "user information"},
		{"user only", "https://tok3n@agent.example", "", "", "user information"},
		{"bad port", "https://agent.example:x/", "", "", "invalid URL"},
		{"slug with slash", "https://hub.example", "a/b", "", "slug"},
		{"slug dot dot", "https://hub.example", "..", "", "slug"},
		{"slug dot", "https://hub.example", ".", "", "slug"},
		{"slug space", "https://hub.example", "a b", "", "slug"},
		{"slug query", "https://hub.example", "a?b", "", "slug"},
		{"slug percent", "https://hub.example", "a%2Fb", "", "slug"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.raw, tc.slug)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("Normalize(%q, %q) = %q, want an error containing %q", tc.raw, tc.slug, got, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %q does not contain %q", err, tc.wantErr)
				}
				for _, secret := range []string{"s3cret", "tok3n"} {
					if strings.Contains(err.Error(), secret) {
						t.Fatalf("error %q repeats the user information", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize(%q, %q): %v", tc.raw, tc.slug, err)
			}
			if got != tc.want {
				t.Fatalf("Normalize(%q, %q) = %q, want %q", tc.raw, tc.slug, got, tc.want)
			}
			// A normalized URL is its own normal form (Save and Token rely on it).
			again, err := Normalize(got, "")
			if err != nil || again != got {
				t.Fatalf("Normalize(%q, \"\") = %q, %v; want it unchanged", got, again, err)
			}
			if err := checkNormalized(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCheckNormalizedRefusesOtherSpellings(t *testing.T) {
	for _, u := range []string{
		"https://agent.example/", "HTTPS://agent.example", "https://agent.example:443",
		"https://agent.example?x=1", " https://agent.example", "agent.example", "",
	} {
		if err := checkNormalized(u); err == nil {
			t.Errorf("checkNormalized(%q) = nil, want an error", u)
		}
	}
}

// TestNormalizeErrorKinds: callers choose their advice by error kind.
func TestNormalizeErrorKinds(t *testing.T) {
	if _, err := Normalize("localhost:7870", ""); !errors.Is(err, ErrNoScheme) {
		t.Errorf("no scheme: %v", err)
	}
	if _, err := Normalize("https://a.example", "a/b"); !errors.Is(err, ErrBadSlug) || errors.Is(err, ErrNoScheme) {
		t.Errorf("bad slug: %v", err)
	}
	if _, err := Normalize("https://a.example", "ok"); err != nil {
		t.Errorf("good slug: %v", err)
	}
}
