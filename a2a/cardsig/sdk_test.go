package cardsig

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// Cards signed by the official A2A JavaScript SDK (testdata/sdk, made by
// e2e/lib/sign-cards.mjs with generateAgentCardSignature): each algorithm
// it signs with, the key in the protected header (pinned on first use) or
// at a key URL on the card's origin, or given with --card-keys.
func TestSDKSignedCards(t *testing.T) {
	const origin = "https://agent.example"
	jwks, err := os.ReadFile(filepath.Join("testdata", "sdk", "jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(jwks, &set); err != nil {
		t.Fatal(err)
	}
	keys, err := LoadKeys(filepath.Join("testdata", "sdk", "jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The key URL, served in the process: no network.
	var fetches atomic.Int32
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		if r.URL.String() != origin+"/jwks.json" {
			t.Errorf("fetched %s", r.URL)
			return nil, http.ErrNotSupported
		}
		fetches.Add(1)
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(bytes.NewReader(jwks)), Request: r}, nil
	})}

	for _, alg := range algorithms {
		kid := "sdk-" + strings.ToLower(string(alg))
		found := set.Key(kid)
		if len(found) != 1 {
			t.Fatalf("no key %s in jwks.json", kid)
		}
		want, _ := Thumbprint(&found[0])
		for _, via := range []string{"jwk", "jku"} {
			t.Run(string(alg)+"/"+via, func(t *testing.T) {
				card, err := os.ReadFile(filepath.Join("testdata", "sdk", string(alg)+"-"+via+".json"))
				if err != nil {
					t.Fatal(err)
				}
				v, dir := newVerifier(t)
				v.Client = client
				got, err := v.Verify(t.Context(), origin+"/.well-known/agent-card.json", card)
				if err != nil || got.Status != Verified || got.Alg != string(alg) || got.Thumbprint != want || !got.PinnedNow {
					t.Fatalf("first use: %+v, %v", got, err)
				}
				v, dir = &Verifier{Keys: keys, Pins: NewPins(dir+"-keys", nil)}, dir+"-keys"
				got, err = v.Verify(t.Context(), origin+"/.well-known/agent-card.json", card)
				if err != nil || got.Status != Verified || got.Thumbprint != want || got.CardKeys == "" {
					t.Fatalf("--card-keys: %+v, %v", got, err)
				}
				wantNoPinFile(t, dir)
			})
		}
	}
	if n := fetches.Load(); n != int32(len(algorithms)) {
		t.Errorf("the key URL was fetched %d times for %d cards", n, len(algorithms))
	}
}

// The SDK signs a normalized card (canonicalizeAgentCard: its v1.0 type's
// members only, defaults and empty values dropped) and returns the card
// it was given with the signature added: served as returned, a card that
// normalization changes does not verify (shim signs and checks the card
// as served); served in the normalized form, it does.
func TestSDKSignsTheNormalizedForm(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "sdk", "raw-as-returned.json"))
	if err != nil {
		t.Fatal(err)
	}
	normalized, err := os.ReadFile(filepath.Join("testdata", "sdk", "normalized.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, dir := newVerifier(t)
	refusal(t, second(v.Verify(t.Context(), cardURL, raw)), CodeBadSignature)
	wantNoPinFile(t, dir)

	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	var served map[string]json.RawMessage
	if err := json.Unmarshal(normalized, &served); err != nil {
		t.Fatal(err)
	}
	served["signatures"] = top["signatures"]
	body, _ := json.Marshal(served)
	if got, err := v.Verify(t.Context(), cardURL, body); err != nil || got.Status != Verified || got.Alg != "ES256" {
		t.Errorf("the normalized form: %+v, %v", got, err)
	}
}
