package cardsig

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

const cardURL = "https://agent.example/.well-known/agent-card.json"

var at = time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)

// newVerifier is a trust-on-first-use verifier whose pins live in a new
// config dir, and that dir.
func newVerifier(t *testing.T) (*Verifier, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "config")
	return &Verifier{Pins: NewPins(dir, nil), Now: func() time.Time { return at }}, dir
}

// pinFile is the pins' file of dir.
func pinFile(dir string) string { return filepath.Join(dir, FileName) }

// wantNoPinFile fails when a pins' file was written in dir.
func wantNoPinFile(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Lstat(pinFile(dir)); !os.IsNotExist(err) {
		b, _ := os.ReadFile(pinFile(dir))
		t.Errorf("a pin was written: %v %s", err, b)
	}
}

// readPinFile is the pins' file's bytes.
func readPinFile(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(pinFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pinFirst pins k for cardURL through a first signed card.
func pinFirst(t *testing.T, v *Verifier, k testKey) {
	t.Helper()
	got, err := v.Verify(t.Context(), cardURL, sign(t, k, naming{jwk: true, kid: k.pub.KeyID}))
	if err != nil || !got.PinnedNow {
		t.Fatalf("first use: %+v, %v", got, err)
	}
}

// counter is a loopback server that counts its requests and keeps their
// headers.
type counter struct {
	*httptest.Server
	n       atomic.Int32
	headers chan http.Header
}

func newCounter(t *testing.T, h http.HandlerFunc) *counter {
	t.Helper()
	c := &counter{headers: make(chan http.Header, 16)}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.n.Add(1)
		c.headers <- r.Header.Clone()
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(c.Close)
	return c
}

// jwksOf is the JWKS of keys, as a key URL serves it.
func jwksOf(t *testing.T, keys ...testKey) []byte {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, k.pub)
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// failingClient is a client whose every request fails the test.
func failingClient(t *testing.T) *http.Client {
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		t.Errorf("a request was sent: %s", r.URL.Redacted())
		return nil, http.ErrNotSupported
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Each accepted algorithm: the first signed card pins the key in its
// protected header, the next is verified under the pin; the card is
// verified as served (white space, member order and escapes are not the
// canonical form's).
func TestVerifyEachAlgorithm(t *testing.T) {
	for _, alg := range algorithms {
		t.Run(string(alg), func(t *testing.T) {
			v, dir := newVerifier(t)
			k := newKey(t, alg, "")
			card := sign(t, k, naming{jwk: true, kid: "k1"})
			if bytes.Contains(card, []byte(`{"capabilities"`)) {
				t.Fatal("the served card is in canonical form: the test would not show that the canonical form is computed")
			}
			got, err := v.Verify(t.Context(), cardURL, card)
			want := Verdict{Status: Verified, Alg: string(alg), Thumbprint: k.thumb(t), Pinned: at, PinnedNow: true}
			if err != nil || got != want {
				t.Fatalf("first use: %+v, %v; want %+v", got, err, want)
			}
			v.Now = func() time.Time { return at.Add(time.Hour) }
			got, err = v.Verify(t.Context(), cardURL, card)
			want.PinnedNow = false
			if err != nil || got != want {
				t.Fatalf("under the pin: %+v, %v; want %+v", got, err, want)
			}
			if s := got.String(); s != "verified ("+string(alg)+", key "+k.thumb(t)+", pinned 2026-12-01)" {
				t.Errorf("String: %q", s)
			}
			pin, err := NewPins(dir, nil).Get(cardURL)
			if err != nil || pin == nil || pin.Thumbprint != k.thumb(t) || !pin.Pinned.Equal(at) || pin.Key.KeyID != "k1" {
				t.Errorf("the pin: %+v, %v", pin, err)
			}
		})
	}
}

// An unsigned card of a URL with no pin is used as before, and nothing is
// written.
func TestUnsignedWithoutPin(t *testing.T) {
	for _, card := range []string{baseCard, `{"name": "x", "signatures": []}`, `{"name": "x", "signatures": null}`} {
		v, dir := newVerifier(t)
		got, err := v.Verify(t.Context(), cardURL, []byte(card))
		if err != nil || got != (Verdict{Status: Unsigned}) || got.String() != "unsigned" {
			t.Errorf("%s: %+v, %v", card, got, err)
		}
		wantNoPinFile(t, dir)
	}
}

// A card with no RFC 8785 form (a name twice, text that is not UTF-8)
// that claims no signature is read as before when its URL has no pin;
// under a pin, or claiming a signature, it is refused as malformed.
func TestUnsignedUncanonicalCard(t *testing.T) {
	twice := `{"name": "x", "name": "y"}`
	notUTF8 := "{\"name\": \"x\xff\"}"
	for _, card := range []string{twice, notUTF8} {
		v, dir := newVerifier(t)
		got, err := v.Verify(t.Context(), cardURL, []byte(card))
		if err != nil || got != (Verdict{Status: Unsigned}) {
			t.Errorf("%q with no pin: %+v, %v", card, got, err)
		}
		wantNoPinFile(t, dir)
	}
	claimed := `{"name": "x", "name": "y", "signatures": [{"protected": "e30", "signature": "AA"}]}`
	v, dir := newVerifier(t)
	refusal(t, second(v.Verify(t.Context(), cardURL, []byte(claimed))), CodeMalformed)
	wantNoPinFile(t, dir)

	a := newKey(t, jose.ES256, "")
	pinFirst(t, v, a)
	before := readPinFile(t, dir)
	for _, card := range []string{twice, notUTF8} {
		refusal(t, second(v.Verify(t.Context(), cardURL, []byte(card))), CodeMalformed)
	}
	if !bytes.Equal(readPinFile(t, dir), before) {
		t.Error("the pin file changed")
	}
}

// A card changed after it was signed is refused, on first use (nothing
// pinned) and under a pin (the pin kept).
func TestTamperedCard(t *testing.T) {
	k := newKey(t, jose.ES256, "a")
	card := sign(t, k, naming{jwk: true, kid: "a"})
	tampered := bytes.Replace(card, []byte("https://agent.example/a2a"), []byte("https://elsewhere.example/a2a"), 1)
	if bytes.Equal(card, tampered) {
		t.Fatal("nothing tampered")
	}

	v, dir := newVerifier(t)
	e := refusal(t, second(v.Verify(t.Context(), cardURL, tampered)), CodeBadSignature)
	if e.Offered != k.thumb(t) || e.Pinned != "" || e.Rotatable() {
		t.Errorf("first use: %+v", e)
	}
	wantNoPinFile(t, dir)

	pinFirst(t, v, k)
	before := readPinFile(t, dir)
	e = refusal(t, second(v.Verify(t.Context(), cardURL, tampered)), CodeBadSignature)
	if e.Pinned != k.thumb(t) || e.Rotatable() || !strings.Contains(e.Error(), k.thumb(t)) || strings.Contains(e.Error(), "--trust-new-key") {
		t.Errorf("under the pin: %+v: %v", e, e)
	}
	if !bytes.Equal(readPinFile(t, dir), before) {
		t.Error("the pin file changed")
	}
}

func second(_ Verdict, err error) error { return err }

// A card signed by another key than the pinned one is refused, naming
// both keys and how to trust the new one; the pin is kept, and the new
// key's URL is not fetched.
func TestSwappedKey(t *testing.T) {
	a, b := newKey(t, jose.ES256, "a"), newKey(t, jose.EdDSA, "b")
	v, dir := newVerifier(t)
	pinFirst(t, v, a)
	before := readPinFile(t, dir)

	e := refusal(t, second(v.Verify(t.Context(), cardURL, sign(t, b, naming{jwk: true, kid: "b"}))), CodeOtherKey)
	if e.Pinned != a.thumb(t) || e.Offered != b.thumb(t) || !e.PinnedAt.Equal(at) || !e.Rotatable() {
		t.Errorf("%+v", e)
	}
	for _, want := range []string{a.thumb(t), b.thumb(t), "shim login --trust-new-key", "2026-12-01", cardURL} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("the message does not name %q: %v", want, e)
		}
	}

	// Named by kid at a key URL: not followed after a pin.
	bKeys := jwksOf(t, b)
	keys := newCounter(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(bKeys) })
	v.Client = keys.Client()
	card := withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), b, naming{kid: "b", jku: keys.URL + "/jwks.json"}))
	origin := keys.URL + "/.well-known/agent-card.json"
	if _, err := v.Verify(t.Context(), origin, sign(t, a, naming{jwk: true, kid: "a"})); err != nil {
		t.Fatal(err)
	}
	e = refusal(t, second(v.Verify(t.Context(), origin, card)), CodeOtherKey)
	if e.Offered != "" || e.KeyID != "b" || !strings.Contains(e.Error(), `"b"`) {
		t.Errorf("by kid: %+v: %v", e, e)
	}
	if n := keys.n.Load(); n != 0 {
		t.Errorf("the key URL saw %d requests after the pin", n)
	}
	for _, u := range []string{cardURL, origin} {
		if pin, err := NewPins(dir, nil).Get(u); err != nil || pin == nil || pin.Thumbprint != a.thumb(t) {
			t.Errorf("the pin of %s: %+v, %v", u, pin, err)
		}
	}
	_ = before
}

