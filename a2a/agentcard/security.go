package agentcard

// A card's security schemes and requirements, in either dialect (SPEC
// §12.1).

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/shimdev/shim/a2a"
)

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
func ParseSecurity(card []byte) *a2a.Security {
	var w wireSecurity
	if json.Unmarshal(card, &w) != nil {
		return nil
	}
	raw := w.Schemes
	if len(raw) == 0 {
		raw = w.Schemes2
	}
	schemes := make(map[string]*a2a.Scheme, len(raw))
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
				return &a2a.Security{Scheme: s}
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
			return &a2a.Security{Scheme: &c}
		}
	}
	return &a2a.Security{Unmet: strings.Join(unmet, "; or ")}
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

func (f *wireFlow) flow() *a2a.OAuthFlow {
	if f == nil {
		return nil
	}
	out := &a2a.OAuthFlow{
		AuthorizationURL:       cmp.Or(f.AuthorizationURL, f.AuthorizationURL2),
		DeviceAuthorizationURL: cmp.Or(f.DeviceAuthorizationURL, f.DeviceAuthorizationURL2),
		TokenURL:               cmp.Or(f.TokenURL, f.TokenURL2),
		RefreshURL:             cmp.Or(f.RefreshURL, f.RefreshURL2),
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

func parseScheme(name string, raw json.RawMessage) *a2a.Scheme {
	s := &a2a.Scheme{Name: name, Kind: a2a.SchemeUnknown}
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
		s.Kind, s.In, s.Param = a2a.SchemeAPIKey, strings.ToLower(cmp.Or(body.Location, body.In)), body.Name
	case "http":
		switch strings.ToLower(body.Scheme) {
		case "bearer":
			s.Kind = a2a.SchemeBearer
		case "basic":
			s.Kind = a2a.SchemeBasic
		default:
			s.HTTPScheme = "HTTP " + body.Scheme + " authentication"
		}
	case "oauth2":
		s.Kind, s.MetadataURL = a2a.SchemeOAuth2, cmp.Or(body.Metadata, body.Metadata2)
		if f := body.Flows; f != nil {
			s.AuthorizationCode = pickFlow(f.AuthorizationCode, f.AuthorizationCode2).flow()
			s.ClientCredentials = pickFlow(f.ClientCredentials, f.ClientCredentials2).flow()
			s.DeviceCode = pickFlow(f.DeviceCode, f.DeviceCode2).flow()
		}
	case "openidconnect":
		s.Kind, s.MetadataURL = a2a.SchemeOpenIDConnect, cmp.Or(body.OpenIDConn, body.OpenIDConn2)
	case "mutualtls":
		s.Kind = a2a.SchemeMutualTLS
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
