// Package a2a is the A2A vocabulary every layer of shim's A2A client
// shares, with no I/O: the one event model both dialects and every
// binding decode into, the outgoing message with its typed intents, the
// extensions shim understands (their values are fields of the message and
// the artifact, read once when they are decoded), the agent card shim uses
// with its security schemes, the errors calls return, and the read budget
// of a series of calls. Nothing here builds an ACP message, and nothing
// above package a2aclient knows which dialect or binding ran.
//
// Files:
//   - model.go: states, parts, messages, artifacts, statuses, tasks,
//     events, the outgoing message and an approval's answer.
//   - events.go: a task snapshot as the events a stream would carry;
//     HistoryAll.
//   - ext.go: the extensions' identifiers and values (tool calls, parks,
//     forms, usage, steers) and their accessors.
//   - park.go: what a park's plain data parts say (ParkData).
//   - card.go: dialects, bindings, the card shim uses, its skills and
//     extensions, a required extension shim does not speak.
//   - security.go: the card's security schemes and what shim chose.
//   - errors.go: the RPC, HTTP, unreachable, decode, sign-in and
//     not-JSON errors, and the sentinels (ErrInsecure, ErrStalled, …).
//   - budget.go: ReadBudget, what a series of calls may read.
//   - session.go: the editor's session a call is made for (WithSession),
//     read by a platform that keeps a session's state (AgentCore).
//   - trace.go: the editor's W3C trace context on a call's context
//     (WithTrace), put on every request as its headers.
//   - report.go: what the client did on its own in a call (a renewed
//     sign-in), told to the Reporter on the call's context.
//   - friendly.go: a failed task's text as a person reads it.
//   - departures.go: the departures from the spec a client reads anyway
//     (SPEC §16), each said once in the log and kept (Departures).
//
// The packages, one way (each imports only those before it):
//
//	a2a ← wire/extension, wire/request, wire/rpcerror, sse ← wire
//	    ← agentcard ← auth (auth/credentials apart) ← binding
//	    ← jsonrpc, rest ← gemini, operator ← a2aclient
//	remember ← a2aclient (remember imports no other package of a2a)
//	auth ← auth/platform (imported by cmd/shim, not by a2aclient)
//	cardsig ← a2aclient (cardsig imports no other package of a2a)
//
// wire reads A2A's JSON in both dialects, converted at the edge (where a
// server departs from the spec: wire/departures.go), wire/extension the
// payloads of the extensions shim understands, wire/request what shim
// sends, wire/rpcerror HTTP+JSON error bodies and typed details; sse the
// event stream reader; agentcard the agent card's JSON (endpoint,
// dialect, binding, skills, security schemes); auth the schemes, the
// credential on a request and OAuth; auth/platform the managed platforms
// (their URLs and cards, their own credential libraries); binding what
// every binding shares (the HTTP connection, streams, the Binding
// interface); jsonrpc, rest and gemini one binding each (gemini: the
// Gemini CLI server's profile, a binding of its own); operator
// protoAgent's operator API (not A2A) over the same connection; a2aclient
// the client that discovers the card and picks the binding from its
// table: beside a2a, the one A2A package bridge imports; cardsig the
// signatures of the agent card and the keys pinned for it (SPEC §17);
// remember what an agent's origin served and did not, kept between
// launches (SPEC §19).
//
// Goroutines: none. Locks: ReadBudget.mu, held by no one while it takes
// another.
package a2a
