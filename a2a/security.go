package a2a

// Security schemes (SPEC §12.1): what the card says about signing in, and
// how the credential is put on a request.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

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

// SignInError is a sign-in shim cannot do or that failed: a card
// requirement shim cannot meet, or an OAuth token that could not be
// renewed. Its message says what to do.
type SignInError struct {
	Msg string
	// Err is the refused answer behind it, if any (an *HTTPError).
	Err error
}

func (e *SignInError) Error() string { return e.Msg }
func (e *SignInError) Unwrap() error { return e.Err }

// signInErrorOf returns the SignInError in err's chain, or nil.
func signInErrorOf(err error) *SignInError {
	for err != nil {
		if se, ok := err.(*SignInError); ok {
			return se
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return nil
		}
		err = u.Unwrap()
	}
	return nil
}

type wireSecurity struct {
	Schemes  map[string]json.RawMessage `json:"securitySchemes"`
	Schemes2 map[string]json.RawMessage `json:"security_schemes"`
	Reqs     []json.RawMessage          `json:"securityRequirements"`
	Reqs2    []json.RawMessage          `json:"security_requirements"`
	// Security is 0.3's OpenAPI list: [{"name": ["scope"]}].
	Security []json.RawMessage `json:"security"`
}

// ParseSecurity reads a card's security schemes and requirements (1.0
// securitySchemes + securityRequirements, 0.3 OpenAPI-style schemes +
// security) and takes the first requirement whose scheme shim supports.
// A card that names none gives nil (bearer).
func ParseSecurity(card []byte) *Security {
	var w wireSecurity
	if json.Unmarshal(card, &w) != nil {
		return nil
	}
	raw := w.Schemes
	if len(raw) == 0 {
		raw = w.Schemes2
	}
	schemes := make(map[string]*Scheme, len(raw))
	names := make([]string, 0, len(raw))
	for name, r := range raw {
		schemes[name] = parseScheme(name, r)
		names = append(names, name)
	}
	slices.Sort(names)
	reqs := w.Reqs
	if len(reqs) == 0 {
		reqs = w.Reqs2
	}
	if len(reqs) == 0 {
		reqs = w.Security
	}
	if len(reqs) == 0 {
		// No requirement: any supported scheme will do, in name order.
		for _, n := range names {
			if s := schemes[n]; s.Supported() {
				return &Security{Scheme: s}
			}
		}
		return nil
	}
	var unmet []string
	for _, r := range reqs {
		req := parseRequirement(r)
		if len(req) == 0 {
			// An empty requirement: signing in is optional.
			return nil
		}
		if len(req) > 1 {
			var all []string
			for n := range req {
				all = append(all, n)
			}
			slices.Sort(all)
			unmet = append(unmet, "all of "+strings.Join(all, " and ")+" together")
			continue
		}
		for n, scopes := range req {
			s, ok := schemes[n]
			if !ok {
				unmet = append(unmet, fmt.Sprintf("scheme %q, which the card does not define", n))
				continue
			}
			if !s.Supported() {
				unmet = append(unmet, s.String())
				continue
			}
			c := *s
			c.Scopes = scopes
			return &Security{Scheme: &c}
		}
	}
	return &Security{Unmet: strings.Join(unmet, "; or ")}
}

// parseRequirement reads {"schemes": {"name": {"list": [...]}}} (1.0) or
// {"name": ["scope"]} (0.3).
func parseRequirement(raw json.RawMessage) map[string][]string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	if inner, ok := top["schemes"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(inner, &m) == nil {
			top = m
		}
	}
	out := make(map[string][]string, len(top))
	for name, v := range top {
		var list []string
		if json.Unmarshal(v, &list) != nil {
			var sl struct {
				List []string `json:"list"`
			}
			_ = json.Unmarshal(v, &sl)
			list = sl.List
		}
		out[name] = list
	}
	return out
}

type wireFlow struct {
	AuthorizationURL        string            `json:"authorizationUrl"`
	AuthorizationURL2       string            `json:"authorization_url"`
	DeviceAuthorizationURL  string            `json:"deviceAuthorizationUrl"`
	DeviceAuthorizationURL2 string            `json:"device_authorization_url"`
	TokenURL                string            `json:"tokenUrl"`
	TokenURL2               string            `json:"token_url"`
	RefreshURL              string            `json:"refreshUrl"`
	RefreshURL2             string            `json:"refresh_url"`
	Scopes                  map[string]string `json:"scopes"`
}

func (f *wireFlow) flow() *OAuthFlow {
	if f == nil {
		return nil
	}
	out := &OAuthFlow{
		AuthorizationURL:       first(f.AuthorizationURL, f.AuthorizationURL2),
		DeviceAuthorizationURL: first(f.DeviceAuthorizationURL, f.DeviceAuthorizationURL2),
		TokenURL:               first(f.TokenURL, f.TokenURL2),
		RefreshURL:             first(f.RefreshURL, f.RefreshURL2),
	}
	for s := range f.Scopes {
		out.Scopes = append(out.Scopes, s)
	}
	slices.Sort(out.Scopes)
	return out
}

type wireFlows struct {
	AuthorizationCode  *wireFlow `json:"authorizationCode"`
	AuthorizationCode2 *wireFlow `json:"authorization_code"`
	ClientCredentials  *wireFlow `json:"clientCredentials"`
	ClientCredentials2 *wireFlow `json:"client_credentials"`
	DeviceCode         *wireFlow `json:"deviceCode"`
	DeviceCode2        *wireFlow `json:"device_code"`
}

