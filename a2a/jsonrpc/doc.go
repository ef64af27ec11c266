// Package jsonrpc is the JSON-RPC binding of A2A, in both dialects: 1.0
// (SendMessage, GetTask, …, the card's tenant in every request's params)
// and 0.3 (message/send, tasks/get, …). Each dialect is a table of its
// method names (dialects); package wire spells the messages, package
// binding carries them.
//
// Files:
//   - jsonrpc.go: Binding, its calls and streams, Frames.
//
// Goroutines and locks: none (the request ids are an atomic counter).
package jsonrpc
