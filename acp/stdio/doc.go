// Package stdio is the ACP connection on stdin and stdout, and the only
// way to the editor: the newline-delimited line reader, the bounded output
// queue and its one writer, replies, shim's calls to the client and the
// session updates, and $/cancel_request both ways. What the client sends
// is handed to an acp.Handler through acp's method table (acp.RouteOf);
// the lines shim writes by hand are acp/encode's.
//
// # Files
//
//	conn.go     Conn: Start, Reply, Send, Notify, Pace; a request handed
//	            to its acp route (Refuse), $/cancel_request from the client
//	calls.go    shim's calls to the client (Ask, Call, Outgoing withdrawn
//	            with $/cancel_request) and NotifyClient
//	inflight.go each client request's own context, ended when the client
//	            cancels it (-32800 when it then fails) or once it is answered
//	stream.go   the stdin line reader (64 MiB cap, -32700/-32600 answers),
//	            a big request's params stashed out of jsonrpc2's sight
//	queue.go    the bounded output queue and its one writer; where the
//	            last queued text chunk ends, for merging
//	chunks.go   text chunks of one message (messageId) merged while they
//	            wait (64 KiB cap)
//
// # Goroutines
//
//	goroutine  started by                owns / does
//	reader     Conn.Start (jsonrpc2)     reads stdin line by line (stream.ReadObject); answers
//	                                     the lines that are no JSON-RPC message; decodes each
//	                                     request's params and calls the Handler, in arrival
//	                                     order; the stashed params are its alone
//	writer     NewConn (queue.writeLoop) the only writer to stdout: takes whatever has queued
//	                                     and writes it with one write
//	callers    the Handler's owner       any goroutine may Reply, Send, SendText, Notify, Pace,
//	                                     NotifyClient, Ask and Call; Call (Outgoing.Wait) waits
//	                                     for the client's answer on the caller's goroutine, never
//	                                     on the reader
//
// The reader waits only when it answers a bad line and the queue is full
// (an editor that sends bad lines and reads nothing is slowed down, not
// buffered for); the Handler's methods must not wait at all.
//
// # Locks
//
// One lock, queue.mu (with its cond), guards the output queue: posting,
// merging a text chunk, waiting for room and the writer's taking of the
// queue. It is never held while writing to stdout or calling out of the
// package but into acp/encode (which appends a line and never waits), and
// appending under it never waits, so a caller may post
// while holding a lock of its own (bridge's turn.mu → queue.mu); a paced
// caller appends, lets its own locks go, then waits for room on the cond
// (which lets queue.mu go while it waits). jsonrpc2 holds its send lock
// around WriteObject (shim's calls to the client), which takes queue.mu
// and may wait for room: jsonrpc2's send lock → queue.mu, and nothing
// the other way. inflight.mu guards the client's requests not answered
// yet; it is taken alone (a context's cancel runs after it is let go).
// Conn's own state is atomic; the stream's stash and nonce are the
// reader's.
package stdio
