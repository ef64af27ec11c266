package cardsig

import (
	"fmt"
	"strings"
	"time"
)

// Reason is the data.reason of the ACP error for a card refused here.
const Reason = "card_signature"

// Code says why a card was refused.
type Code string

// The codes, from the most telling down: when several signatures of a
// card fail, the error is that of the first code in this order.
const (
	// CodeBadSignature: a signature does not verify under the key it is
	// checked with (the card changed after it was signed).
	CodeBadSignature Code = "bad_signature"
	// CodeOtherKey: the card is signed by a key other than the pinned one
	// (or than those of --card-keys).
	CodeOtherKey Code = "other_key"
	// CodeUnsigned: the card comes unsigned, but its URL has a pin (or
	// --card-keys names the keys that sign it).
	CodeUnsigned Code = "unsigned"
	// CodeAlgorithm: the signature's algorithm is not ES256, ES384, EdDSA,
	// RS256 or PS256.
	CodeAlgorithm Code = "algorithm"
	// CodeKeyURL: the key URL (jku) is refused (another origin, plain
	// http to another machine) or its fetch failed.
	CodeKeyURL Code = "key_url"
	// CodeNoKey: on first use, the signature names no key shim can find
	// (no jwk, no jku).
	CodeNoKey Code = "no_key"
	// CodeMalformed: the card or its signatures cannot be read.
	CodeMalformed Code = "malformed"
	// CodeKnownAgents: known_agents.json cannot be read or written.
	CodeKnownAgents Code = "known_agents"
)

// rank orders the codes of failed signatures (lower wins).
var rank = map[Code]int{CodeBadSignature: 0, CodeOtherKey: 1, CodeAlgorithm: 2, CodeKeyURL: 3, CodeNoKey: 4, CodeMalformed: 5}

// Error is a card refused (or a card that cannot be checked). The caller
// sends no request with a credential after it; on the ACP side it is
// -32000 with data.reason Reason.
type Error struct {
	Code Code
	// URL is the card's URL as pins are keyed (normalized).
	URL string
	// Pinned is the thumbprint of the key pinned for URL, "" with none;
	// PinnedAt when it was pinned.
	Pinned   string
	PinnedAt time.Time
	// Offered is the thumbprint of the key the card is signed with, ""
	// when it is not known without following a key URL.
	Offered string
	// KeyID is the key id the signature names (when Offered is not known).
	KeyID string
	// Alg is the signature's algorithm (CodeAlgorithm: the refused one).
	Alg string
	// KeyURL is the key URL refused or not fetched (CodeKeyURL).
	KeyURL string
	// CardKeys is the --card-keys file when the trusted keys are its.
	CardKeys string
	// Path is known_agents.json (CodeKnownAgents).
	Path string
	// Err is why, in plain words.
	Err error
}

// Reason is Reason, for the wiring's data.reason.
func (e *Error) Reason() string { return Reason }

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// Rotatable reports whether `shim login --trust-new-key` may settle it:
// under a pin, the card is signed by another key, comes unsigned, or has
// a signature that does not verify under the pinned key and names no key
// of its own (its key may be behind a key URL, not followed after a pin).
func (e *Error) Rotatable() bool {
	if e.CardKeys != "" || e.Pinned == "" {
		return false
	}
	return e.Code == CodeOtherKey || e.Code == CodeUnsigned || e.Code == CodeBadSignature && e.Offered == ""
}

func (e *Error) Error() string {
	var b strings.Builder
	card := "the agent card at " + e.URL
	switch e.Code {
	case CodeBadSignature:
		fmt.Fprintf(&b, "%s has a signature that does not verify", card)
		if e.Pinned != "" {
			fmt.Fprintf(&b, " under its pinned key %s", e.Pinned)
		}
		if e.Offered != "" && e.Offered != e.Pinned {
			fmt.Fprintf(&b, " (it names key %s)", e.Offered)
		}
		if e.Rotatable() {
			b.WriteString(": it was changed after it was signed, or signed with a key shim has not seen; if the agent's owner changed its key, run `shim login --trust-new-key` to see the new one and trust it")
			break
		}
		b.WriteString(": it was changed after it was signed, or signed wrongly, and shim does not use it")
	case CodeOtherKey:
		fmt.Fprintf(&b, "%s is signed by %s", card, e.offered())
		if e.CardKeys != "" {
			fmt.Fprintf(&b, ", which is not among the keys of --card-keys %s; if the agent's owner changed its key, add the new one to that file", e.CardKeys)
			break
		}
		fmt.Fprintf(&b, ", not by the key pinned for it%s, %s; if the agent's owner changed its key, run `shim login --trust-new-key` to compare the two and trust the new one",
			e.pinnedOn(), e.Pinned)
	case CodeUnsigned:
		if e.CardKeys != "" {
			fmt.Fprintf(&b, "%s comes unsigned, but --card-keys %s names the keys that sign it", card, e.CardKeys)
			break
		}
		fmt.Fprintf(&b, "%s comes unsigned, but it was signed by key %s when it was pinned%s; if the agent's owner stopped signing it, run `shim login --trust-new-key` to forget that key",
			card, e.Pinned, e.pinnedOn())
	case CodeAlgorithm:
		if e.Alg == "" {
			fmt.Fprintf(&b, "%s has a signature that names no algorithm", card)
		} else {
			fmt.Fprintf(&b, "%s is signed with the algorithm %q", card, e.Alg)
		}
		fmt.Fprintf(&b, ", which shim does not accept (it accepts %s)", algList())
	case CodeKeyURL:
		fmt.Fprintf(&b, "%s names its key at %s, and shim did not take it from there: %v; give the agent's keys with --card-keys FILE", card, e.KeyURL, e.Err)
	case CodeNoKey:
		fmt.Fprintf(&b, "%s is signed but names no key shim can check it with (no key in the signature, no key URL); give the agent's keys with --card-keys FILE", card)
	case CodeKnownAgents:
		fmt.Fprintf(&b, "%s: %v; shim checks signed agent cards against the keys pinned there and does not go on without it: repair the file, or remove it to forget every pinned key", e.Path, e.Err)
	default:
		fmt.Fprintf(&b, "%s has signatures shim cannot read: %v", card, e.Err)
	}
	return b.String()
}

// offered names the key the card is signed with.
func (e *Error) offered() string {
	switch {
	case e.Offered != "":
		return "key " + e.Offered
	case e.KeyID != "":
		return fmt.Sprintf("a key shim has not seen (its id is %q)", e.KeyID)
	}
	return "a key shim has not seen"
}

// pinnedOn is " on <date>" when the pin's date is known.
func (e *Error) pinnedOn() string {
	if e.PinnedAt.IsZero() {
		return ""
	}
	return " on " + e.PinnedAt.UTC().Format(time.DateOnly)
}
