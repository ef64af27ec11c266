// Package wire is A2A's JSON in both dialects, converted at the edge:
// frames, results, tasks and errors of 1.0 and 0.3 (camelCase or
// snake_case, enum names or numbers, wrappers or kind-tagged objects)
// decoded leniently into package a2a's one model, each extension's
// payload read once as its message or artifact is decoded; and outgoing
// messages built in the 1.0 shape, then spelled for the dialect by a table
// (spellings). Every body is decoded by one decoder, segmentio/encoding's
// json, in place for a body up to 64 KiB.
//
// The agent card's JSON is package agentcard's (it uses Flag, the
// lenient flag).
//
// Files:
//   - decode.go: the wire types, the decoder, frames, JSON-RPC responses,
//     tasks, send results, task pages and error frames.
//   - wiretext.go: a part's text, unescaped with one copy.
//   - ext.go: each extension's payload read into the model (tool calls,
//     tool-event parts, reasoning, parks, forms, steers, usage,
//     context).
//   - departures.go: where a server departs from the spec and the decoder
//     reads it anyway, one function each (a README row each).
//   - park.go: what a park's plain data parts say: their content, the tool
//     call they name, the answer's schema.
//   - encode.go: outgoing messages and their intents, the dialects'
//     spellings, the whole-history length, request bodies with long texts
//     spliced in.
//   - resterror.go: HTTP+JSON errors (google.rpc.Status, RFC 9457) as the
//     JSON-RPC errors they stand for; HTTP+JSON frames.
//   - proto03.go: the ProtoJSON of the A2A 0.3.0 proto, the bodies of 0.3's
//     HTTP+JSON binding: outgoing messages (content, ROLE_USER, a DataPart
//     around a part's data), and answers read by the lenient decoder with
//     a kind-less part's data read as a DataPart (only this codec does).
//   - errdetails.go: an error's typed details (google.rpc.ErrorInfo and
//     friends).
//
// Goroutines and locks: none.
package wire
