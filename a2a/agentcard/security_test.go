package agentcard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

func readCardFixture(t *testing.T, name, endpoint string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "security", name))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "ENDPOINT", endpoint))
}

func TestParseSecurityBothDialects(t *testing.T) {
	cases := []struct {
		file   string
		want   string // Security.String()
		kind   string
		scopes []string
	}{
		{"v10-apikey-header.json", "api key in header X-Key", a2a.SchemeAPIKey, nil},
		{"v10-apikey-query.json", "api key in query parameter api_key", a2a.SchemeAPIKey, nil},
		{"v03-apikey-cookie.json", "api key in cookie sid", a2a.SchemeAPIKey, []string{}},
		{"v03-basic.json", "basic", a2a.SchemeBasic, []string{}},
		{"v10-bearer.json", "bearer", a2a.SchemeBearer, nil},
		{"v03-mtls-or-oauth.json", "oauth2 authorization code", a2a.SchemeOAuth2, []string{"read", "write"}},
		{"v10-device-code.json", "oauth2 device code", a2a.SchemeOAuth2, []string{"agent"}},
		{"v10-oidc-snake.json", "openid connect (https://id.example/.well-known/openid-configuration)", a2a.SchemeOpenIDConnect, []string{"openid", "agent"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			sec := ParseSecurity(readCardFixture(t, tc.file, "https://a.example/rpc"))
			if sec == nil || sec.Scheme == nil {
				t.Fatalf("no scheme chosen: %+v", sec)
			}
			if sec.String() != tc.want || sec.Scheme.Kind != tc.kind {
				t.Fatalf("got %q (%s), want %q (%s)", sec.String(), sec.Scheme.Kind, tc.want, tc.kind)
			}
			if tc.scopes != nil && !reflect.DeepEqual(sec.Scheme.Scopes, tc.scopes) && !(len(tc.scopes) == 0 && len(sec.Scheme.Scopes) == 0) {
				t.Fatalf("scopes %q, want %q", sec.Scheme.Scopes, tc.scopes)
			}
		})
	}
	t.Run("flows", testSecurityFlows)
	t.Run("none named is bearer", func(t *testing.T) {
		sec := ParseSecurity([]byte(card10("https://a.example/rpc", "", true)))
		if sec != nil || sec.String() != "bearer" {
			t.Fatalf("got %+v", sec)
		}
	})
	t.Run("unmet names the scheme", func(t *testing.T) {
		sec := ParseSecurity(readCardFixture(t, "v10-mtls.json", "x"))
		if sec == nil || sec.Scheme != nil || !strings.Contains(sec.Unmet, "mutual TLS") || !strings.Contains(sec.Unmet, "client-cert") {
			t.Fatalf("got %+v", sec)
		}
		sec = ParseSecurity(readCardFixture(t, "v10-unknown-and-pair.json", "x"))
		if sec == nil || sec.Scheme != nil || !strings.Contains(sec.Unmet, `"weird"`) || !strings.Contains(sec.Unmet, "b and k together") {
			t.Fatalf("got %+v", sec)
		}
	})
}

// testSecurityFlows: an OAuth scheme's flows, their URLs and scopes
// (TestParseSecurityBothDialects).
func testSecurityFlows(t *testing.T) {
	s := ParseSecurity(readCardFixture(t, "v03-mtls-or-oauth.json", "x")).Scheme
	ac, cc := s.AuthorizationCode, s.ClientCredentials
	if ac == nil || ac.AuthorizationURL != "https://auth.example/authorize" || ac.TokenURL != "https://auth.example/token" ||
		!reflect.DeepEqual(ac.Scopes, []string{"read", "write"}) {
		t.Fatalf("authorization code flow %+v", ac)
	}
	if cc == nil || cc.TokenURL != "https://auth.example/token" || s.DeviceCode != nil {
		t.Fatalf("client credentials %+v, device %+v", cc, s.DeviceCode)
	}
	d := ParseSecurity(readCardFixture(t, "v10-device-code.json", "x")).Scheme.DeviceCode
	if d == nil || d.DeviceAuthorizationURL != "https://auth.example/device" || d.TokenURL != "https://auth.example/token" {
		t.Fatalf("device code flow %+v", d)
	}
}

// card10 is a 1.0 agent card (supportedInterfaces).
func card10(endpoint, tenant string, streaming bool) string {
	b, _ := json.Marshal(map[string]any{
		"name": "fake", "description": "a fake agent", "version": "1",
		"capabilities": map[string]any{"streaming": streaming},
		"supportedInterfaces": []map[string]any{
			{"url": "http://grpc.invalid/x", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
			{"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": tenant},
		},
	})
	return string(b)
}
