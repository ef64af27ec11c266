package a2a

// Security schemes (SPEC §12.1): what the card says about signing in.

import "fmt"

// The kinds of security scheme a card may name.
const (
	SchemeBearer        = "bearer"
	SchemeBasic         = "basic"
	SchemeAPIKey        = "apiKey"
	SchemeOAuth2        = "oauth2"
	SchemeOpenIDConnect = "openIdConnect"
	SchemeMutualTLS     = "mutualTLS"
	SchemeUnknown       = "unknown"
)

// OAuthFlow is one OAuth 2.0 flow a card offers.
type OAuthFlow struct {
	AuthorizationURL       string
	DeviceAuthorizationURL string
	TokenURL               string
	RefreshURL             string
	// Scopes are the scope names the flow lists, sorted.
	Scopes []string
}

// Scheme is one security scheme of a card.
type Scheme struct {
	// Name is the scheme's key in the card.
	Name string
	// Kind is one of the Scheme constants.
	Kind string
	// HTTPScheme is the scheme of an HTTP authentication scheme that is
	// neither bearer nor basic (shim cannot use it), or the unknown type.
	HTTPScheme string
	// In and Param place an API key: "header", "query" or "cookie", and
	// the header, parameter or cookie name.
	In, Param string
	// The OAuth 2.0 flows the card offers (nil: not offered).
	DeviceCode, AuthorizationCode, ClientCredentials *OAuthFlow
	// MetadataURL is oauth2MetadataUrl (RFC 8414) or openIdConnectUrl.
	MetadataURL string
	// Scopes are the scopes the chosen requirement lists for the scheme.
	Scopes []string
}

// Supported reports whether shim can meet the scheme.
func (s *Scheme) Supported() bool {
	switch s.Kind {
	case SchemeBearer, SchemeBasic, SchemeOpenIDConnect:
		return s.Kind != SchemeOpenIDConnect || s.MetadataURL != ""
	case SchemeAPIKey:
		return s.Param != "" && (s.In == "header" || s.In == "query" || s.In == "cookie")
	case SchemeOAuth2:
		return s.DeviceCode != nil || s.AuthorizationCode != nil || s.ClientCredentials != nil || s.MetadataURL != ""
	}
	return false
}

// String describes the scheme for doctor: "bearer", "api key in header
// X-Key", "oauth2 device code".
func (s *Scheme) String() string {
	if s == nil {
		return "bearer"
	}
	switch s.Kind {
	case SchemeBearer, SchemeBasic:
		return s.Kind
	case SchemeAPIKey:
		where := s.In
		if where == "query" {
			where = "query parameter"
		}
		return fmt.Sprintf("api key in %s %s", where, s.Param)
	case SchemeOAuth2:
		switch {
		case s.DeviceCode != nil:
			return "oauth2 device code"
		case s.AuthorizationCode != nil:
			return "oauth2 authorization code"
		case s.ClientCredentials != nil:
			return "oauth2 client credentials"
		}
		return "oauth2 (flows from " + s.MetadataURL + ")"
	case SchemeOpenIDConnect:
		return "openid connect (" + s.MetadataURL + ")"
	case SchemeMutualTLS:
		return fmt.Sprintf("mutual TLS (scheme %q)", s.Name)
	}
	if s.HTTPScheme != "" {
		return fmt.Sprintf("%s (scheme %q)", s.HTTPScheme, s.Name)
	}
	return fmt.Sprintf("an unknown scheme %q", s.Name)
}

// OAuth reports whether the scheme signs in with OAuth 2.0 or OpenID
// Connect.
func (s *Scheme) OAuth() bool {
	return s != nil && (s.Kind == SchemeOAuth2 || s.Kind == SchemeOpenIDConnect)
}

// Security is what shim chose from a card's security schemes.
type Security struct {
	// Scheme is the scheme in use; nil when the card names none (the
	// credential goes as a bearer token).
	Scheme *Scheme
	// Unmet, when not empty, says which requirement shim cannot meet:
	// the card requires only schemes shim does not support.
	Unmet string
}

// String describes the scheme in use, or what cannot be met.
func (s *Security) String() string {
	switch {
	case s == nil:
		return "bearer"
	case s.Unmet != "":
		return "unsupported: " + s.Unmet
	}
	return s.Scheme.String()
}
