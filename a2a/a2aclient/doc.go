// Package a2aclient is shim's A2A client: the agent card's discovery (its
// endpoint rebased onto --url's origin), the binding it names (package
// jsonrpc, rest or gemini, over one binding.Conn), the calls delegated
// to it, the extended card after sign-in, the polled tasks of a
// non-streaming agent, and the operator API beside it (package operator).
// A managed platform (package auth/platform) configures it with plain
// values (the card's places, an endpoint, the credential): the
// client does not know which platform it is.
//
// A managed platform whose documentation fixes the binding sets
// Config.Codec: CodecProtoJSON03 speaks A2A 0.3's HTTP+JSON binding with
// the ProtoJSON of the 0.3 proto at the base URL, whatever interfaces the
// card names (Google's Vertex AI Agent Engine: URL
// …/reasoningEngines/<id>/a2a, CardURL …/a2a/v1/card; Gemini Enterprise:
// …/agents/<id>/a2a). Without it, a card whose 0.3 interface is HTTP+JSON
// gets that same codec at the interface's URL.
//
// Files:
//   - client.go: Config, Client, the calls.
//   - bindings.go: the bindings as tables: a binding by the card's
//     dialect, binding and the agent's profile (package jsonrpc, rest or
//     gemini), a codec's pin, the profiles and the cards they are
//     recognised by.
//   - discovery.go: Discover, and cardReader, which reads the card (from
//     the first of its places that answers, as remembered, asked for
//     again), checks and keeps it; the card in use stays the client's,
//     settled with the endpoint's override.
//   - places.go: where the agent is (places): its base, its origin, the
//     places its card is read from in order, the endpoint's rebase.
//   - inuse.go: the card in use (the client's): where it was read, what
//     its signature check found, the extended card that replaces it, a
//     remembered card that changed, and who is told of a new card.
//   - cardcheck.go: the cards' signatures (cardCheck, over package
//     cardsig, SPEC §17), the extended card's included: a card refused
//     stops the client, whose every request then fails before it is sent.
//   - remembered.go: the card an earlier launch kept (Config.Remember,
//     package remember, SPEC §19): checked as a fetched card is, used at
//     once, and asked for again in the background with its validators; a
//     changed card is used as it arrives, a refused one stops the client
//     and fails Probe. A signed card is asked for again before it is used
//     (SPEC §17: no credential before the card served now passes).
//   - operator.go: the operator API (package operator) as the client
//     offers it: Operator, its answers' types and ErrNoOperator, so that
//     no caller imports package operator (nor binding: Stream).
//   - departures.go: where a server departs from the spec beyond one
//     frame's JSON and the client reads it anyway (SPEC §16): a failure
//     under a task id nobody knows, the card at the old path, streaming
//     claimed and not served (Client.Departures, in client.go, is what
//     it saw).
//
// Goroutines: one per launch with a remembered card, asking for it again
// (cardReader.revalidate), ending with its answer; callbacks of
// OnCardChange run on the caller's, or on that goroutine for a card that
// changed. Locks: Client.mu (the card, the binding, the operator API) is
// held across the card's fetch; under it auth.Stored.mu is taken (the
// card's security scheme), remember.File.mu (what is remembered) and
// cardReader.mu (the revalidation running, whether it changed the card),
// never the other way; cardReader.mu is never held while another is
// taken.
package a2aclient
