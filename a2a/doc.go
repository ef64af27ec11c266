// Package a2a is the A2A vocabulary every layer of shim's A2A client
// shares: the one event model both dialects and every binding decode into
// (states, parts, messages, artifacts, tasks, events), the outgoing
// message with its typed intents, the extensions shim understands, the
// agent card shim uses with its security schemes, the errors calls
// return, and the read budget of a series of calls. It does no I/O.
//
// Its packages, one way: wire (A2A's JSON, both dialects, converted at
// the edge) and sse (the event stream reader) under transport (the HTTP
// connection, streams, the Transport interface); the bindings jsonrpc,
// rest and gemini on transport; auth (schemes, credentials, OAuth) under
// transport; operator (protoAgent's operator API) on transport; and
// a2aclient (discovery, the binding's choice, the calls) on all of them.
// Nothing above a2aclient knows which dialect or binding ran, and nothing
// here builds an ACP message.
package a2a
