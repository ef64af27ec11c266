package platformtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// SigV4Verifier checks AWS Signature Version 4 on a request the way an AWS
// service does, written from AWS's documented algorithm ("Create a signed
// AWS API request", "Elements of an AWS API request signature") and
// nothing else: it shares no code with aws-sdk-go-v2's signer, so a test
// that signs with the SDK and verifies here checks the one against the
// other. It is proven on AWS's published example signatures
// (testdata/sigv4/aws-examples.json).
//
// Scope: the Authorization header form (not presigned query strings),
// a single-chunk payload hashed from the body, path segments taken as
// sent on the request line (no dot-segment normalization).
type SigV4Verifier struct {
	// Service and Region the credential scope must name.
	Service, Region string
	// Keys are the access key ids the verifier knows.
	Keys map[string]SigV4Key
	// Now is the verifier's clock (time.Now when nil); a request dated
	// more than 15 minutes away from it is refused, as AWS does.
	Now func() time.Time
}

// SigV4Key is a secret access key and, for temporary credentials, the
// session token that must come with it (X-Amz-Security-Token).
type SigV4Key struct {
	Secret, SessionToken string
}

// SigV4Error is a refusal, shaped as AWS answers it: the error type AWS
// puts in x-amzn-ErrorType and its message.
type SigV4Error struct {
	Type    string
	Message string
}

func (e *SigV4Error) Error() string { return e.Type + ": " + e.Message }

const sigV4Algorithm = "AWS4-HMAC-SHA256"

// maxSkew is how far a request's X-Amz-Date may be from the clock.
const maxSkew = 15 * time.Minute

// Verify checks r, whose body is body, and returns nil or a *SigV4Error.
// The checks run in AWS's order: the header's form, the key and its
// scope, the date, the signed headers and token, then the signature.
func (v *SigV4Verifier) Verify(r *http.Request, body []byte) error {
	a, err := parseSigV4Auth(r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	key, err := v.scopeKey(a)
	if err != nil {
		return err
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if err := v.checkDate(amzDate, a.day); err != nil {
		return err
	}
	signed := strings.Split(a.signedList, ";")
	if err := checkSignedHeaders(r, signed, key); err != nil {
		return err
	}
	payload := hexSHA256(body)
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payload {
		return &SigV4Error{"InvalidSignatureException", "The provided 'x-amz-content-sha256' header does not match what was computed."}
	}
	path, query := requestLine(r)
	creq := canonicalRequest(r.Method, path, query, canonicalHeaders(r, signed), a.signedList, payload)
	scope := strings.Join([]string{a.day, a.region, a.service, "aws4_request"}, "/")
	want := signature(key.Secret, a.day, a.region, a.service, stringToSign(amzDate, scope, creq))
	if !hmac.Equal([]byte(want), []byte(a.sig)) {
		return &SigV4Error{"InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."}
	}
	return nil
}

// sigV4Auth is what an Authorization header of AWS4-HMAC-SHA256 says.
type sigV4Auth struct {
	keyID, day, region, service string
	signedList, sig             string
}

// parseSigV4Auth reads an Authorization header, or refuses its form.
func parseSigV4Auth(auth string) (sigV4Auth, error) {
	if auth == "" {
		return sigV4Auth{}, &SigV4Error{"MissingAuthenticationTokenException", "Missing Authentication Token"}
	}
	algo, rest, _ := strings.Cut(auth, " ")
	if algo != sigV4Algorithm {
		return sigV4Auth{}, &SigV4Error{"IncompleteSignatureException", fmt.Sprintf("Unsupported authorization algorithm %q.", algo)}
	}
	incomplete := &SigV4Error{"IncompleteSignatureException", "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature'."}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			return sigV4Auth{}, incomplete
		}
		fields[k] = val
	}
	cred, signedList, sig := fields["Credential"], fields["SignedHeaders"], fields["Signature"]
	if cred == "" || signedList == "" || sig == "" {
		return sigV4Auth{}, incomplete
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return sigV4Auth{}, &SigV4Error{"IncompleteSignatureException", "Credential must have the form <key>/<date>/<region>/<service>/aws4_request."}
	}
	return sigV4Auth{keyID: parts[0], day: parts[1], region: parts[2], service: parts[3], signedList: signedList, sig: sig}, nil
}

// scopeKey is the key a's credential names, once its service and region
// are the verifier's.
func (v *SigV4Verifier) scopeKey(a sigV4Auth) (SigV4Key, error) {
	key, ok := v.Keys[a.keyID]
	if !ok {
		return SigV4Key{}, &SigV4Error{"UnrecognizedClientException", "The security token included in the request is invalid."}
	}
	if a.service != v.Service {
		return SigV4Key{}, &SigV4Error{"InvalidSignatureException", fmt.Sprintf("Credential should be scoped to correct service: '%s'.", v.Service)}
	}
	if a.region != v.Region {
		return SigV4Key{}, &SigV4Error{"InvalidSignatureException", fmt.Sprintf("Credential should be scoped to a valid region, not '%s'.", a.region)}
	}
	return key, nil
}