// wireScheme holds both dialects' fields: 1.0 wraps each kind in its own
// member, 0.3 tags a flat object with "type".
type wireScheme struct {
	Type         string      `json:"type"`
	Scheme       string      `json:"scheme"`
	In           string      `json:"in"`
	Location     string      `json:"location"`
	Name         string      `json:"name"`
	Flows        *wireFlows  `json:"flows"`
	Metadata     string      `json:"oauth2MetadataUrl"`
	Metadata2    string      `json:"oauth2_metadata_url"`
	OpenIDConn   string      `json:"openIdConnectUrl"`
	OpenIDConn2  string      `json:"open_id_connect_url"`
	APIKey       *wireScheme `json:"apiKeySecurityScheme"`
	APIKey2      *wireScheme `json:"api_key_security_scheme"`
	HTTPAuth     *wireScheme `json:"httpAuthSecurityScheme"`
	HTTPAuth2    *wireScheme `json:"http_auth_security_scheme"`
	OAuth2       *wireScheme `json:"oauth2SecurityScheme"`
	OAuth22      *wireScheme `json:"oauth2_security_scheme"`
	OpenID       *wireScheme `json:"openIdConnectSecurityScheme"`
	OpenID2      *wireScheme `json:"open_id_connect_security_scheme"`
	MTLS         *wireScheme `json:"mtlsSecurityScheme"`
	MTLS2        *wireScheme `json:"mtls_security_scheme"`
	MutualTLS    *wireScheme `json:"mutualTlsSecurityScheme"`
	MutualTLSAlt *wireScheme `json:"mutualTLSSecurityScheme"`
}

func pick(a, b *wireScheme) *wireScheme {
	if a != nil {
		return a
	}
	return b
}

func parseScheme(name string, raw json.RawMessage) *Scheme {
	s := &Scheme{Name: name, Kind: SchemeUnknown}
	var w wireScheme
	if json.Unmarshal(raw, &w) != nil {
		return s
	}
	kind := strings.ToLower(w.Type)
	body := &w
	switch {
	case pick(w.APIKey, w.APIKey2) != nil:
		kind, body = "apikey", pick(w.APIKey, w.APIKey2)
	case pick(w.HTTPAuth, w.HTTPAuth2) != nil:
		kind, body = "http", pick(w.HTTPAuth, w.HTTPAuth2)
	case pick(w.OAuth2, w.OAuth22) != nil:
		kind, body = "oauth2", pick(w.OAuth2, w.OAuth22)
	case pick(w.OpenID, w.OpenID2) != nil:
		kind, body = "openidconnect", pick(w.OpenID, w.OpenID2)
	case pick(pick(w.MTLS, w.MTLS2), pick(w.MutualTLS, w.MutualTLSAlt)) != nil:
		kind = "mutualtls"
	}
	switch kind {
	case "apikey":
		s.Kind, s.In, s.Param = SchemeAPIKey, strings.ToLower(first(body.Location, body.In)), body.Name
	case "http":
		switch strings.ToLower(body.Scheme) {
		case "bearer":
			s.Kind = SchemeBearer
		case "basic":
			s.Kind = SchemeBasic
		default:
			s.HTTPScheme = "HTTP " + body.Scheme + " authentication"
		}
	case "oauth2":
		s.Kind, s.MetadataURL = SchemeOAuth2, first(body.Metadata, body.Metadata2)
		if f := body.Flows; f != nil {
			s.AuthorizationCode = pickFlow(f.AuthorizationCode, f.AuthorizationCode2).flow()
			s.ClientCredentials = pickFlow(f.ClientCredentials, f.ClientCredentials2).flow()
			s.DeviceCode = pickFlow(f.DeviceCode, f.DeviceCode2).flow()
		}
	case "openidconnect":
		s.Kind, s.MetadataURL = SchemeOpenIDConnect, first(body.OpenIDConn, body.OpenIDConn2)
	case "mutualtls":
		s.Kind = SchemeMutualTLS
	default:
		if w.Type != "" {
			s.HTTPScheme = "type " + w.Type
		}
	}
	return s
}

func pickFlow(a, b *wireFlow) *wireFlow {
	if a != nil {
		return a
	}
	return b
}

// applyCredential puts secret on req the way the scheme takes it. A nil
// scheme (or bearer, OAuth 2.0, OpenID Connect) is a bearer token.
func applyCredential(req *http.Request, s *Scheme, secret string) {
	if s == nil {
		req.Header.Set("Authorization", "Bearer "+secret)
		return
	}
	switch s.Kind {
	case SchemeBasic:
		if user, pass, ok := strings.Cut(secret, ":"); ok {
			req.SetBasicAuth(user, pass)
		} else {
			req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(secret)))
		}
	case SchemeAPIKey:
		switch s.In {
		case "header":
			req.Header.Set(s.Param, secret)
		case "query":
			q := req.URL.Query()
			q.Set(s.Param, secret)
			req.URL.RawQuery = q.Encode()
		case "cookie":
			var keep []string
			for _, ck := range req.Cookies() {
				if ck.Name != s.Param {
					keep = append(keep, ck.String())
				}
			}
			keep = append(keep, s.Param+"="+secret)
			req.Header.Set("Cookie", strings.Join(keep, "; "))
		}
	default:
		req.Header.Set("Authorization", "Bearer "+secret)
	}
}
