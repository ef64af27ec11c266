// Package wire reads A2A's JSON in both dialects into package a2a's one
// model, converted at the edge: frames, results, tasks, task pages and
// errors of 1.0 and 0.3 (camelCase or snake_case, enum names or numbers,
// wrappers or kind-tagged objects, the 0.3 proto's ProtoJSON) decoded
// leniently, and what the extensions of a message or an artifact say read
// once as it is decoded (their payloads: package wire/extension). Every
// body is decoded by one decoder, segmentio/encoding's json, in place for
// a body up to 64 KiB.
//
// Beside it: package wire/request writes what shim sends (messages
// spelled per dialect, request bodies), package wire/rpcerror reads the
// HTTP+JSON error bodies and any error's typed details, and the agent
// card's JSON is package agentcard's (it uses Flag, the lenient flag).
// Where a server departs from the spec and the decoder reads it anyway is
// departures.go, a function each; no other file names a server.
//
// Files:
//   - decode.go: the wire types, the decoder, frames, JSON-RPC responses,
//     tasks, send results, task pages and error frames.
//   - wiretext.go: a part's text, unescaped with one copy.
//   - ext.go: which extension a message's or an artifact's metadata and
//     data parts speak, read by package wire/extension (tool calls,
//     reasoning, parks, steers, usage, context) or as tool-event parts;
//     a part's metadata; the keys of a metadata object (Member, String).
//   - departures.go: where a server departs from the spec and the decoder
//     reads it anyway, one function each (a README row each).
//   - park.go: what a park's plain data parts say: their content, the tool
//     call they name, the answer's schema.
//   - restframe.go: HTTP+JSON stream frames (a StreamResponse, or an error
//     read by package wire/rpcerror).
//   - proto03.go: the answers of 0.3's HTTP+JSON binding, the ProtoJSON of
//     the A2A 0.3.0 proto, read by the lenient decoder with a kind-less
//     part's data read as a DataPart (only this codec does).
//
// Goroutines and locks: none; a Decoder is one goroutine's.
package wire
