package cardsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// algorithms are the signature algorithms shim accepts on a card, in the
// order its messages list them. Anything else ("none", HS256, ES512, …)
// is refused before any key is looked at.
var algorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.EdDSA, jose.RS256, jose.PS256}

// minRSABits is the smallest RSA key accepted.
const minRSABits = 2048

// maxKeysFile bounds a --card-keys file.
const maxKeysFile = 1 << 20

// checkKey fails unless k is a public key of a kind an accepted algorithm
// signs with: EC P-256 or P-384, Ed25519, RSA of 2048 bits or more; and,
// when it says its use, one for signatures.
func checkKey(k *jose.JSONWebKey) error {
	if k == nil || k.Key == nil {
		return errors.New("not a valid key")
	}
	if !k.IsPublic() {
		return errors.New("not a public key (a private or shared secret key)")
	}
	if !k.Valid() {
		return errors.New("not a valid key")
	}
	switch key := k.Key.(type) {
	case *ecdsa.PublicKey:
		if key.Curve != elliptic.P256() && key.Curve != elliptic.P384() {
			return fmt.Errorf("an EC key on %s, not P-256 or P-384", key.Curve.Params().Name)
		}
	case ed25519.PublicKey:
	case *rsa.PublicKey:
		if key.N.BitLen() < minRSABits {
			return fmt.Errorf("an RSA key of %d bits, under %d", key.N.BitLen(), minRSABits)
		}
	default:
		return fmt.Errorf("a key of a kind shim does not accept (%T)", k.Key)
	}
	if k.Use != "" && k.Use != "sig" {
		return fmt.Errorf("a key for %q, not for signatures", k.Use)
	}
	return nil
}

// fits reports whether k may verify a signature of alg: its kind is the
// algorithm's, and the algorithm it names, if any, is alg. go-jose checks
// the same again when it verifies.
func fits(k *jose.JSONWebKey, alg string) bool {
	if k.Algorithm != "" && k.Algorithm != alg {
		return false
	}
	switch key := k.Key.(type) {
	case *ecdsa.PublicKey:
		return alg == string(jose.ES256) && key.Curve == elliptic.P256() ||
			alg == string(jose.ES384) && key.Curve == elliptic.P384()
	case ed25519.PublicKey:
		return alg == string(jose.EdDSA)
	case *rsa.PublicKey:
		return alg == string(jose.RS256) || alg == string(jose.PS256)
	}
	return false
}

// Thumbprint is k's RFC 7638 thumbprint (SHA-256), base64url without
// padding: how shim names a key to a person.
func Thumbprint(k *jose.JSONWebKey) (string, error) {
	b, err := k.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// KeySet is the keys of a --card-keys file: when given, the only keys a
// card may be signed with, and nothing is pinned.
type KeySet struct {
	// Path is the file, as messages name it.
	Path string
	keys []jose.JSONWebKey
}

// Len is the number of keys.
func (s *KeySet) Len() int { return len(s.keys) }

// LoadKeys reads a --card-keys file: a JWKS ({"keys": [...]}) of public
// keys, each one checkKey accepts. A file with no key, a private or
// secret key, or a key shim does not accept is an error naming the key
// by its position and kid (never quoting key material).
func LoadKeys(path string) (*KeySet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--card-keys: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeysFile+1))
	if err != nil {
		return nil, fmt.Errorf("--card-keys %s: %w", path, err)
	}
	if len(data) > maxKeysFile {
		return nil, fmt.Errorf("--card-keys %s: larger than %d bytes", path, maxKeysFile)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("--card-keys %s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("--card-keys %s: no key in it", path)
	}
	for i := range keys {
		if err := checkKey(&keys[i]); err != nil {
			return nil, fmt.Errorf("--card-keys %s: key %d%s: %v", path, i+1, kidNote(keys[i].KeyID), err)
		}
	}
	return &KeySet{Path: path, keys: keys}, nil
}

// parseJWKS reads a JWKS through go-jose; its members' errors are its.
func parseJWKS(data []byte) ([]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("not a JWKS ({\"keys\": [...]}): %v", err)
	}
	return set.Keys, nil
}

// kidNote is ` ("<kid>")` for a key with an id, "" else.
func kidNote(kid string) string {
	if kid == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", kid)
}

// algList is the accepted algorithms as a message lists them.
func algList() string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
