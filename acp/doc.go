// Package acp is the Agent Client Protocol as shim speaks it: the wire
// types (one file per feature), the error codes, and the typed dispatch
// of what the client sends (one handler per family of methods). The
// lines written by hand are acp/encode's; the stdio connection that
// reads the client and writes to it is acp/stdio's.
//
// Field names follow the official ACP v1 schema; every value shim writes
// is validated against it in the tests. The types are written by hand
// rather than generated from the schema: the README's layout notes give
// the measurement. The package knows nothing of A2A or of shim's turns:
// it imports none of shim's packages but internal helpers, and it
// decides nothing about where a call runs.
//
// # Files
//
//	methods.go     the method names, Request and ID, $/cancel_request's params
//	dispatch.go    Handler (one interface per method family: Lifecycle,
//	               Sessions, SessionWork), the method table (each method's
//	               params type and what it needs of them), SessionCall;
//	               RouteOf and Route.Deliver, which the connection calls,
//	               and Refuser, the connection's answer to params refused
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
//	content.go     content blocks, a tool call's content and locations,
//	               RawJSON
//	permission.go  session/request_permission
//	elicitation.go elicitation/create forms, a JSON Schema reduced to one
//	plan.go        the plan update
//	terminal.go    the terminal block and its _meta
//	tags.go        the "type" and "sessionUpdate" discriminators as types
//	errors.go      the codes and the error constructors
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
// # Goroutines and locks
//
// None: the package starts no goroutine and holds no lock. Route.Deliver
// runs on its caller's goroutine (acp/stdio's reader) and calls the
// Handler there; a Handler's methods must not wait.
package acp
