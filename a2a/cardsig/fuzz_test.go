package cardsig

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecodeSignatures: the decoder of a card's "signatures" never panics,
// takes at most maxSignatures, and gives only base64url parts; the card
// reader agrees with it on a card made of that member alone.
// Its corpus is testdata/fuzz/FuzzDecodeSignatures.
func FuzzDecodeSignatures(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		sigs, err := decodeSignatures(raw)
		if err != nil {
			return
		}
		if len(sigs) > maxSignatures {
			t.Fatalf("%d signatures", len(sigs))
		}
		for _, s := range sigs {
			if !isBase64URL(s.Protected) || !isBase64URL(s.Signature) {
				t.Fatalf("not base64url: %+v", s)
			}
		}
		if !json.Valid(raw) || len(bytes.TrimSpace(raw)) == 0 {
			return
		}
		card := append(append([]byte(`{"name":"x","signatures":`), raw...), '}')
		c, err := readCard(card)
		if err != nil {
			return // JCS is stricter than encoding/json (a name twice, lone surrogates)
		}
		if len(c.sigs) != len(sigs) || bytes.Contains(c.payload, []byte("signatures")) {
			t.Fatalf("readCard: %d signatures, payload %s; decoder: %d", len(c.sigs), c.payload, len(sigs))
		}
	})
}
