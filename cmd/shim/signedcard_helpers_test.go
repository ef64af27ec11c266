package main

// The tests' own card signer: go-jose signs the RFC 8785 (gowebpki/jcs)
// bytes of a card without its "signatures", as an agent would; nothing of
// shim's is used to sign.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"
)

// cardKey is a P-256 signing key (ES256).
type cardKey struct {
	priv *ecdsa.PrivateKey
	pub  jose.JSONWebKey
}

func newCardKey(t *testing.T, kid string) cardKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return cardKey{priv: k, pub: jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"}}
}

// thumb is the key's RFC 7638 thumbprint, base64url.
func (k cardKey) thumb(t *testing.T) string {
	t.Helper()
	b, err := k.pub.Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// jwks writes the public keys as a JWKS file and returns its path.
func jwksFile(t *testing.T, keys ...cardKey) string {
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

// fakeCard is the card of f (its JSON-RPC endpoint), with the extended
// card offered when ext.
func fakeCard(f *fakeA2A, name string, ext bool) map[string]any {
	return map[string]any{
		"name": name, "version": "1", "description": "signs its card",
		"capabilities":        map[string]any{"streaming": true, "extendedAgentCard": ext},
		"supportedInterfaces": []any{map[string]any{"url": f.url() + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		"skills":              []any{map[string]any{"id": "echo", "name": "Echo", "description": "echoes", "tags": []any{"t"}}},
	}
}

// cardSig is how a test signature is made.
type cardSig struct {
	jwk bool   // the public key in the protected header
	kid string // "kid"
	jku string // "jku"
}

// signCard returns card with one signature by k over its JCS form.
func signCard(t *testing.T, card map[string]any, k cardKey, how cardSig) []byte {
	t.Helper()
	body, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Transform(body)
	if err != nil {
		t.Fatal(err)
	}
	opts := &jose.SignerOptions{EmbedJWK: how.jwk}
	if how.kid != "" {
		opts.WithHeader("kid", how.kid)
	}
	if how.jku != "" {
		opts.WithHeader("jku", how.jku)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv}, opts)
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
	return withSigs(t, card, map[string]any{"protected": parts[0], "signature": parts[2]})
}

// withSigs is card served with the given signatures.
func withSigs(t *testing.T, card map[string]any, sigs ...map[string]any) []byte {
	t.Helper()
	out := map[string]any{}
	for k, v := range card {
		out[k] = v
	}
	out["signatures"] = sigs
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawSig is a signature with a protected header of the test's making
// (alg none, HS256, an algorithm shim does not take) and sig.
func rawSig(header map[string]any, sig []byte) map[string]any {
	h, _ := json.Marshal(header)
	return map[string]any{"protected": base64.RawURLEncoding.EncodeToString(h), "signature": base64.RawURLEncoding.EncodeToString(sig)}
}

// tamper changes a signed card's description after it was signed.
func tamper(t *testing.T, signed []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(signed, &m); err != nil {
		t.Fatal(err)
	}
	m["description"] = "signs its card, and then some"
	b, _ := json.Marshal(m)
	return b
}

// unsignedCard is card served without signatures.
func unsignedCard(t *testing.T, card map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// knownAgents reads <config>/known_agents.json (nil when absent).
func (e *shimEnv) knownAgents(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.config, "known_agents.json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}
