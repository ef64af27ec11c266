package cardsig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Verifier checks served cards. Set Keys (--card-keys) or Pins; Client
// fetches a key URL on first use and must carry no credential of shim's.
// Its methods may be called from several goroutines.
type Verifier struct {
	// Pins is known_agents.json; used when Keys is nil.
	Pins *Pins
	// Keys, when not nil, are the only keys a card may be signed with; no
	// pin is read or written.
	Keys *KeySet
	// Client fetches a key URL (jku) on first use: with no credential,
	// cookie or redirect (fetchKeys drops its jar and redirects). nil:
	// no key URL is fetched.
	Client *http.Client
	// Now is the clock of the pins' dates; nil is time.Now.
	Now func() time.Time
}

// Status is what a card is once checked.
type Status int

// The statuses of a card that may be used.
const (
	// Unsigned: the card carries no signature and its URL has no pin.
	Unsigned Status = iota + 1
	// Verified: one of its signatures verifies under a trusted key.
	Verified
)

// Verdict is a card that may be used: unsigned, or verified under a key.
type Verdict struct {
	Status Status
	// Alg is the algorithm of the signature that verified.
	Alg string
	// Thumbprint is the RFC 7638 thumbprint of the key it verified under.
	Thumbprint string
	// Pinned is when that key was pinned (zero under --card-keys).
	Pinned time.Time
	// PinnedNow: this call pinned it (the first signed card of its URL);
	// `shim login` prints the thumbprint then.
	PinnedNow bool
	// CardKeys is the --card-keys file the key is from, "" for a pin.
	CardKeys string
}

// String is the verdict as doctor shows it: "unsigned", or
// "verified (ES256, key <thumbprint>, pinned 2026-12-01)".
func (v Verdict) String() string {
	switch v.Status {
	case Unsigned:
		return "unsigned"
	case Verified:
		if v.CardKeys != "" {
			return fmt.Sprintf("verified (%s, key %s, from --card-keys %s)", v.Alg, v.Thumbprint, v.CardKeys)
		}
		return fmt.Sprintf("verified (%s, key %s, pinned %s)", v.Alg, v.Thumbprint, v.Pinned.UTC().Format(time.DateOnly))
	}
	return "not checked"
}

// Verify checks a card as served: body is its bytes as fetched from
// cardURL. The extended card is checked the same way, with the public
// card's URL, so against the same pin. A card that may be used gives a
// Verdict; one that may not, an *Error (a card that is not a JSON object
// too). Under trust on first use, the first signed card of a URL pins the
// key it verifies under.
func (v *Verifier) Verify(ctx context.Context, cardURL string, body []byte) (Verdict, error) {
	key, cardU, err := cardKey(cardURL)
	if err != nil {
		return Verdict{}, err
	}
	card, err := readCard(body)
	if err != nil {
		return v.unreadable(key, body, err)
	}
	if v.Keys != nil {
		return v.underKeySet(key, card)
	}
	if v.Pins == nil {
		return Verdict{}, errors.New("cardsig: a Verifier needs Pins or Keys")
	}
	pin, err := v.Pins.Get(key)
	if err != nil {
		return Verdict{}, err
	}
	if pin != nil {
		return underPin(key, card, pin)
	}
	if len(card.sigs) == 0 {
		return Verdict{Status: Unsigned}, nil
	}
	k, alg, fail := v.discover(ctx, cardU, card)
	if fail != nil {
		fail.URL = key
		return Verdict{}, fail
	}
	tp, err := Thumbprint(&k)
	if err != nil {
		return Verdict{}, &Error{Code: CodeMalformed, URL: key, Err: err}
	}
	mine := &Pin{Key: k, Thumbprint: tp, Pinned: v.now().UTC().Truncate(time.Second)}
	held, err := v.Pins.add(key, mine)
	if err != nil {
		return Verdict{}, err
	}
	if held.Thumbprint != tp {
		// Another process pinned another key first: that one counts.
		return underPin(key, card, held)
	}
	return Verdict{Status: Verified, Alg: alg, Thumbprint: tp, Pinned: held.Pinned, PinnedNow: held == mine}, nil
}

