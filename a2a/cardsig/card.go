package cardsig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gowebpki/jcs"
)

// maxSignatures bounds the signatures of one card: each costs a
// verification per trusted key.
const maxSignatures = 16

// signature is one member of a card's "signatures" (AgentCardSignature in
// A2A 0.3 and 1.0): the protected header and the signature, base64url.
// The unprotected "header" is never read: the key and the algorithm come
// from the protected header only.
type signature struct {
	Protected string
	Signature string
}

// signed is a card as served, read for its signatures.
type signed struct {
	// payload is the RFC 8785 form of the card without "signatures": the
	// bytes its signatures sign.
	payload []byte
	// sigs is its signatures; none for an unsigned card.
	sigs []signature
}

// readCard reads a served card: its signed bytes and its signatures. The
// whole card is canonicalized first, which refuses what JSON readers
// could take in two ways (a name twice in an object, invalid UTF-8, a
// lone surrogate).
func readCard(body []byte) (*signed, error) {
	whole, err := jcs.Transform(body)
	if err != nil {
		return nil, fmt.Errorf("the card is not JSON shim can check: %v", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(whole, &top); err != nil || top == nil {
		return nil, errors.New("the card is not a JSON object")
	}
	raw := top["signatures"]
	delete(top, "signatures")
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("the card: %v", err)
	}
	payload, err := jcs.Transform(rest)
	if err != nil {
		return nil, fmt.Errorf("the card: %v", err)
	}
	sigs, err := decodeSignatures(raw)
	if err != nil {
		return nil, err
	}
	return &signed{payload: payload, sigs: sigs}, nil
}

// decodeSignatures reads a card's "signatures" member (raw: its JSON, nil
// when the card has none). Absent, null and [] are no signatures. Each
// member must be an object with "protected" and "signature", non-empty
// base64url strings; "header", when present, an object (it is not read).
// Its errors name the member at fault, never quote it.
func decodeSignatures(raw json.RawMessage) ([]signature, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("signatures is not a list")
	}
	if len(list) > maxSignatures {
		return nil, fmt.Errorf("the card has %d signatures; shim reads at most %d", len(list), maxSignatures)
	}
	sigs := make([]signature, 0, len(list))
	for i, m := range list {
		// Names are matched exactly (encoding/json's struct fields would
		// take "Protected" too).
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(m, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("signature %d is not an object", i+1)
		}
		var s signature
		if !b64member(obj, "protected", &s.Protected) {
			return nil, fmt.Errorf("signature %d: protected is missing or not base64url", i+1)
		}
		if !b64member(obj, "signature", &s.Signature) {
			return nil, fmt.Errorf("signature %d: signature is missing or not base64url", i+1)
		}
		if h, ok := obj["header"]; ok {
			var hdr map[string]json.RawMessage
			if json.Unmarshal(h, &hdr) != nil {
				return nil, fmt.Errorf("signature %d: header is not an object", i+1)
			}
		}
		sigs = append(sigs, s)
	}
	return sigs, nil
}

// b64member reads obj's member name into dst: a base64url string.
func b64member(obj map[string]json.RawMessage, name string, dst *string) bool {
	raw, ok := obj[name]
	return ok && json.Unmarshal(raw, dst) == nil && isBase64URL(*dst)
}

// isBase64URL reports whether s is non-empty and only of the base64url
// alphabet without padding (RFC 7515 §2): what a JWS compact part may be.
// Decoding is go-jose's.
func isBase64URL(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
