// Package bridge is the ACP side of shim: the sessions, and the turn
// driver that maps A2A events onto ACP session updates. The wire (types,
// the stdio stream, the one connection to the editor) is package acp.
//
// # Files
//
//	server.go      Server, dispatch, replies, errors, the thread index
//	session.go     a session and its serial queue
//	auth.go        initialize, authenticate, logout, the A2A client
//	prompt.go      ACP prompt content to an A2A message; titles, ids
//	turn.go        the turn: its state, session/prompt, session/cancel, run
//	turn_output.go who owns the output (emit, finish, cancel, adopt, orphan)
//	turn_stream.go the A2A streams of a turn (drive, follow, consume, status)
//	turn_text.go   answer text, thoughts and files as shown
//	turn_busy.go   the wait for a chat busy elsewhere; the park a turn answers
//	steering.go    Send Now: steers folded into a detached turn
//	parks.go       approvals (permission requests) and questions
//	tools.go       tool cards
//	history.go     session/list, load, resume, close; the console hand-off
//	replay.go      a thread's past turns as updates
//
// # Goroutines
//
//	goroutine           started by                 owns / does
//	reader              acp.Conn.Start (jsonrpc2)   reads stdin in order; runs Server.Handle, which never waits
//	writer              acp.NewConn (queue)         the only writer to stdout; drains the one output queue
//	request             Server.Handle               initialize-free calls that may wait (authenticate,
//	                                                logout, session/new, session/list): one each
//	session queue       serial.push                 one per session id with work: prompt, cancel, load,
//	                                                resume, close of that id, in arrival order; forgotten
//	                                                when idle and the id is no session
//	turn                Server.prompt               the turn's stream, its tool cards and text state
//	                                                (fields "only the turn's goroutine touches"); it waits
//	                                                for the session's previous turn first; permission
//	                                                calls run on it (acp.Conn.Call), never on the reader
//	grace timer         steer.Window.Detach         closes the window; orphans the turn
//	CancelTask          turn.orphan / setTask       one call per given-up task
//	title fetchers      Server.fillTitles           at most titleFetchers at a time
//
// # Locks
//
// The order is Server.mu → session.mu → serial.mu (enqueue and dropQueue
// hold Server.mu while they take a queue's lock); turn.mu → the window's
// own lock and the output queue's lock (a turn queues its updates and its
// prompt's reply under turn.mu so that nothing passes a handed-over buffer
// or a cancel's answer; queueing never waits). No lock is held while
// waiting for the editor: an update waits for room in the queue after
// turn.mu is let go, and a reply never waits (so a cancel never waits on
// stdout). Server.connectMu is taken alone, around building the A2A
// client. No other lock nests.
//
// # Shutdown
//
// When stdin ends the editor is gone: the output queue is dropped, every
// running turn is given up (its context cancelled, its task cancelled
// with the A2A client's own timeout and retries) and waited for.
package bridge