// checkDate checks X-Amz-Date: its form, its day against the
// credential's, and its distance from the clock.
func (v *SigV4Verifier) checkDate(amzDate, day string) error {
	when, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil {
		return &SigV4Error{"IncompleteSignatureException", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."}
	}
	if !strings.HasPrefix(amzDate, day) {
		return &SigV4Error{"InvalidSignatureException", fmt.Sprintf("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s'.", day, amzDate[:8])}
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	if d := now().Sub(when); d > maxSkew || d < -maxSkew {
		return &SigV4Error{"InvalidSignatureException", "Signature expired: " + amzDate + " is not within 15 minutes of the server's time."}
	}
	return nil
}

// checkSignedHeaders checks that host and x-amz-date are signed, and a
// session token's header: the key's, and signed.
func checkSignedHeaders(r *http.Request, signed []string, key SigV4Key) error {
	has := map[string]bool{}
	for _, h := range signed {
		has[h] = true
	}
	for _, must := range []string{"host", "x-amz-date"} {
		if !has[must] {
			return &SigV4Error{"InvalidSignatureException", fmt.Sprintf("'%s' must be a signed header.", must)}
		}
	}
	if key.SessionToken != "" || r.Header.Get("X-Amz-Security-Token") != "" {
		if r.Header.Get("X-Amz-Security-Token") != key.SessionToken {
			return &SigV4Error{"UnrecognizedClientException", "The security token included in the request is invalid."}
		}
		if !has["x-amz-security-token"] {
			return &SigV4Error{"InvalidSignatureException", "'x-amz-security-token' must be a signed header."}
		}
	}
	return nil
}

// requestLine returns the path and query exactly as the request line
// carried them.
func requestLine(r *http.Request) (path, query string) {
	path, query, _ = strings.Cut(r.RequestURI, "?")
	if !strings.HasPrefix(path, "/") {
		return r.URL.EscapedPath(), r.URL.RawQuery
	}
	return path, query
}

// canonicalRequest is step 1 of the algorithm: method, canonical URI,
// canonical query string, canonical headers, signed headers, payload hash,
// one a line.
func canonicalRequest(method, path, query, headers, signed, payload string) string {
	return strings.Join([]string{method, canonicalURI(path), canonicalQuery(query), headers, signed, payload}, "\n")
}

// canonicalURI URI-encodes each segment of the path as it came (for every
// service but S3, whose paths this verifier does not handle): a path that
// was sent percent-encoded is encoded once more, as AWS documents.
func canonicalURI(path string) string {
	if path == "" {
		return "/"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = uriEncode(s)
	}
	return strings.Join(segs, "/")
}

// canonicalQuery decodes the query's names and values, URI-encodes them
// again and sorts them by name, then value.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type pair struct{ k, v string }
	var ps []pair
	for _, kv := range strings.Split(raw, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		ps = append(ps, pair{uriEncode(k), uriEncode(v)})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].k != ps[j].k {
			return ps[i].k < ps[j].k
		}
		return ps[i].v < ps[j].v
	})
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.k + "=" + p.v
	}
	return strings.Join(out, "&")
}

// canonicalHeaders lists each signed header, lowercased, with its values
// trimmed, inner runs of spaces collapsed, and repeated values joined by
// commas; each line ends with a newline.
func canonicalHeaders(r *http.Request, signed []string) string {
	var b strings.Builder
	for _, name := range signed {
		var vals []string
		if name == "host" {
			vals = []string{r.Host}
		} else {
			vals = r.Header.Values(name)
		}
		for i, v := range vals {
			vals[i] = strings.Join(strings.Fields(v), " ")
		}
		b.WriteString(name + ":" + strings.Join(vals, ",") + "\n")
	}
	return b.String()
}

// stringToSign is step 2: algorithm, request date, credential scope and
// the hex SHA-256 of the canonical request.
func stringToSign(amzDate, scope, creq string) string {
	return strings.Join([]string{sigV4Algorithm, amzDate, scope, hexSHA256([]byte(creq))}, "\n")
}

// signature is steps 3 and 4: the signing key derived from the secret by
// HMACs over date, region, service and "aws4_request", then the HMAC of
// the string to sign, in hex.
func signature(secret, day, region, service, sts string) string {
	k := hmacSHA256([]byte("AWS4"+secret), day)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	k = hmacSHA256(k, "aws4_request")
	return hex.EncodeToString(hmacSHA256(k, sts))
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// uriEncode percent-encodes every byte but the unreserved characters
// (A-Z a-z 0-9 - . _ ~), with upper-case hex, as SigV4 requires.
func uriEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
