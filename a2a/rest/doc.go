// Package rest is the HTTP+JSON binding of A2A (SPEC §12.3): one route per
// call under the interface URL (and /<tenant> when the card gives one),
// ProtoJSON bodies, SSE streams whose data is a bare StreamResponse, and
// errors as google.rpc.Status or application/problem+json.
//
// The calls are the same in every version; a codec per version names the
// routes and spells the bodies (codecs): 1.0's ProtoJSON, and 0.3's, whose
// routes are its proto's google.api.http paths under /v1 (/v1/message:send,
// /v1/tasks/{id}, the extended card at /v1/card) and whose bodies are the
// ProtoJSON of the 0.3.0 proto (a message's parts as content, ROLE_USER, a
// data part as {"data": {"data": …}}; request.MessageProto03 and wire's
// *Proto03 readers), as the SDKs' 0.3 REST servers and Google's Vertex AI
// Agent Engine and Gemini Enterprise speak it. The card's dialect picks
// the codec.
//
// Files:
//   - rest.go: the codecs, Binding, its routes and calls, subscribe's
//     POST fallback, its frames and error answers.
//
// Goroutines and locks: none (the POST fallback is an atomic flag).
package rest