// A card that was signed when pinned and comes unsigned is refused.
func TestStrippedSignature(t *testing.T) {
	a := newKey(t, jose.PS256, "")
	v, dir := newVerifier(t)
	pinFirst(t, v, a)
	before := readPinFile(t, dir)
	for _, card := range []string{baseCard, `{"name": "x", "signatures": []}`} {
		e := refusal(t, second(v.Verify(t.Context(), cardURL, []byte(card))), CodeUnsigned)
		if e.Pinned != a.thumb(t) || !e.Rotatable() || !strings.Contains(e.Error(), a.thumb(t)) || !strings.Contains(e.Error(), "shim login --trust-new-key") {
			t.Errorf("%+v: %v", e, e)
		}
	}
	if !bytes.Equal(readPinFile(t, dir), before) {
		t.Error("the pin file changed")
	}
}

// alg none, HMAC and algorithms not on the list are refused before any
// key is used, and nothing is pinned; a card is verified when one of its
// signatures verifies, whatever the others are.
func TestRefusedAlgorithms(t *testing.T) {
	a := newKey(t, jose.ES256, "a")
	jwk := publicJWK(t, a)
	hmac, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: bytes.Repeat([]byte("k"), 32)},
		(&jose.SignerOptions{}).WithHeader("kid", "a"))
	if err != nil {
		t.Fatal(err)
	}
	hs, err := hmac.Sign([]byte(baseCard))
	if err != nil {
		t.Fatal(err)
	}
	hsCompact, _ := hs.DetachedCompactSerialize()
	hsParts := strings.Split(hsCompact, ".")
	hs256 := map[string]any{"protected": hsParts[0], "signature": hsParts[2]}
	es512 := signatureOf(t, []byte(baseCard), newKey(t, jose.ES512, ""), naming{jwk: true})

	for _, tc := range []struct {
		name, alg string
		sig       map[string]any
	}{
		{"none", "none", rawSignature(map[string]any{"alg": "none", "jwk": jwk}, []byte("x"))},
		{"HS256", "HS256", hs256},
		{"ES512", "ES512", es512},
		{"unknown", "XS999", rawSignature(map[string]any{"alg": "XS999", "jwk": jwk}, []byte("x"))},
		{"no alg", "", rawSignature(map[string]any{"jwk": jwk}, []byte("x"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, dir := newVerifier(t)
			e := refusal(t, second(v.Verify(t.Context(), cardURL, withSignatures(t, []byte(baseCard), tc.sig))), CodeAlgorithm)
			if e.Alg != tc.alg || !strings.Contains(e.Error(), "ES256, ES384, EdDSA, RS256, PS256") || (tc.alg != "" && !strings.Contains(e.Error(), `"`+tc.alg+`"`)) {
				t.Errorf("%+v: %v", e, e)
			}
			wantNoPinFile(t, dir)

			// First use, then under the pin.
			good := signatureOf(t, []byte(baseCard), a, naming{jwk: true})
			for _, pinned := range []bool{false, true} {
				got, err := v.Verify(t.Context(), cardURL, withSignatures(t, []byte(baseCard), tc.sig, good))
				if err != nil || got.Status != Verified || got.Thumbprint != a.thumb(t) || got.PinnedNow == pinned {
					t.Errorf("with a good signature beside it (pinned: %v): %+v, %v", pinned, got, err)
				}
			}
		})
	}
}

