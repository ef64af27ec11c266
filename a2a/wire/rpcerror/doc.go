// Package rpcerror reads the errors an A2A agent answers beside JSON-RPC's
// own as the JSON-RPC errors they stand for: an HTTP+JSON error body, a
// google.rpc.Status (AIP-193) or an RFC 9457 problem, its code from its
// google.rpc.ErrorInfo reason, its problem type, its status name or its
// HTTP status (Decode, Body); and the typed details any error may carry
// (A2A 1.0.1: google.rpc.ErrorInfo and friends), the reason and the notes
// a person reads (Details). Texts and bodies are kept bounded.
//
// Files:
//   - rpcerror.go: Body, Decode, the reason, status and HTTP code tables.
//   - details.go: Details, the typed details of an error.
//
// Goroutines and locks: none.
package rpcerror
