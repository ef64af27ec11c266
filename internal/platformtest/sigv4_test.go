package platformtest

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

type sigv4Example struct {
	Name, Method, RequestURI string
	Headers                  map[string]string
	Body                     string
	AccessKey, Secret        string
	Region, Service          string
	SignedHeaders, Signature string
}

func loadSigV4Examples(t *testing.T) []sigv4Example {
	t.Helper()
	raw, err := os.ReadFile("testdata/sigv4/aws-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []sigv4Example }
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("no examples")
	}
	return f.Cases
}

// exampleRequest builds the example's request as a server receives it,
// with an Authorization header carrying signature.
func exampleRequest(ex sigv4Example, signature string) *http.Request {
	r := &http.Request{Method: ex.Method, RequestURI: ex.RequestURI, Header: http.Header{}}
	for k, v := range ex.Headers {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	day := ex.Headers["X-Amz-Date"][:8]
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+ex.AccessKey+"/"+day+"/"+ex.Region+"/"+ex.Service+
		"/aws4_request, SignedHeaders="+ex.SignedHeaders+", Signature="+signature)
	return r
}

func exampleVerifier(ex sigv4Example) *SigV4Verifier {
	when, _ := time.Parse("20060102T150405Z", ex.Headers["X-Amz-Date"])
	return &SigV4Verifier{Service: ex.Service, Region: ex.Region,
		Keys: map[string]SigV4Key{ex.AccessKey: {Secret: ex.Secret}},
		Now:  func() time.Time { return when.Add(time.Minute) }}
}

// TestSigV4VerifierOnAWSExamples: the verifier accepts each of AWS's
// published example signatures, computed from the example's inputs alone,
// and refuses the same request with one hex digit of the signature, the
// body, or the secret changed.
func TestSigV4VerifierOnAWSExamples(t *testing.T) {
	for _, ex := range loadSigV4Examples(t) {
		t.Run(ex.Name, func(t *testing.T) {
			v := exampleVerifier(ex)
			if err := v.Verify(exampleRequest(ex, ex.Signature), []byte(ex.Body)); err != nil {
				t.Fatalf("AWS's signature refused: %v", err)
			}
			flipped := []byte(ex.Signature)
			if flipped[10] == '0' {
				flipped[10] = '1'
			} else {
				flipped[10] = '0'
			}
			if err := v.Verify(exampleRequest(ex, string(flipped)), []byte(ex.Body)); !isSigErr(err, "InvalidSignatureException") {
				t.Errorf("changed signature: %v", err)
			}
			if err := v.Verify(exampleRequest(ex, ex.Signature), []byte(ex.Body+"x")); !isSigErr(err, "InvalidSignatureException") {
				t.Errorf("changed body: %v", err)
			}
			wrong := exampleVerifier(ex)
			wrong.Keys[ex.AccessKey] = SigV4Key{Secret: ex.Secret + "x"}
			if err := wrong.Verify(exampleRequest(ex, ex.Signature), []byte(ex.Body)); !isSigErr(err, "InvalidSignatureException") {
				t.Errorf("other secret: %v", err)
			}
		})
	}
}

// TestSigV4VerifierScope: the credential scope must name the verifier's
// service and region, the key must be known, the date fresh, and host and
// x-amz-date signed; each is refused the way AWS words it.
func TestSigV4VerifierScope(t *testing.T) {
	ex := loadSigV4Examples(t)[0]
	cases := []struct {
		name string
		edit func(v *SigV4Verifier, r *http.Request)
		typ  string
		msg  string
	}{
		{"other service", func(v *SigV4Verifier, _ *http.Request) { v.Service = "bedrock-agentcore" }, "InvalidSignatureException", "correct service"},
		{"other region", func(v *SigV4Verifier, _ *http.Request) { v.Region = "us-west-2" }, "InvalidSignatureException", "valid region"},
		{"unknown key", func(v *SigV4Verifier, _ *http.Request) { v.Keys = map[string]SigV4Key{"AKIDOTHER": {Secret: "s"}} }, "UnrecognizedClientException", "invalid"},
		{"stale date", func(v *SigV4Verifier, _ *http.Request) {
			v.Now = func() time.Time { return time.Date(2015, 8, 30, 13, 0, 0, 0, time.UTC) }
		}, "InvalidSignatureException", "expired"},
		{"no authorization", func(_ *SigV4Verifier, r *http.Request) { r.Header.Del("Authorization") }, "MissingAuthenticationTokenException", "Missing"},
		{"host not signed", func(_ *SigV4Verifier, r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "SignedHeaders=host;x-amz-date", "SignedHeaders=x-amz-date", 1))
		}, "InvalidSignatureException", "'host' must be a signed header"},
		{"session token not known", func(_ *SigV4Verifier, r *http.Request) { r.Header.Set("X-Amz-Security-Token", "tok") }, "UnrecognizedClientException", "invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := exampleVerifier(ex)
			r := exampleRequest(ex, ex.Signature)
			c.edit(v, r)
			err := v.Verify(r, nil)
			if !isSigErr(err, c.typ) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %s mentioning %q", err, c.typ, c.msg)
			}
		})
	}
}

func isSigErr(err error, typ string) bool {
	var se *SigV4Error
	return errors.As(err, &se) && se.Type == typ
}