// A key URL on another origin (another loopback port, another host, plain
// http to another machine) is never fetched, and nothing is pinned.
func TestKeyURLOtherOrigin(t *testing.T) {
	k := newKey(t, jose.ES384, "k")
	kKeys := jwksOf(t, k)
	other := newCounter(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(kKeys) })
	card := newCounter(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(kKeys) })
	localhost := strings.Replace(card.URL, "127.0.0.1", "localhost", 1)
	for _, tc := range []struct{ name, cardURL, jku string }{
		{"another loopback port", card.URL + "/.well-known/agent-card.json", other.URL + "/jwks.json"},
		{"another name of this machine", card.URL + "/.well-known/agent-card.json", localhost + "/jwks.json"},
		{"another host", "https://agent.example/.well-known/agent-card.json", "https://keys.example/jwks.json"},
		{"plain http to another machine", "http://agent.example/.well-known/agent-card.json", "http://agent.example/jwks.json"},
		{"user information", "https://agent.example/.well-known/agent-card.json", "https://u:p@agent.example/jwks.json"},
		{"not absolute", "https://agent.example/.well-known/agent-card.json", "/jwks.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, dir := newVerifier(t)
			v.Client = other.Client()
			if !strings.HasPrefix(tc.cardURL, "http://127.0.0.1") {
				v.Client = failingClient(t)
			}
			signed := withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), k, naming{kid: "k", jku: tc.jku}))
			e := refusal(t, second(v.Verify(t.Context(), tc.cardURL, signed)), CodeKeyURL)
			if !strings.Contains(e.Error(), "--card-keys") || strings.Contains(e.Error(), "u:p@") {
				t.Errorf("%v", e)
			}
			wantNoPinFile(t, dir)
		})
	}
	if n, m := other.n.Load(), card.n.Load(); n != 0 || m != 0 {
		t.Errorf("requests: %d to the other origin, %d to the card's", n, m)
	}
}

