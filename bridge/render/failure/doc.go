// Package failure is the ACP errors a request fails with when the agent
// fails it (SPEC §13): a failed turn's (Failed), an A2A client error's
// (CallError: unreachable, refused token, refused card, unsupported, an
// RPC error with its reason, …), and any other with its state (Error).
// The message names the agent and says what happened, cut; the data
// carries the state, the task id and the detail. Package render answers a
// failed turn with it, bridge/turn a turn that could not run, and
// bridge/remote a failed call. It imports the A2A and ACP vocabularies
// and internal text helpers, nothing of bridge.
//
// # Files
//
//	failure.go  Error, Failed, CallError; what an error's message and
//	            data.detail keep of the agent's words
//
// # Goroutines and locks
//
// None: the package is pure.
package failure
