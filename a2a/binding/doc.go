// Package binding is what every A2A binding shares: the HTTP connection
// to one agent (shim's headers per dialect, the credential's origin rule,
// the unary client with its retries, the read bounds, the frame trace),
// the event stream of a streaming call with the open-stream tail written
// once (an SSE body read by the binding's Frames, or a plain body's events),
// a non-streaming task polled, and the Binding interface each binding
// implements (packages jsonrpc, rest and gemini).
//
// Files:
//   - binding.go: the Binding interface, a listing's query and page.
//   - conn.go: Conn (Options, requests with shim's headers and the
//     credential, Call: one unary call's tail, ReadBody, errors, the
//     dedicated connection of a task).
//   - stream.go: Stream, Frames, Open (the open-stream tail), Next; a
//     stream that shares reads a plain chunk of answer text in place.
//   - repeat.go: a plain chunk whose frame repeats the last one's bytes
//     but for its text, given without a decode. Still one decode path:
//     the shortcut is proven (the text's place found, then checked by the
//     decoder on the next frame of the shape) and gives what the decoder
//     gives (FuzzStreamRepeat holds the two side by side).
//   - transport.go: the transport (NewTransport: pooled, HTTP/2 over TLS
//     when offered, room for requests sent at once) and its Dialer, which
//     opens connections ahead of them over plain HTTP (Preconnect).
//   - stall.go: the silence timer of a stream.
//   - poll.go: a non-streaming agent's task polled as a stream.
//   - trace.go: the frame trace, secrets redacted.
//
// Goroutines: a stream's stall timer (time.AfterFunc) cancels its context
// after a silence; the drain after a final frame has a timer of its own,
// and so has Close of a finished stream, which reads the rest of its body
// on a goroutine of its own (waited for up to drainWait). Preconnect
// opens each connection ahead on a goroutine, which tells the requests
// waiting when its handshake ends (the first open one serves); a timer
// closes it if no request took it. A Stream is read by one goroutine;
// Close may come from another. Locks: tracer.mu, stallReader.mu and
// Dialer.mu, leaves.
package binding