// A key URL on the card's own origin is fetched once, without the
// client's cookies or any credential, and the key its kid names is
// pinned; its answer is bounded to 64 KiB; a redirect is not followed.
func TestKeyURLSameOrigin(t *testing.T) {
	k, spare := newKey(t, jose.ES256, "k1"), newKey(t, jose.EdDSA, "k2")
	body := jwksOf(t, spare, k)
	var serve atomic.Value
	serve.Store(body)
	srv := newCounter(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks.json" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(serve.Load().([]byte))
	})
	cardAt := srv.URL + "/.well-known/agent-card.json"
	client := srv.Client()
	jar := &cookieJar{}
	client.Jar = jar
	card := withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), k, naming{kid: "k1", jku: srv.URL + "/jwks.json"}))

	v, _ := newVerifier(t)
	v.Client = client
	got, err := v.Verify(t.Context(), cardAt, card)
	if err != nil || !got.PinnedNow || got.Thumbprint != k.thumb(t) {
		t.Fatalf("first use: %+v, %v", got, err)
	}
	got, err = v.Verify(t.Context(), cardAt, card)
	if err != nil || got.PinnedNow || got.Thumbprint != k.thumb(t) {
		t.Fatalf("under the pin: %+v, %v", got, err)
	}
	if n := srv.n.Load(); n != 1 {
		t.Errorf("the key URL saw %d requests, want 1", n)
	}
	h := <-srv.headers
	if h.Get("Cookie") != "" || h.Get("Authorization") != "" || jar.asked.Load() != 0 {
		t.Errorf("the fetch carried %q / %q, the jar was asked %d times", h.Get("Cookie"), h.Get("Authorization"), jar.asked.Load())
	}

	// 64 KiB and not a byte more.
	for _, tc := range []struct {
		size int
		ok   bool
	}{{MaxKeyURLBody, true}, {MaxKeyURLBody + 1, false}} {
		padded := append(bytes.Repeat([]byte(" "), tc.size-len(body)), body...)
		serve.Store(padded)
		v, dir := newVerifier(t)
		v.Client = client
		_, err := v.Verify(t.Context(), cardAt, card)
		if tc.ok && err != nil {
			t.Errorf("%d bytes: %v", tc.size, err)
		}
		if !tc.ok {
			e := refusal(t, err, CodeKeyURL)
			if !strings.Contains(e.Error(), "larger than 64 KiB") {
				t.Errorf("%d bytes: %v", tc.size, e)
			}
			wantNoPinFile(t, dir)
		}
	}

	// An endless answer is read no further than the bound.
	var read atomic.Int64
	v, dir := newVerifier(t)
	v.Client = &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(&endless{n: &read}), Request: r}, nil
	})}
	refusal(t, second(v.Verify(t.Context(), cardAt, card)), CodeKeyURL)
	if n := read.Load(); n > MaxKeyURLBody+1 {
		t.Errorf("read %d bytes of an endless answer", n)
	}
	wantNoPinFile(t, dir)

	keyURLRefused(t, k, spare, body)
}

