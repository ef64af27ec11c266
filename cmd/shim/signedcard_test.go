package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// signedToken is the credential the sessions of these tests carry.
const signedToken = "tok-signed-cards-0123456789"

// refusedSession starts shim on f with the token and args, asks for a
// session twice, and checks that both are refused as a card whose
// signature is refused (-32000, data.reason card_signature) and that the
// server got nothing after the card: the first session/new's requests are
// those of want (paths), the second's none at all. It returns the first
// error.
func refusedSession(t *testing.T, e *shimEnv, f *fakeA2A, want []string, args ...string) map[string]any {
	t.Helper()
	f.set(func(f *fakeA2A) { f.reqs = nil })
	p := e.start(t, append([]string{"--url", f.url(), "--token", signedToken}, args...)...)
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	rerr := rpcErrorOf(m)
	if rerr == nil || rerr["code"] != float64(-32000) || errData(m)["reason"] != "card_signature" {
		t.Fatalf("session/new: %v; want -32000 with data.reason card_signature\nstderr:\n%s", m, p.logs())
	}
	var got []string
	for _, r := range f.requests() {
		got = append(got, r.Method+" "+r.Path+" "+r.RPC)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests up to the refusal:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m := p.call(t, 3, "session/new", newSessionParams()); errData(m)["reason"] != "card_signature" {
		t.Errorf("second session/new: %v", m)
	}
	if n := len(f.requests()); n != len(want) {
		t.Errorf("the second session/new sent %d request(s) after the refusal: %v", n-len(want), f.requests()[len(want):])
	}
	return rerr
}

var cardOnly = []string{"GET /.well-known/agent-card.json "}

// pinWith serves card to a `shim doctor`, which pins the key it is signed
// with, and returns known_agents.json as it is then.
func pinWith(t *testing.T, e *shimEnv, f *fakeA2A, card []byte) []byte {
	t.Helper()
	f.set(func(f *fakeA2A) { f.cardJSON = card })
	if r := e.run(t, "", "--url", f.url(), "--token", signedToken, "doctor"); r.code != 0 {
		t.Fatalf("doctor with the card to pin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	pins := e.knownAgents(t)
	if pins == nil {
		t.Fatal("nothing was pinned")
	}
	return pins
}

// TestRefusedCards: a card that was changed after it was signed, signed by
// a key other than the pinned one, unsigned where it was signed, or signed
// with alg none, HS256 or an algorithm shim does not take is refused: the
// editor gets -32000 with data.reason card_signature naming the keys, the
// agent gets nothing after the card (so no credential), and the pins are
// unchanged.
func TestRefusedCards(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	for _, c := range []struct {
		name string
		pin  bool // a card signed by a is pinned first
		bad  func(card map[string]any) []byte
		// what the error says: data.pinned, data.offered, message parts
		pinned, offered string
		says            []string
	}{
		{name: "tampered", bad: func(card map[string]any) []byte { return tamper(t, signCard(t, card, a, cardSig{jwk: true})) },
			offered: a.thumb(t), says: []string{"does not verify"}},
		{name: "tampered under a pin", pin: true, bad: func(card map[string]any) []byte { return tamper(t, signCard(t, card, a, cardSig{jwk: true})) },
			pinned: a.thumb(t), offered: a.thumb(t), says: []string{"does not verify under its pinned key " + a.thumb(t)}},
		{name: "swapped key", pin: true, bad: func(card map[string]any) []byte { return signCard(t, card, b, cardSig{jwk: true}) },
			pinned: a.thumb(t), offered: b.thumb(t), says: []string{"signed by key " + b.thumb(t), "pinned for it", a.thumb(t), "shim login --trust-new-key"}},
		{name: "stripped signature", pin: true, bad: func(card map[string]any) []byte { return unsignedCard(t, card) },
			pinned: a.thumb(t), says: []string{"comes unsigned", a.thumb(t), "shim login --trust-new-key"}},
		{name: "alg none", bad: func(card map[string]any) []byte {
			return withSigs(t, card, rawSig(map[string]any{"alg": "none", "kid": "key-a"}, []byte("x")))
		}, says: []string{`algorithm "none"`}},
		{name: "HS256", bad: func(card map[string]any) []byte {
			return withSigs(t, card, rawSig(map[string]any{"alg": "HS256", "kid": "key-a"}, bytes.Repeat([]byte{7}, 32)))
		}, says: []string{`algorithm "HS256"`}},
		{name: "unknown alg", bad: func(card map[string]any) []byte {
			return withSigs(t, card, rawSig(map[string]any{"alg": "ES512", "kid": "key-a"}, bytes.Repeat([]byte{7}, 132)))
		}, says: []string{`algorithm "ES512"`, "ES256, ES384, EdDSA, RS256, PS256"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeA2A(t, "", signedToken)
			e := newShimEnv(t)
			card := fakeCard(f, "Signer", false)
			var pins []byte
			if c.pin {
				pins = pinWith(t, e, f, signCard(t, card, a, cardSig{jwk: true}))
			}
			f.set(func(f *fakeA2A) { f.cardJSON = c.bad(card) })
			rerr := refusedSession(t, e, f, cardOnly)
			d, _ := rerr["data"].(map[string]any)
			if fmt.Sprint(d["pinned"]) != fmt.Sprint(orNil(c.pinned)) || fmt.Sprint(d["offered"]) != fmt.Sprint(orNil(c.offered)) {
				t.Errorf("data %v: want pinned %q, offered %q", d, c.pinned, c.offered)
			}
			msg, _ := rerr["message"].(string)
			for _, s := range c.says {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not say %q", msg, s)
				}
			}
			if strings.Contains(msg, signedToken) {
				t.Errorf("the message quotes the token: %q", msg)
			}
			if got := e.knownAgents(t); !bytes.Equal(got, pins) {
				t.Errorf("known_agents.json changed:\n%s\nwas:\n%s", got, pins)
			}
		})
	}
}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestKeyURLOnAnotherOriginNotFetched: a first signed card whose key is at
// a key URL (jku) on another origin, here another loopback server, is
// refused without that server seeing a request.
func TestKeyURLOnAnotherOriginNotFetched(t *testing.T) {
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer other.Close()
	a := newCardKey(t, "key-a")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	f.set(func(f *fakeA2A) {
		f.cardJSON = signCard(t, fakeCard(f, "Signer", false), a, cardSig{kid: "key-a", jku: other.URL + "/jwks.json"})
	})
	rerr := refusedSession(t, e, f, cardOnly)
	if msg, _ := rerr["message"].(string); !strings.Contains(msg, other.URL+"/jwks.json") || !strings.Contains(msg, "not on the card's own origin") {
		t.Errorf("message %q", msg)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the key URL on another origin got %d request(s)", n)
	}
	if e.knownAgents(t) != nil {
		t.Error("known_agents.json was written")
	}
}

// TestCardKeysInsteadOfPins: with --card-keys (or SHIM_CARD_KEYS) a card
// signed by one of its keys is used and nothing is pinned; a card signed
// by another key is refused, naming the file.
func TestCardKeysInsteadOfPins(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	keys := jwksFile(t, a)
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	card := fakeCard(f, "Signer", false)
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, a, cardSig{kid: "key-a"}) })
	p := e.start(t, "--url", f.url(), "--token", signedToken, "--card-keys", keys)
	p.call(t, 1, "initialize", initParams(false))
	if m := p.call(t, 2, "session/new", newSessionParams()); m["error"] != nil {
		t.Fatalf("session/new with the card signed by a key of --card-keys: %v\n%s", m, p.logs())
	}
	if e.knownAgents(t) != nil {
		t.Error("a key was pinned under --card-keys")
	}
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, b, cardSig{kid: "key-b"}) })
	e.vars = append(e.vars, "SHIM_CARD_KEYS="+keys)
	rerr := refusedSession(t, e, f, cardOnly)
	if msg, _ := rerr["message"].(string); !strings.Contains(msg, "--card-keys "+keys) {
		t.Errorf("message %q does not name the file", msg)
	}
	if e.knownAgents(t) != nil {
		t.Error("a key was pinned under SHIM_CARD_KEYS")
	}
}

