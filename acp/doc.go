// Package acp is the Agent Client Protocol as shim speaks it: the wire
// types (one file per feature), the error codes, the typed dispatch of
// what the client sends, the newline-delimited stdio stream and the one
// connection that writes to the editor.
//
// Field names follow the official ACP v1 schema; every value shim writes
// is validated against it in the tests. The package knows nothing of A2A
// or of shim's turns: it imports none of shim's packages but internal
// helpers, and it decides nothing about where a call runs.
//
// # Files
//
//	methods.go     the method names
//	dispatch.go    Handler (one interface per method family: Lifecycle,
//	               Sessions, SessionWork), the method table (each method's
//	               params type and what it needs of them), SessionCall
//	trace.go       a request's _meta: its W3C trace context, handed on in
//	               the context the request is served with (TraceOf)
//	initialize.go  initialize and authenticate: params, capabilities (the
//	               client's: forms, terminals, notices), result
//	session.go     session/new, load, resume, close, delete, list (with
//	               their additional directories)
//	prompt.go      session/prompt: its blocks (text unquoted with one copy), the result
//	config.go      config options, modes, session/set_model, commands,
//	               _session/steering
//	update.go      the session updates as types (chunks with their
//	               messageId, notices); the tool kinds and statuses
//	content.go     content blocks
//	permission.go  session/request_permission
//	elicitation.go elicitation/create forms, a JSON Schema reduced to one
//	plan.go        the plan update
//	terminal.go    the terminal block and its _meta
//	tags.go        the "type" and "sessionUpdate" discriminators as types
//	errors.go      the codes and the error constructors
//	conn.go        Conn: Start, Reply, Send, Notify, Pace
//	cancel.go      $/cancel_request both ways: each client request's own
//	               context (ended when the client cancels it, -32800 when it
//	               then fails); shim's calls (Ask, Call) withdrawn
//	stream.go      the stdin line reader (64 MiB cap, -32700/-32600 answers),
//	               a big request's params stashed out of jsonrpc2's sight
//	queue.go       the bounded output queue and its one writer
//	long.go        a tool update's long fields written into its line in place
//	chunks.go      text chunks of one message (messageId) merged while
//	               they wait; a chunk of text and a plain tool_call written
//	               without reflection, byte for byte as the encoder writes
//	               them (held to it by tests and fuzzing)
//
// # Adding a method
//
// A line in the table of dispatch.go (the name, what the params need, the
// family's method), the params type (with a session() method when it
// names a session, and RequestMeta embedded so that its trace context is
// read) and the method on the family's interface; a new family is a new
// interface embedded in Handler. A method the client may send only once a
// capability was agreed checks it in its handler.
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
// package, and appending under it never waits, so a caller may post
// while holding a lock of its own (bridge's turn.mu → queue.mu); a paced
// caller appends, lets its own locks go, then waits for room on the cond
// (which lets queue.mu go while it waits). jsonrpc2 holds its send lock
// around WriteObject (shim's calls to the client), which takes queue.mu
// and may wait for room: jsonrpc2's send lock → queue.mu, and nothing
// the other way. inflight.mu guards the client's requests not answered
// yet; it is taken alone (a context's cancel runs after it is let go).
// Conn's own state is atomic; the stream's stash and nonce are the
// reader's.
package acp
