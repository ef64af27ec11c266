// Package benchagent is the bench's agent: the local A2A server the bench
// drives shim against. It serves an A2A 1.0 card (with an ETag, answering
// 304 to a request that names it), a JSON-RPC endpoint whose
// SendStreamingMessage streams what the prompt's text asks for (a Spec,
// written into the prompt by Spec.Prompt; so concurrent sessions can
// stream at once), and the one operator route replay reads
// (/api/chat/sessions/{id}/turns, the thread SetTurns prepares). Every
// other operator route answers 404, which shim reads as "absent", and is
// counted (OperatorGets). Standard library only, and the thread's body
// from internal/turnsbody.
//
// Goroutines: one serving (New, NewWith: net/http's Serve or ServeTLS, and
// its goroutine per connection); Close ends them. One lock, the Server's
// over the thread /turns serves; a gated stream waits on a channel (Open),
// never under the lock.
package benchagent
