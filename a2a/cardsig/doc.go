// Package cardsig checks the signatures of an agent card (SPEC §17) and
// keeps the keys it pins.
//
// A card may carry "signatures" (A2A 0.3 and 1.0 alike: a list of
// {"protected", "signature", "header"}), each a JWS (RFC 7515) with a
// detached payload: the RFC 8785 canonical JSON of the card as served,
// without its "signatures" member. go-jose parses and checks the JWS and
// the keys, gowebpki/jcs canonicalizes; nothing here decodes JOSE or
// canonical JSON itself. The algorithms are ES256, ES384, EdDSA, RS256 and
// PS256; "none", the HMAC algorithms and any other are refused. A card is
// verified when one of its signatures verifies under a trusted key.
//
// The trusted keys are those of a JWKS file (--card-keys, [LoadKeys]) when
// one is given. Else trust on first use: the first signed card of a card
// URL pins the key it verifies under, taken from the protected header's
// "jwk", else the key its "kid" names in the JWKS at its "jku" when that
// URL is on the card's own origin (https, or http on this machine),
// fetched once without credentials and at most 64 KiB. The pin (the key's
// RFC 7638 thumbprint, the public key, the date) lives in
// <config-dir>/known_agents.json:
//
//	{"version": 1, "agents": {"<card url>": {"thumbprint": "…", "key": {…}, "pinned": "<RFC 3339>"}}}
//
// written like credentials.json through internal/privfile (0600, atomic,
// locked), except that a file that cannot be read is refused and left in
// place, never moved aside: losing it would start trust on first use again
// without a word. After a pin only the pinned key counts: "jwk", "jku" and
// "x5u" are not followed again.
//
// [Verifier.Verify] gives a [Verdict] (verified or unsigned) or an [*Error]
// whose reason is "card_signature" and whose message names the pinned and
// offered keys and, when it can help, `shim login --trust-new-key`, which
// shows [Verifier.Offer] to the person and calls [Verifier.Trust].
//
// The package knows nothing of ACP, the bridge or the command line and
// sends no credential. It starts no goroutine; its locks are Pins' mutex,
// held over one write of the file, and inside it the file's own lock
// (internal/privfile), which excludes other processes.
//
// Files:
//   - card.go: the card as served: the signed bytes and the decoder of its
//     signatures.
//   - keys.go: the algorithms, the keys accepted, thumbprints, LoadKeys.
//   - fetch.go: the key URL (jku): its origin check and its one fetch.
//   - pins.go: known_agents.json (Pins).
//   - verify.go: Verifier, Verdict, Offer and Trust.
//   - errors.go: Error and its codes.
package cardsig
