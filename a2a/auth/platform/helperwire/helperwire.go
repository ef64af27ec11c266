// Package helperwire is what shim and its platform credential helper
// (cmd/shim-platform) share: the answer the helper prints and the Entra
// authority it asks. It imports nothing of shim's but the standard
// library, so the helper links the credential libraries and little else.
package helperwire

import (
	"net/url"
	"os"
	"strings"
	"time"
)

// Version is the version of the answer; shim refuses another.
const Version = 1

// Answer is what the helper prints on stdout: one JSON object, with Error
// set (and exit status 1) when it has no credential.
type Answer struct {
	V     int    `json:"v"`
	Error string `json:"error,omitempty"`
	// From says where the credential came from, never the credential.
	From string `json:"from,omitempty"`
	// Expires is when it expires (zero: it does not).
	Expires time.Time `json:"expires,omitzero"`

	// AWS (`shim-platform aws`): the keys and the region they sign for.
	AccessKeyID     string `json:"accessKeyId,omitempty"`
	SecretAccessKey string `json:"secretAccessKey,omitempty"`
	SessionToken    string `json:"sessionToken,omitempty"`
	Region          string `json:"region,omitempty"`

	// Token is an access token (`shim-platform azure`).
	Token string `json:"token,omitempty"`
}

// DefaultAuthority is Microsoft Entra ID's public cloud.
const DefaultAuthority = "https://login.microsoftonline.com"

// AuthorityHost is the Entra authority azidentity uses:
// AZURE_AUTHORITY_HOST, else the public cloud's.
func AuthorityHost() string {
	if h := strings.TrimRight(os.Getenv("AZURE_AUTHORITY_HOST"), "/"); h != "" {
		return h
	}
	return DefaultAuthority
}

// microsoftHosts are the authority hosts MSAL knows without asking
// login.microsoftonline.com (its instance discovery).
var microsoftHosts = []string{"login.microsoftonline.com", "login.microsoftonline.us", "login.chinacloudapi.cn",
	"login.microsoftonline.de", "login-us.microsoftonline.com", "login.windows.net", "sts.windows.net",
	"login.partner.microsoftonline.cn"}

// MicrosoftAuthority reports whether host is one of Microsoft's: for
// another (a private cloud, a stand-in on this machine) the helper turns
// instance discovery off, or MSAL would ask Microsoft about it.
func MicrosoftAuthority(host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	for _, m := range microsoftHosts {
		if h == m {
			return true
		}
	}
	return false
}
