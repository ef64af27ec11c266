// Package bridge is the ACP side of shim: the server on one editor
// connection, its sessions and their queues, and the handlers of the ACP
// methods. The wire (types, the stdio stream, the one connection to the
// editor) is package acp; the A2A client package a2a. Below bridge, with
// one-way imports (bridge → turn → render and history → past):
//
//	bridge/turn      a turn: one state machine under one lock (the steer
//	                 window folded in), the A2A streams, approvals, forms
//	bridge/render    the pure renderer: A2A values to ACP updates and errors
//	bridge/history   a thread's past turns behind one Source; session/list's rows
//	bridge/past      a past turn as read back (the value history reads and render shows)
//	bridge/toolview  a tool call's kind, title, locations, diff, plan
//
// # Files
//
//	server.go    Server, Options, Serve; routes (where each ACP call runs,
//	             under which context: a request's trace context goes on
//	             every A2A call it causes), replies, notifications and the
//	             notices about a session outside a turn (SPEC §14), the
//	             thread index, the project roots, additional directories
//	queue.go     a session's serial queue
//	lifecycle.go initialize, authenticate, logout; the A2A client, built
//	             lazily and probed once
//	signin.go    signing in from the editor: the OAuth flow's page shown
//	             as a URL elicitation, completed or withdrawn
//	prompt.go    session/prompt (a turn of package turn, or a steer),
//	             session/cancel; the turns' Host; ACP prompt content as an
//	             A2A message; the editor-context preamble; context ids
//	steering.go  Send Now and _session/steering routed to the session's turn
//	commands.go  the card's skills as commands, /status, skill hints (§11.1)
//	modes.go     the permissions and model options, mirrored as modes
//	             (§11.2); session/set_model of older clients (§14)
//	sessions.go  session/list, load, resume, close, delete; past turns
//	             replayed through the renderer; the console hand-off
//
// Each call of the client's runs under its request's context (acp/stdio):
// the client may cancel it ($/cancel_request). session/new, session/list,
// session/load, session/resume and authenticate read the agent under it
// and, cancelled, answer -32800 having opened no session and written no
// index entry; a prompt cancelled so is given up (turn.Turn.Withdraw).
//
// The turn's state machine is package turn's (its transition table is
// the variable transitions in bridge/turn/machine.go).
//
// # Goroutines
//
//	goroutine           started by                 owns / does
//	reader              stdio.Conn.Start (jsonrpc2) reads stdin in order; runs the routes (acp's typed calls), which never wait
//	writer              stdio.NewConn (queue)       the only writer to stdout; drains the one output queue
//	request             routes                      initialize-free calls that may wait (authenticate,
//	                                                logout, session/new, session/list): one each
//	session queue       serial.push                 one per session id with work: prompt, cancel, load,
//	                                                resume, close, delete, set_mode, set_config_option,
//	                                                _session/steering of that id, in arrival order; forgotten
//	                                                when idle and the id is no session
//	turn                turn.Start                  one per prompt: its stream, renderer and dialogs (package turn)
//	grace timer,        package turn                a cancelled turn's window; one CancelTask per given-up
//	CancelTask, dialog                              task; a dialog's call withdrawn when its prompt is
//	watchers                                        cancelled or its park answered elsewhere
//	title fetchers      history.List                at most 4 at a time, waited for
//
// # Locks
//
// Server's state is under four locks, one per concern, each taken alone:
// Server.clientMu (the A2A client, probed), Server.sessMu (the sessions
// and their queues), Server.infoMu (what initialize said of the client,
// the context-id prefix, the once-only notes) and Server.cmdMu (the
// command list last sent). The order is Server.sessMu → serial.mu
// (enqueue and dropQueue hold sessMu while they take a queue's lock).
// Server.connectMu is held around building the A2A client, and takes
// Server.clientMu inside it to read and set the client. A turn's locks
// (turn.Turn.mu, turn.Session.mu) are never taken under a Server lock,
// nor a Server lock under them. No lock is held while waiting for the
// editor: a reply never waits (so a cancel never waits on stdout).
//
// # Shutdown
//
// When stdin ends the editor is gone: the output queue is dropped, every
// running turn is given up (its context cancelled, its task cancelled
// with the A2A client's own timeout and retries) and waited for.
package bridge