// keyURLRefused: a key URL that names no key of the signature's id, and
// one that redirects to another origin (not followed), are refused.
func keyURLRefused(t *testing.T, k, spare testKey, body []byte) {
	t.Helper()
	elsewhere := newCounter(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) })
	spareKeys := jwksOf(t, spare)
	for _, tc := range []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
		want  string
	}{
		{"no such kid", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(spareKeys) }, `no key ("k1")`},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/jwks.json", http.StatusFound)
		}, "HTTP 302"},
	} {
		srv := newCounter(t, tc.serve)
		v, dir := newVerifier(t)
		v.Client = srv.Client()
		card := withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), k, naming{kid: "k1", jku: srv.URL + "/jwks.json"}))
		e := refusal(t, second(v.Verify(t.Context(), srv.URL+"/card.json", card)), CodeKeyURL)
		if !strings.Contains(e.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, e)
		}
		wantNoPinFile(t, dir)
	}
	if n := elsewhere.n.Load(); n != 0 {
		t.Errorf("the redirect was followed: %d requests", n)
	}
}

// endless is an endless body of spaces that counts what is read of it.
type endless struct{ n *atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.n.Add(int64(len(p)))
	return len(p), nil
}

// cookieJar holds a cookie for every URL and counts the asks.
type cookieJar struct{ asked atomic.Int32 }

func (j *cookieJar) SetCookies(*url.URL, []*http.Cookie) {}

func (j *cookieJar) Cookies(*url.URL) []*http.Cookie {
	j.asked.Add(1)
	return []*http.Cookie{{Name: "session", Value: "secret-session-cookie"}}
}

// With --card-keys, only its keys count: a card signed by one is
// verified and nothing is pinned (no key URL fetched); another key, or no
// signature, is refused, naming the file.
func TestCardKeys(t *testing.T) {
	a, b, c := newKey(t, jose.ES256, "a"), newKey(t, jose.EdDSA, "b"), newKey(t, jose.RS256, "c")
	keys, err := LoadKeys(writeJWKS(t, a, c))
	if err != nil || keys.Len() != 2 {
		t.Fatalf("LoadKeys: %v", err)
	}
	abc := jwksOf(t, a, b, c)
	srv := newCounter(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(abc) })
	v, dir := newVerifier(t)
	v.Keys, v.Client = keys, srv.Client()
	cardAt := srv.URL + "/card.json"

	for _, k := range []testKey{a, c} {
		card := withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), k, naming{kid: k.pub.KeyID, jku: srv.URL + "/jwks.json"}))
		got, err := v.Verify(t.Context(), cardAt, card)
		want := Verdict{Status: Verified, Alg: string(k.alg), Thumbprint: k.thumb(t), CardKeys: keys.Path}
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", k.alg, got, err, want)
		}
		if !strings.Contains(got.String(), "from --card-keys "+keys.Path) {
			t.Errorf("String: %q", got)
		}
	}
	e := refusal(t, second(v.Verify(t.Context(), cardAt, sign(t, b, naming{jwk: true, kid: "b"}))), CodeOtherKey)
	if e.Offered != b.thumb(t) || e.Rotatable() || !strings.Contains(e.Error(), keys.Path) || strings.Contains(e.Error(), "--trust-new-key") {
		t.Errorf("another key: %+v: %v", e, e)
	}
	e = refusal(t, second(v.Verify(t.Context(), cardAt, []byte(baseCard))), CodeUnsigned)
	if !strings.Contains(e.Error(), keys.Path) || e.Rotatable() {
		t.Errorf("unsigned: %v", e)
	}
	if _, err := v.Offer(t.Context(), cardAt, sign(t, b, naming{jwk: true})); err == nil || !strings.Contains(err.Error(), keys.Path) {
		t.Errorf("Offer under --card-keys: %v", err)
	}
	wantNoPinFile(t, dir)
	if n := srv.n.Load(); n != 0 {
		t.Errorf("the key URL saw %d requests", n)
	}
}