// TestExtendedCardUnderPin: under the pin its public card made, an
// extended card signed by the same key is used, and one that comes
// unsigned or changed is refused like the public card (not kept quietly
// as the public one): nothing is sent after it.
func TestExtendedCardUnderPin(t *testing.T) {
	a := newCardKey(t, "key-a")
	for _, c := range []struct {
		name string
		ext  func(card map[string]any) []byte
		ok   bool
	}{
		{"signed by the pinned key", func(card map[string]any) []byte { return signCard(t, card, a, cardSig{jwk: true}) }, true},
		{"unsigned", func(card map[string]any) []byte { return unsignedCard(t, card) }, false},
		{"tampered", func(card map[string]any) []byte { return tamper(t, signCard(t, card, a, cardSig{jwk: true})) }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeA2A(t, "", signedToken)
			e := newShimEnv(t)
			ext := fakeCard(f, "Signer (signed in)", true)
			f.set(func(f *fakeA2A) {
				f.cardJSON = signCard(t, fakeCard(f, "Signer", true), a, cardSig{jwk: true})
				f.extCard = c.ext(ext)
			})
			if !c.ok {
				refusedSession(t, e, f, []string{"GET /.well-known/agent-card.json ", "POST /a2a GetTask", "POST /a2a GetExtendedAgentCard"})
				f.set(func(f *fakeA2A) { f.reqs = nil })
				r := e.run(t, "", "--url", f.url(), "--token", signedToken, "doctor")
				rows := doctorRows(t, r.stdout)
				if r.code != 1 || !strings.HasPrefix(rows["auth probe"], "FAIL the extended agent card is refused") || !strings.HasPrefix(rows["server APIs"], "skip") {
					t.Errorf("doctor: exit %d\n%s", r.code, r.stdout)
				}
				if n := len(f.requests()); n != 3 {
					t.Errorf("doctor sent %d requests, want the card, the probe and the extended card: %v", n, f.requests())
				}
				return
			}
			p := e.start(t, "--url", f.url(), "--token", signedToken)
			p.call(t, 1, "initialize", initParams(false))
			if m := p.call(t, 2, "session/new", newSessionParams()); m["error"] != nil {
				t.Fatalf("session/new: %v\n%s", m, p.logs())
			}
			if !strings.Contains(p.logs(), "using the extended agent card") {
				t.Errorf("the extended card is not used:\n%s", p.logs())
			}
		})
	}
}

