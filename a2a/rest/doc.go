// Package rest is the HTTP+JSON binding of A2A (SPEC §12.3): one route per
// call under the interface URL (and /<tenant> when the card gives one),
// ProtoJSON bodies, SSE streams whose data is a bare StreamResponse, and
// errors as google.rpc.Status or application/problem+json. A codec of
// another spelling (A2A 0.3's ProtoJSON for Google's platforms) is a
// dialect's entry in package wire's spellings beside 1.0's.
//
// Files:
//   - rest.go: Transport, its routes and calls, subscribe's POST fallback,
//     its frames and error answers.
//
// Goroutines and locks: none (the POST fallback is an atomic flag).
package rest
