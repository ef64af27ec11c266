package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestLoginPinsAndRefuses: `shim login` prints the thumbprint of the key
// it pinned; with a card signed by another key it exits 1, stores
// nothing and sends nothing after the card.
func TestLoginPinsAndRefuses(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	card := fakeCard(f, "Signer", false)
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, a, cardSig{jwk: true}) })
	r := e.run(t, signedToken+"\n", "login", "--url", f.url())
	if r.code != 0 || !strings.Contains(r.stderr, "Pinned its key, thumbprint "+a.thumb(t)+" (RFC 7638)") {
		t.Fatalf("login: exit %d\n%s", r.code, r.stderr)
	}
	if pins := e.knownAgents(t); !bytes.Contains(pins, []byte(a.thumb(t))) {
		t.Errorf("known_agents.json: %s", pins)
	}
	r = e.run(t, signedToken+"\n", "login", "--url", f.url())
	if r.code != 0 || !strings.Contains(r.stderr, "signed (ES256) by its pinned key "+a.thumb(t)) {
		t.Errorf("login again: exit %d\n%s", r.code, r.stderr)
	}
	_, before := e.credentialsFile(t)
	pins := e.knownAgents(t)
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, b, cardSig{jwk: true}); f.reqs = nil })
	r = e.run(t, "tok-another-0123456789abcdef\n", "login", "--url", f.url())
	if r.code != 1 || !strings.Contains(r.stderr, b.thumb(t)) || !strings.Contains(r.stderr, a.thumb(t)) ||
		!strings.Contains(r.stderr, "shim login --trust-new-key") || !strings.Contains(r.stderr, "nothing was stored") {
		t.Errorf("login with a card signed by another key: exit %d\n%s", r.code, r.stderr)
	}
	if _, after := e.credentialsFile(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("stored tokens changed: %v, were %v", after, before)
	}
	if !bytes.Equal(e.knownAgents(t), pins) {
		t.Error("known_agents.json changed")
	}
	if got := f.requests(); len(got) != 1 || got[0].Path != "/.well-known/agent-card.json" {
		t.Errorf("login sent more than the card: %v", got)
	}
}

// TestTrustNewKeyWithoutTerminal: `shim login --trust-new-key` with stdin
// not a terminal shows both keys, says it cannot ask, exits 2 and changes
// nothing.
func TestTrustNewKeyWithoutTerminal(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	card := fakeCard(f, "Signer", false)
	pins := pinWith(t, e, f, signCard(t, card, a, cardSig{jwk: true}))
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, b, cardSig{jwk: true}); f.reqs = nil })
	r := e.run(t, "y\n", "login", "--url", f.url(), "--trust-new-key")
	if r.code != 2 || !strings.Contains(r.stderr, "Pinned key: "+a.thumb(t)) || !strings.Contains(r.stderr, "New key:    "+b.thumb(t)+" (ES256)") ||
		!strings.Contains(r.stderr, "not a terminal") || !strings.Contains(r.stderr, "nothing was changed") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	if !bytes.Equal(e.knownAgents(t), pins) {
		t.Errorf("known_agents.json changed:\n%s", e.knownAgents(t))
	}
	for _, q := range f.requests() {
		if q.Auth != "" || q.Path != "/.well-known/agent-card.json" {
			t.Errorf("--trust-new-key sent %v", q)
		}
	}
	if _, tokens := e.credentialsFile(t); len(tokens) != 0 {
		t.Errorf("a token was stored: %v", tokens)
	}
}