// underPin checks card against its URL's pin.
func underPin(key string, card *signed, pin *Pin) (Verdict, error) {
	if len(card.sigs) == 0 {
		return Verdict{}, &Error{Code: CodeUnsigned, URL: key, Pinned: pin.Thumbprint, PinnedAt: pin.Pinned}
	}
	_, alg, fail := check(card, []jose.JSONWebKey{pin.Key})
	if fail != nil {
		fail.URL, fail.Pinned, fail.PinnedAt = key, pin.Thumbprint, pin.Pinned
		return Verdict{}, fail
	}
	return Verdict{Status: Verified, Alg: alg, Thumbprint: pin.Thumbprint, Pinned: pin.Pinned}, nil
}

// underKeySet checks card against the keys of --card-keys.
func (v *Verifier) underKeySet(key string, card *signed) (Verdict, error) {
	if len(card.sigs) == 0 {
		return Verdict{}, &Error{Code: CodeUnsigned, URL: key, CardKeys: v.Keys.Path}
	}
	i, alg, fail := check(card, v.Keys.keys)
	if fail != nil {
		fail.URL, fail.CardKeys = key, v.Keys.Path
		return Verdict{}, fail
	}
	tp, err := Thumbprint(&v.Keys.keys[i])
	if err != nil {
		return Verdict{}, &Error{Code: CodeMalformed, URL: key, Err: err}
	}
	return Verdict{Status: Verified, Alg: alg, Thumbprint: tp, CardKeys: v.Keys.Path}, nil
}

// parsedSig is one signature parsed by go-jose, with the payload detached.
type parsedSig struct {
	jws *jose.JSONWebSignature
	alg string
	hdr jose.Header // the protected header: the only one read
}

// parse parses s over payload as a detached compact JWS, which carries
// the protected header alone: its algorithm must be one of algorithms.
func parse(s signature, payload []byte) (*parsedSig, *Error) {
	jws, err := jose.ParseDetached(s.Protected+".."+s.Signature, payload, algorithms)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) {
			return nil, &Error{Code: CodeAlgorithm, Alg: string(alg.Got)}
		}
		return nil, &Error{Code: CodeMalformed, Err: errors.New("a signature is not a JWS shim can read")}
	}
	hdr := jws.Signatures[0].Protected
	return &parsedSig{jws: jws, alg: hdr.Algorithm, hdr: hdr}, nil
}

// verifies reports whether p verifies over payload under k.
func (p *parsedSig) verifies(payload []byte, k *jose.JSONWebKey) bool {
	return fits(k, p.alg) && p.jws.DetachedVerify(payload, k.Key) == nil
}

// check verifies card's signatures under keys: the index of the key and
// the algorithm of the first signature that verifies, or the failure
// that tells the most.
func check(card *signed, keys []jose.JSONWebKey) (int, string, *Error) {
	var worst *Error
	for _, s := range card.sigs {
		p, fail := parse(s, card.payload)
		if fail == nil {
			for i := range keys {
				if p.verifies(card.payload, &keys[i]) {
					return i, p.alg, nil
				}
			}
			fail = classify(p, card.payload, keys)
		}
		worst = pick(worst, fail)
	}
	return -1, "", worst
}

// classify says why p verifies under none of keys without following
// anything: signed by another key (the key it carries verifies it, or
// the id it names is none of theirs), else a bad signature.
func classify(p *parsedSig, payload []byte, keys []jose.JSONWebKey) *Error {
	e := &Error{Code: CodeBadSignature, Alg: p.alg, KeyID: p.hdr.KeyID}
	if jwk := p.hdr.JSONWebKey; jwk != nil && checkKey(jwk) == nil {
		e.Offered, _ = Thumbprint(jwk)
		if !hasThumbprint(keys, e.Offered) && p.verifies(payload, jwk) {
			e.Code = CodeOtherKey
		}
		return e
	}
	if p.hdr.KeyID != "" && !hasKeyID(keys, p.hdr.KeyID) && hasKeyIDs(keys) {
		e.Code = CodeOtherKey
	}
	return e
}

func hasThumbprint(keys []jose.JSONWebKey, tp string) bool {
	for i := range keys {
		if t, err := Thumbprint(&keys[i]); err == nil && t == tp {
			return true
		}
	}
	return false
}

