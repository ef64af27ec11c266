package cardsig

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"
)

// The tests' own signer: go-jose signs the JCS bytes of a card, as an
// agent would; nothing of the package under test is used to sign.

// testKey is a signing key and its public JWK.
type testKey struct {
	alg  jose.SignatureAlgorithm
	priv any
	pub  jose.JSONWebKey
}

// newKey makes a key for alg (RSA keys are 2048 bits).
func newKey(t *testing.T, alg jose.SignatureAlgorithm, kid string) testKey {
	t.Helper()
	var priv, pub any
	switch alg {
	case jose.ES256, jose.ES384, jose.ES512:
		curve := map[jose.SignatureAlgorithm]elliptic.Curve{jose.ES256: elliptic.P256(), jose.ES384: elliptic.P384(), jose.ES512: elliptic.P521()}[alg]
		k, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	case jose.EdDSA:
		p, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, p
	case jose.RS256, jose.PS256:
		k := rsaKey(t)
		priv, pub = k, &k.PublicKey
	default:
		t.Fatalf("no key for %s", alg)
	}
	return testKey{alg: alg, priv: priv, pub: jose.JSONWebKey{Key: pub, KeyID: kid}}
}

// rsaKeys are made once and taken in turn: a 2048-bit key takes a while
// under -race. Two calls in a row never give the same key.
var (
	rsaKeys []*rsa.PrivateKey
	rsaNext int
)

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	if len(rsaKeys) < 2 {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		rsaKeys = append(rsaKeys, k)
		rsaNext = len(rsaKeys) - 1
		return k
	}
	rsaNext = (rsaNext + 1) % len(rsaKeys)
	return rsaKeys[rsaNext]
}

// thumb is k's thumbprint.
func (k testKey) thumb(t *testing.T) string {
	t.Helper()
	tp, err := Thumbprint(&k.pub)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// how a test signature names its key.
type naming struct {
	jwk bool   // the public key in the protected header
	kid string // "kid"
	jku string // "jku"
}

// baseCard is an unsigned card, as served (members in no canonical order,
// white space, escapes JCS rewrites).
const baseCard = `{
  "name": "Test agent",
  "url": "https://agent.example/a2a",
  "version": "1.0.0",
  "description": "Signs its card \u00e9\/ <b>&amp;</b>",
  "capabilities": {"streaming": true, "pushNotifications": false},
  "skills": [{"id": "echo", "name": "Echo", "tags": ["a", "b"], "n": 1.50}],
  "defaultInputModes": ["text/plain"]
}`

// signatureOf signs card (its JCS form, "signatures" dropped) with k and
// returns the AgentCardSignature's members.
func signatureOf(t *testing.T, card []byte, k testKey, n naming) map[string]any {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(card, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, "signatures")
	body, _ := json.Marshal(top)
	payload, err := jcs.Transform(body)
	if err != nil {
		t.Fatal(err)
	}
	opts := &jose.SignerOptions{EmbedJWK: n.jwk}
	if n.kid != "" {
		opts.WithHeader(jose.HeaderKey("kid"), n.kid)
	}
	if n.jku != "" {
		opts.WithHeader(jose.HeaderKey("jku"), n.jku)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := obj.DetachedCompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(compact, ".")
	if len(parts) != 3 || parts[1] != "" {
		t.Fatalf("detached JWS %q", compact)
	}
	return map[string]any{"protected": parts[0], "signature": parts[2]}
}

// withSignatures is card with its "signatures" set to sigs (dropped when
// sigs is nil), re-indented as a server might serve it.
func withSignatures(t *testing.T, card []byte, sigs ...map[string]any) []byte {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(card, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, "signatures")
	if sigs != nil {
		top["signatures"] = sigs
	}
	out, err := json.MarshalIndent(top, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sign is baseCard signed by k.
func sign(t *testing.T, k testKey, n naming) []byte {
	t.Helper()
	return withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), k, n))
}

// rawSignature is a signature with a protected header of our making (for
// what go-jose will not sign: alg none, an unknown alg) and sig as its
// signature.
func rawSignature(header map[string]any, sig []byte) map[string]any {
	h, _ := json.Marshal(header)
	return map[string]any{"protected": base64.RawURLEncoding.EncodeToString(h), "signature": base64.RawURLEncoding.EncodeToString(sig)}
}

// publicJWK is k's public JWK as JSON members.
func publicJWK(t *testing.T, k testKey) map[string]any {
	t.Helper()
	pub := k.pub
	pub.KeyID = ""
	b, err := json.Marshal(pub)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// writeJWKS writes the public keys to a JWKS file.
func writeJWKS(t *testing.T, keys ...testKey) string {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, k.pub)
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "card-keys.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// refusal is err as an *Error with code, else the test fails.
func refusal(t *testing.T, err error, code Code) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want a refusal %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("refused as %s (%v), want %s", e.Code, e, code)
	}
	if e.Reason() != "card_signature" {
		t.Errorf("reason %q", e.Reason())
	}
	return e
}