// LoadKeys takes public signing keys only, and says which key is wrong.
func TestLoadKeysRefuses(t *testing.T) {
	ec := newKey(t, jose.ES256, "ec")
	priv, _ := json.Marshal(jose.JSONWebKey{Key: ec.priv, KeyID: "private"})
	weak := `{"kty":"RSA","kid":"weak","e":"AQAB","n":"` + strings.Repeat("w", 171) + `"}` // 1024 bits
	for _, tc := range []struct{ name, file, want string }{
		{"secret", `{"keys":[{"kty":"oct","kid":"s","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}]}`, `key 1 ("s"): not a public key`},
		{"private", `{"keys":[` + string(priv) + `]}`, `key 1 ("private"): not a public key`},
		{"weak", `{"keys":[` + weak + `]}`, "1024 bits, under 2048"},
		{"encryption", `{"keys":[{"kty":"OKP","crv":"Ed25519","use":"enc","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`, `for "enc"`},
		{"empty", `{"keys":[]}`, "no key in it"},
		{"not a JWKS", `[1]`, "not a JWKS"},
	} {
		p := filepath.Join(t.TempDir(), "keys.json")
		if err := os.WriteFile(p, []byte(tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKeys(p); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The pins' file: 0600 in a 0700 dir, {"version": 1, "agents": {<url>:
// {thumbprint, key, pinned}}}, keyed by the normalized card URL, the
// public key only, and the members it does not know kept.
func TestPinFileFormat(t *testing.T) {
	a, b := newKey(t, jose.ES256, "a"), newKey(t, jose.EdDSA, "")
	v, dir := newVerifier(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pinFile(dir), []byte(`{"version": 1, "future": {"x": [1]}, "agents": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(t.Context(), "HTTPS://Agent.Example:443/.well-known/agent-card.json/?x=1#f", sign(t, a, naming{jwk: true, kid: "a"})); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(t.Context(), "https://other.example/card.json", sign(t, b, naming{jwk: true})); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{dir, 0o700}, {pinFile(dir), 0o600}} {
		if fi, err := os.Stat(p.path); err != nil || fi.Mode().Perm() != p.mode {
			t.Errorf("%s: %v, %v; want %#o", p.path, fi.Mode(), err, p.mode)
		}
	}
	var doc struct {
		Version int                        `json:"version"`
		Future  json.RawMessage            `json:"future"`
		Agents  map[string]json.RawMessage `json:"agents"`
	}
	raw := readPinFile(t, dir)
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || string(doc.Future) != `{"x":[1]}` && string(doc.Future) != "{\n    \"x\": [\n      1\n    ]\n  }" || len(doc.Agents) != 2 {
		t.Fatalf("file:\n%s", raw)
	}
	var e struct {
		Thumbprint string         `json:"thumbprint"`
		Key        map[string]any `json:"key"`
		Pinned     string         `json:"pinned"`
	}
	if err := json.Unmarshal(doc.Agents[cardURL], &e); err != nil {
		t.Fatalf("no pin for %s:\n%s", cardURL, raw)
	}
	if e.Thumbprint != a.thumb(t) || e.Pinned != "2026-12-01T10:30:00Z" || e.Key["kty"] != "EC" || e.Key["kid"] != "a" || e.Key["d"] != nil {
		t.Errorf("the pin: %+v", e)
	}
	if !strings.HasPrefix(string(raw), "{\n  \"version\": 1,\n  \"agents\": {") {
		t.Errorf("not written as shim's versioned files are:\n%s", raw)
	}
}

// A pins' file that cannot be read (bad content, a pin whose thumbprint
// is not its key's, a link) is refused with an error naming it, by every
// check (a signed card or not), and left as it is: not overwritten, not
// moved aside, the link's target untouched.
func TestPinFileRefused(t *testing.T) {
	a := newKey(t, jose.ES256, "a")
	good := func(t *testing.T) []byte {
		v, dir := newVerifier(t)
		pinFirst(t, v, a)
		return readPinFile(t, dir)
	}(t)
	wrongThumb := bytes.Replace(good, []byte(a.thumb(t)), []byte(strings.Repeat("A", 43)), 1)
	for _, tc := range []struct {
		name, want string
		data       []byte
		link       bool
	}{
		{"not JSON", "not JSON", []byte(`{"version": 1, "agents": {`), false},
		{"another version", "version 2, want 1", []byte(`{"version": 2, "agents": {}}`), false},
		{"agents not an object", "agents is not an object", []byte(`{"version": 1, "agents": []}`), false},
		{"wrong thumbprint", "thumbprint is not its key's", wrongThumb, false},
		{"link", "not a regular file", good, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, dir := newVerifier(t)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			target := pinFile(dir)
			if tc.link {
				target = filepath.Join(t.TempDir(), "elsewhere.json")
				if err := os.Symlink(target, pinFile(dir)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(target, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			for _, card := range [][]byte{[]byte(baseCard), sign(t, a, naming{jwk: true}), sign(t, newKey(t, jose.ES256, ""), naming{jwk: true})} {
				e := refusal(t, second(v.Verify(t.Context(), "https://new.example/card.json", card)), CodeKnownAgents)
				if !strings.Contains(e.Error(), pinFile(dir)) || !strings.Contains(e.Error(), tc.want) {
					t.Errorf("%v, want %q", e, tc.want)
				}
			}
			if err := v.Pins.Replace(cardURL, nil); err == nil {
				t.Error("Replace wrote over it")
			}
			if b, _ := os.ReadFile(target); !bytes.Equal(b, tc.data) {
				t.Errorf("the file changed:\n%s", b)
			}
			if fi, err := os.Lstat(pinFile(dir)); err != nil || (fi.Mode()&os.ModeSymlink != 0) != tc.link {
				t.Errorf("the file was replaced: %v, %v", fi, err)
			}
			des, _ := os.ReadDir(dir)
			for _, de := range des {
				if de.Name() != FileName && de.Name() != FileName+".lock" {
					t.Errorf("left %s", de.Name())
				}
			}
		})
	}
}

// --trust-new-key: Offer shows the key a card is signed with (found as on
// first use) and writes nothing; Trust pins it in place of the old one,
// or forgets the pin for a card that comes unsigned. A card whose
// signature verifies under no key is never offered.
func TestTrustNewKey(t *testing.T) {
	a, b := newKey(t, jose.ES256, "a"), newKey(t, jose.ES384, "b")
	bKeys := jwksOf(t, b)
	srv := newCounter(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(bKeys) })
	cardAt := srv.URL + "/card.json"
	v, dir := newVerifier(t)
	v.Client = srv.Client()
	if _, err := v.Verify(t.Context(), cardAt, sign(t, a, naming{jwk: true, kid: "a"})); err != nil {
		t.Fatal(err)
	}
	before := readPinFile(t, dir)
	byB := withSignatures(t, []byte(baseCard), signatureOf(t, []byte(baseCard), b, naming{kid: "b", jku: srv.URL + "/jwks.json"}))
	if e := refusal(t, second(v.Verify(t.Context(), cardAt, byB)), CodeOtherKey); !e.Rotatable() {
		t.Errorf("%+v", e)
	}
	if n := srv.n.Load(); n != 0 {
		t.Fatalf("the key URL was fetched under the pin (%d)", n)
	}

	tampered := bytes.Replace(byB, []byte("Test agent"), []byte("Evil agent"), 1)
	if _, err := v.Offer(t.Context(), cardAt, tampered); err == nil {
		t.Error("a tampered card was offered")
	}
	o, err := v.Offer(t.Context(), cardAt, byB)
	if err != nil || o.Thumbprint != b.thumb(t) || o.Current == nil || o.Current.Thumbprint != a.thumb(t) || o.Unsigned || o.Alg != "ES384" {
		t.Fatalf("Offer: %+v, %v", o, err)
	}
	if !bytes.Equal(readPinFile(t, dir), before) {
		t.Fatal("Offer wrote")
	}
	v.Now = func() time.Time { return at.Add(48 * time.Hour) }
	got, err := v.Trust(o)
	if err != nil || !got.PinnedNow || got.Thumbprint != b.thumb(t) || got.String() != "verified (ES384, key "+b.thumb(t)+", pinned 2026-12-03)" {
		t.Fatalf("Trust: %+v, %v", got, err)
	}
	if got, err := v.Verify(t.Context(), cardAt, byB); err != nil || got.PinnedNow || got.Thumbprint != b.thumb(t) {
		t.Errorf("after Trust: %+v, %v", got, err)
	}
	refusal(t, second(v.Verify(t.Context(), cardAt, sign(t, a, naming{jwk: true, kid: "a"}))), CodeOtherKey)

	trustForgetsUnsigned(t, v, dir, srv.URL, b)
}

// trustForgetsUnsigned: once the agent behind srvURL stops signing, the
// card is refused unsigned; offered, then trusted, the pin of b is
// forgotten and the card verifies as unsigned.
func trustForgetsUnsigned(t *testing.T, v *Verifier, dir, srvURL string, b testKey) {
	t.Helper()
	cardAt := srvURL + "/card.json"
	refusal(t, second(v.Verify(t.Context(), cardAt, []byte(baseCard))), CodeUnsigned)
	o, err := v.Offer(t.Context(), cardAt, []byte(baseCard))
	if err != nil || !o.Unsigned || o.Current == nil || o.Current.Thumbprint != b.thumb(t) {
		t.Fatalf("Offer of an unsigned card: %+v, %v", o, err)
	}
	if got, err := v.Trust(o); err != nil || got.Status != Unsigned {
		t.Fatalf("Trust: %+v, %v", got, err)
	}
	if got, err := v.Verify(t.Context(), cardAt, []byte(baseCard)); err != nil || got.Status != Unsigned {
		t.Errorf("after forgetting: %+v, %v", got, err)
	}
	if bytes.Contains(readPinFile(t, dir), []byte(srvURL)) {
		t.Errorf("the pin is still there:\n%s", readPinFile(t, dir))
	}
}

// A pin another process wrote first is kept: add returns it.
func TestAddKeepsHeldPin(t *testing.T) {
	a, b := newKey(t, jose.ES256, ""), newKey(t, jose.ES256, "")
	_, dir := newVerifier(t)
	p := NewPins(dir, nil)
	pa := &Pin{Key: a.pub, Thumbprint: a.thumb(t), Pinned: at}
	if err := p.Replace(cardURL, pa); err != nil {
		t.Fatal(err)
	}
	before := readPinFile(t, dir)
	held, err := p.add(cardURL, &Pin{Key: b.pub, Thumbprint: b.thumb(t), Pinned: at})
	if err != nil || held.Thumbprint != a.thumb(t) {
		t.Errorf("add: %+v, %v", held, err)
	}
	if !bytes.Equal(readPinFile(t, dir), before) {
		t.Error("the held pin was replaced")
	}
	if err := p.Replace(cardURL, &Pin{Key: b.pub, Thumbprint: a.thumb(t)}); err == nil {
		t.Error("Replace took a pin whose thumbprint is not its key's")
	}
}

// A card that is not one JSON object, or whose signatures cannot be read,
// is refused; nothing is pinned. (A card with a name twice or text that
// is not UTF-8 that claims no signature is refused only under a pin:
// TestUnsignedUncanonicalCard.)
func TestMalformed(t *testing.T) {
	a := newKey(t, jose.ES256, "")
	good := signatureOf(t, []byte(baseCard), a, naming{jwk: true})
	for _, card := range []string{
		`[1]`, `{"name": "x"} {}`, `{"name": "a", "name": "b", "signatures": [1]}`,
		`{"signatures": {}}`, `{"signatures": [1]}`, `{"signatures": [{"protected": "a.b", "signature": "c"}]}`,
		`{"signatures": [{"protected": "` + good["protected"].(string) + `"}]}`,
		`{"signatures": [{"protected": "` + good["protected"].(string) + `", "signature": "` + good["signature"].(string) + `", "header": 1}]}`,
	} {
		v, dir := newVerifier(t)
		e := refusal(t, second(v.Verify(t.Context(), cardURL, []byte(card))), CodeMalformed)
		if !strings.Contains(e.Error(), cardURL) {
			t.Errorf("%s: %v", card, e)
		}
		wantNoPinFile(t, dir)
	}
}

// On first use only the protected header's jwk and jku name a key: a key
// in the unprotected header, an x5u or an x5c is not taken, nothing is
// fetched and nothing pinned.
func TestOnlyProtectedKeysFollowed(t *testing.T) {
	a := newKey(t, jose.ES256, "a")
	bare := signatureOf(t, []byte(baseCard), a, naming{kid: "a"})
	unprotected := map[string]any{"protected": bare["protected"], "signature": bare["signature"],
		"header": map[string]any{"jwk": publicJWK(t, a), "jku": "https://agent.example/jwks.json"}}
	// x5u in the protected header (the signature itself does not matter:
	// no key is found to check it with).
	x5u := rawSignature(map[string]any{"alg": "ES256", "kid": "a", "x5u": "https://agent.example/cert.pem"}, []byte("sig"))
	for name, sig := range map[string]map[string]any{"unprotected header": unprotected, "x5u": x5u} {
		v, dir := newVerifier(t)
		v.Client = failingClient(t)
		e := refusal(t, second(v.Verify(t.Context(), cardURL, withSignatures(t, []byte(baseCard), sig))), CodeNoKey)
		if !strings.Contains(e.Error(), "--card-keys") {
			t.Errorf("%s: %v", name, e)
		}
		wantNoPinFile(t, dir)
	}
}

// A trusted key that names its algorithm verifies only signatures of
// that algorithm (an RSA key for PS256 takes no RS256 signature).
func TestKeyAlgorithmHonoured(t *testing.T) {
	rs := newKey(t, jose.RS256, "r")
	ps := testKey{alg: jose.PS256, priv: rs.priv, pub: rs.pub}
	trusted := rs
	trusted.pub.Algorithm = "PS256"
	keys, err := LoadKeys(writeJWKS(t, trusted))
	if err != nil {
		t.Fatal(err)
	}
	v := &Verifier{Keys: keys}
	if got, err := v.Verify(t.Context(), cardURL, sign(t, ps, naming{kid: "r"})); err != nil || got.Alg != "PS256" {
		t.Errorf("PS256: %+v, %v", got, err)
	}
	refusal(t, second(v.Verify(t.Context(), cardURL, sign(t, rs, naming{kid: "r"}))), CodeBadSignature)
}