func hasKeyID(keys []jose.JSONWebKey, kid string) bool {
	for i := range keys {
		if keys[i].KeyID == kid {
			return true
		}
	}
	return false
}

// hasKeyIDs reports whether every key has an id (so an id that is none
// of theirs names another key).
func hasKeyIDs(keys []jose.JSONWebKey) bool {
	for i := range keys {
		if keys[i].KeyID == "" {
			return false
		}
	}
	return len(keys) > 0
}

// pick is the failure that tells more of a and b (a when even).
func pick(a, b *Error) *Error {
	if a == nil || rank[b.Code] < rank[a.Code] {
		return b
	}
	return a
}

// discover is trust on first use: the key the card is signed with (the
// protected header's jwk, else the key its kid names at its jku on the
// card's own origin, each key URL fetched at most once) and the algorithm
// of the first signature that verifies under it, or the failure that
// tells the most. x5u and x5c are never followed.
func (v *Verifier) discover(ctx context.Context, cardU *url.URL, card *signed) (jose.JSONWebKey, string, *Error) {
	fetched := make(map[string]fetchResult)
	var worst *Error
	for _, s := range card.sigs {
		p, fail := parse(s, card.payload)
		if fail == nil {
			var keys []jose.JSONWebKey
			if keys, fail = v.candidates(ctx, cardU, p, fetched); fail == nil {
				for i := range keys {
					if p.verifies(card.payload, &keys[i]) {
						k := keys[i]
						if k.KeyID == "" {
							k.KeyID = p.hdr.KeyID
						}
						return k, p.alg, nil
					}
				}
				fail = &Error{Code: CodeBadSignature, Alg: p.alg, KeyID: p.hdr.KeyID}
				if len(keys) == 1 {
					fail.Offered, _ = Thumbprint(&keys[0])
				}
			}
		}
		worst = pick(worst, fail)
	}
	return jose.JSONWebKey{}, "", worst
}

// fetchResult is a key URL's keys or why there are none.
type fetchResult struct {
	keys []jose.JSONWebKey
	err  error
}

