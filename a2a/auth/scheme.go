package auth

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/shimdev/shim/a2a"
)

// applyCredential puts secret on req the way the scheme takes it. A nil
// scheme (or bearer, OAuth 2.0, OpenID Connect) is a bearer token.
func applyCredential(req *http.Request, s *a2a.Scheme, secret string) {
	if s == nil {
		req.Header.Set("Authorization", "Bearer "+secret)
		return
	}
	switch s.Kind {
	case a2a.SchemeBasic:
		if user, pass, ok := strings.Cut(secret, ":"); ok {
			req.SetBasicAuth(user, pass)
		} else {
			req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(secret)))
		}
	case a2a.SchemeAPIKey:
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