// TestUnsignedCardWithoutPin: an unsigned card of a URL with no pin works
// as before, and nothing is pinned.
func TestUnsignedCardWithoutPin(t *testing.T) {
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	p := e.start(t, "--url", f.url(), "--token", signedToken)
	p.call(t, 1, "initialize", initParams(false))
	if m := p.call(t, 2, "session/new", newSessionParams()); m["error"] != nil {
		t.Fatalf("session/new: %v", m)
	}
	if e.knownAgents(t) != nil {
		t.Error("known_agents.json was written for an unsigned card")
	}
}

// TestDoctorCardSignature: doctor's "card signature" row says unsigned,
// verified under which key (pinned when, or from --card-keys), or the
// refusal (FAIL, exit 1, nothing sent after the card).
func TestDoctorCardSignature(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	doctor := func(args ...string) (result, map[string]string) {
		t.Helper()
		r := e.run(t, "", append([]string{"--url", f.url(), "--token", signedToken, "doctor"}, args...)...)
		return r, doctorRows(t, r.stdout)
	}
	if r, rows := doctor(); r.code != 0 || rows["card signature"] != "ok unsigned" {
		t.Errorf("an unsigned card: exit %d, row %q\n%s", r.code, rows["card signature"], r.stdout)
	}
	card := fakeCard(f, "Signer", false)
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, a, cardSig{jwk: true}) })
	today := time.Now().UTC().Format(time.DateOnly)
	verified := fmt.Sprintf("ok verified (ES256, key %s, pinned %s)", a.thumb(t), today)
	if r, rows := doctor(); r.code != 0 || rows["card signature"] != verified+"; this key is pinned for the card from now on" {
		t.Errorf("first signed card: exit %d, row %q\n%s", r.code, rows["card signature"], r.stdout)
	}
	if r, rows := doctor(); r.code != 0 || rows["card signature"] != verified {
		t.Errorf("pinned: exit %d, row %q, want %q", r.code, rows["card signature"], verified)
	}
	keys := jwksFile(t, a)
	if r, rows := doctor("--card-keys", keys); r.code != 0 || rows["card signature"] != fmt.Sprintf("ok verified (ES256, key %s, from --card-keys %s)", a.thumb(t), keys) {
		t.Errorf("--card-keys: exit %d, row %q", r.code, rows["card signature"])
	}
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, b, cardSig{jwk: true}); f.reqs = nil })
	r, rows := doctor()
	if r.code != 1 || !strings.HasPrefix(rows["card signature"], "FAIL ") || !strings.Contains(rows["card signature"], a.thumb(t)) ||
		!strings.Contains(rows["card signature"], b.thumb(t)) || !strings.HasPrefix(rows["auth probe"], "skip") {
		t.Errorf("another key: exit %d\n%s", r.code, r.stdout)
	}
	if got := f.requests(); len(got) != 1 || got[0].Path != "/.well-known/agent-card.json" {
		t.Errorf("doctor sent more than the card: %v", got)
	}
}

// TestCardKeysFileRefused: a --card-keys file shim cannot use (missing,
// not a JWKS) stops doctor and serving with exit 2 and a line naming it;
// nothing is sent.
func TestCardKeysFileRefused(t *testing.T) {
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	bad := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(bad, []byte(`{"keys": "none"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"doctor", "--card-keys", bad},
		{"--card-keys", filepath.Join(t.TempDir(), "missing.json")},
	} {
		r := e.run(t, "", append([]string{"--url", f.url(), "--token", signedToken}, args...)...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "shim: --card-keys") || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d request(s) sent", n)
	}
}