// candidates are the keys p may be signed with on first use.
func (v *Verifier) candidates(ctx context.Context, cardU *url.URL, p *parsedSig, fetched map[string]fetchResult) ([]jose.JSONWebKey, *Error) {
	if jwk := p.hdr.JSONWebKey; jwk != nil {
		if err := checkKey(jwk); err != nil {
			return nil, &Error{Code: CodeMalformed, Alg: p.alg, Err: fmt.Errorf("the key in its signature is %v", err)}
		}
		return []jose.JSONWebKey{*jwk}, nil
	}
	raw, ok := p.hdr.ExtraHeaders["jku"]
	if !ok {
		return nil, &Error{Code: CodeNoKey, Alg: p.alg, KeyID: p.hdr.KeyID}
	}
	jku, _ := raw.(string)
	fail := func(err error) *Error {
		return &Error{Code: CodeKeyURL, Alg: p.alg, KeyID: p.hdr.KeyID, KeyURL: shownURL(jku), Err: err}
	}
	u, err := keyURL(cardU, jku)
	if err != nil {
		return nil, fail(err)
	}
	r, seen := fetched[u.String()]
	if !seen {
		r.keys, r.err = fetchKeys(ctx, v.Client, u)
		fetched[u.String()] = r
	}
	if r.err != nil {
		return nil, fail(fmt.Errorf("fetching it failed: %v", r.err))
	}
	var keys []jose.JSONWebKey
	for _, k := range r.keys {
		if p.hdr.KeyID == "" || k.KeyID == p.hdr.KeyID {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fail(fmt.Errorf("it holds no key%s that shim accepts", kidNote(p.hdr.KeyID)))
	}
	return keys, nil
}

// Offer is what a card offers to be trusted in place of its URL's pin:
// `shim login --trust-new-key` shows it (Current and Thumbprint) and asks.
type Offer struct {
	// URL is the card's URL as pins are keyed.
	URL string
	// Unsigned: the card comes unsigned; trusting it forgets the pin.
	Unsigned bool
	// Key, Thumbprint and Alg: the key the card verifies under, found as
	// on first use (its jwk, or its jku on its own origin), and the
	// signature's algorithm.
	Key        jose.JSONWebKey
	Thumbprint string
	Alg        string
	// Current is the pin it would replace, nil when there is none.
	Current *Pin
}

// Offer finds the key a card is signed with as a first use would, ignoring
// the pin, and checks that the card verifies under it. It writes nothing.
// A card that verifies under no key it names is an *Error, as Verify's.
func (v *Verifier) Offer(ctx context.Context, cardURL string, body []byte) (*Offer, error) {
	if v.Keys != nil {
		return nil, fmt.Errorf("the keys trusted for agent cards come from --card-keys %s: add the new key to that file", v.Keys.Path)
	}
	if v.Pins == nil {
		return nil, errors.New("cardsig: a Verifier needs Pins or Keys")
	}
	key, cardU, err := cardKey(cardURL)
	if err != nil {
		return nil, err
	}
	card, err := readCard(body)
	if err != nil {
		return nil, &Error{Code: CodeMalformed, URL: key, Err: err}
	}
	cur, err := v.Pins.Get(key)
	if err != nil {
		return nil, err
	}
	if len(card.sigs) == 0 {
		return &Offer{URL: key, Unsigned: true, Current: cur}, nil
	}
	k, alg, fail := v.discover(ctx, cardU, card)
	if fail != nil {
		fail.URL = key
		if cur != nil {
			fail.Pinned, fail.PinnedAt = cur.Thumbprint, cur.Pinned
		}
		return nil, fail
	}
	tp, err := Thumbprint(&k)
	if err != nil {
		return nil, &Error{Code: CodeMalformed, URL: key, Err: err}
	}
	return &Offer{URL: key, Key: k, Thumbprint: tp, Alg: alg, Current: cur}, nil
}

// Trust pins o's key for its URL in place of what it had (or, for an
// unsigned card, forgets the pin), once the person has agreed.
func (v *Verifier) Trust(o *Offer) (Verdict, error) {
	if v.Pins == nil || v.Keys != nil {
		return Verdict{}, errors.New("cardsig: Trust needs Pins and no --card-keys")
	}
	if o.Unsigned {
		if err := v.Pins.Replace(o.URL, nil); err != nil {
			return Verdict{}, err
		}
		return Verdict{Status: Unsigned}, nil
	}
	pin := &Pin{Key: o.Key, Thumbprint: o.Thumbprint, Pinned: v.now().UTC().Truncate(time.Second)}
	if err := v.Pins.Replace(o.URL, pin); err != nil {
		return Verdict{}, err
	}
	return Verdict{Status: Verified, Alg: o.Alg, Thumbprint: o.Thumbprint, Pinned: pin.Pinned, PinnedNow: true}, nil
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

// cardKey is cardURL's pin key and its parsed form.
func cardKey(cardURL string) (string, *url.URL, error) {
	key, err := pinKey(cardURL)
	if err != nil {
		return "", nil, fmt.Errorf("cardsig: %w", err)
	}
	u, _ := url.Parse(key)
	return key, u, nil
}

// shownURL is a key URL as a message shows it: without user information,
// cut to 200 bytes.
func shownURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		s = u.Redacted()
	} else {
		s = fmt.Sprintf("%q", s)
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// unreadable is the verdict on a card that has no RFC 8785 form (a name
// twice in an object, text that is not UTF-8): refused as malformed, but
// for a card that claims no signature, of a URL with no pin and no
// --card-keys, which is read as it always was (SPEC §17: an unsigned card
// of a URL with no pin works as today).
func (v *Verifier) unreadable(key string, body []byte, cause error) (Verdict, error) {
	malformed := &Error{Code: CodeMalformed, URL: key, Err: cause}
	var claims struct {
		Signatures json.RawMessage `json:"signatures"`
	}
	if v.Keys != nil || v.Pins == nil || json.Unmarshal(body, &claims) != nil {
		return Verdict{}, malformed
	}
	if sig := bytes.TrimSpace(claims.Signatures); len(sig) > 0 && string(sig) != "null" && string(sig) != "[]" {
		return Verdict{}, malformed
	}
	pin, err := v.Pins.Get(key)
	switch {
	case err != nil:
		return Verdict{}, err
	case pin != nil:
		return Verdict{}, malformed
	}
	return Verdict{Status: Unsigned}, nil
}
