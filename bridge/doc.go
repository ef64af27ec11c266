// Package bridge is the ACP side of shim: the sessions, and the turn
// driver that maps A2A events onto ACP session updates. The wire (types,
// the stdio stream, the one connection to the editor) is package acp.
//
// # Files
//
//	server.go      Server, routes (where each ACP call runs), replies, errors, the thread index
//	session.go     a session and its serial queue
//	auth.go        initialize, authenticate, logout, the A2A client
//	prompt.go      ACP prompt content to an A2A message; titles, ids
//	turn.go        the turn: its fields, session/prompt, session/cancel, run
//	turn_state.go  the turn's state machine (below)
//	turn_output.go the output routed to its owner (emit, finish, cancel, adopt, orphan)
//	turn_stream.go the A2A streams of a turn (drive, follow, consume, status)
//	turn_text.go   the renderer's output routed; usage and context kept
//	turn_snapshot.go a task snapshot in a stream (§12.4)
//	text.go        what was shown of an artifact's text (a length and a hash), so a
//	               replace adds only the new part
//	chunks.go      answer text sent where queued chunks of one artifact merge
//	render.go      the pure renderer: a2a values to ACP updates (answer
//	               text, thoughts, files, the failure line, a question, a
//	               past turn's answer); the blank-line rule (blocks)
//	render_snapshot.go snapshots: status text as replaces, messages shown by id;
//	               a working snapshot's first text held until it is a note or an answer
//	render_tools.go tool cards: a row per kind (cardRules), per phase
//	               (toolPhases); live (opened, updated, ended) and replayed;
//	               a todo tool's plan; command cards as terminals
//	turn_busy.go   the wait for a chat busy elsewhere; the park a turn answers
//	steering.go    Send Now: steers folded into a detached turn; _session/steering
//	               into a running one, through the same post
//	commands.go    the card's skills as commands, /status, skill hints (§11.1)
//	modes.go       the permissions and model options, mirrored as modes (§11.2)
//	parks.go       approvals (permission requests) and questions
//	forms.go       questions and forms as elicitation/create forms
//	parkdata.go    a park's data parts: key: value lines, the tool call's card,
//	               the answer's schema as a form (§12.8)
//	tools.go       the live turn's tool events; the roots resolver
//	history.go     session/list, load, resume, close, delete; the console hand-off
//	replay.go      a thread's past turns, in order, through the renderer
//
// # The turn's state
//
// One machine (turnState, under turn.mu), its phase named by who owns
// the output:
//
//	attached → detached   cancel with a grace window (the prompt answers "cancelled")
//	attached → orphaned   cancel with no grace
//	detached → adopting   a prompt arrives with a steer (the window holds)
//	adopting → attached   the server took the steer: the buffer is handed over in order
//	adopting → orphaned   the server refused it, or nothing runs there yet
//	detached → orphaned   the window expired; close; shutdown
//	any      → ended      the stream is over; a prompt adopting then gets the kept outcome
//
// Leaving for orphaned the first time cancels the task. The park (a task
// in input-required) is the session's (session.parkedTask): a turn takes
// it as it starts, gives it back when it sent nothing, and sets it when it
// ends on a question. TestTurnStateTransitions walks the table.
//
// # Goroutines
//
//	goroutine           started by                 owns / does
//	reader              acp.Conn.Start (jsonrpc2)   reads stdin in order; runs the routes (acp's typed calls), which never wait
//	writer              acp.NewConn (queue)         the only writer to stdout; drains the one output queue
//	request             routes                      initialize-free calls that may wait (authenticate,
//	                                                logout, session/new, session/list): one each
//	session queue       serial.push                 one per session id with work: prompt, cancel, load,
//	                                                resume, close, delete, set_mode, set_config_option,
//	                                                _session/steering of that id, in arrival order; forgotten
//	                                                when idle and the id is no session
//	turn                Server.prompt               the turn's stream, its tool cards and text state
//	                                                (fields "only the turn's goroutine touches"); it waits
//	                                                for the session's previous turn first; permission
//	                                                and elicitation calls run on it (acp.Conn.Call), never on the reader
//	grace timer         steer.Window.Detach         closes the window; orphans the turn
//	CancelTask          turn.orphan / setTask       one call per given-up task
//	form watcher        turn.elicit                 ends a form's call when its prompt is cancelled; gone with the call
//	title fetchers      Server.fillTitles           at most titleFetchers at a time
//
// # Locks
//
// Server's state is under four locks, one per concern, each taken alone:
// Server.authMu (the A2A client, authOK), Server.sessMu (the sessions and
// their queues), Server.infoMu (what initialize said of the client, the
// context-id prefix, the once-only notes) and Server.cmdMu (the command
// list last sent). The order is Server.sessMu →
// serial.mu (enqueue and dropQueue hold sessMu while they take a queue's
// lock); session.mu is taken alone; turn.mu → the window's
// own lock and the output queue's lock (a turn queues its updates and its
// prompt's reply under turn.mu so that nothing passes a handed-over buffer
// or a cancel's answer; queueing never waits). No lock is held while
// waiting for the editor: an update waits for room in the queue after
// turn.mu is let go, and a reply never waits (so a cancel never waits on
// stdout). Server.connectMu is held around building the A2A client, and
// takes Server.authMu inside it to read and set the client. No other lock
// nests.
//
// # Shutdown
//
// When stdin ends the editor is gone: the output queue is dropped, every
// running turn is given up (its context cancelled, its task cancelled
// with the A2A client's own timeout and retries) and waited for.
package bridge
