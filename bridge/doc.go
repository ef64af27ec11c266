// Package bridge is the ACP side of shim: the server on one editor
// connection, the handlers of the ACP methods over a session store, and
// where each session's calls run (its queue). The wire (types, the stdio stream, the one connection to the
// editor) is package acp; the A2A client package a2a. Below bridge, with
// one-way imports (bridge → turn → render and history → past; sessions →
// turn and history; remote and editor → render; slash and message import
// none of them):
//
//	bridge/turn      a turn: one state machine under one lock (the steer
//	                 window folded in), the A2A streams, approvals, forms
//	bridge/render    the pure renderer: A2A values to ACP updates and errors
//	bridge/history   a thread's past turns behind one Source; session/list's rows
//	bridge/past      a past turn as read back (the value history reads and render shows)
//	bridge/toolview  a tool call's kind, title, locations, diff, plan
//	bridge/slash     the card's skills as the editor's "/" commands
//	bridge/message   ACP prompt content as the parts of an A2A message
//	bridge/editor    the editor as initialize described it: its name, what
//	                 it draws, initialize's answer, context ids
//	bridge/remote    the remote agent: the A2A client built lazily and
//	                 probed once, its card, the agent's name
//	bridge/sessions  the session store: the open sessions, what was shown
//	                 of each thread, the thread index, the project roots
//
// # Files
//
// Server is routes over a session store and small values with one job
// each, composed once by newServer; none of them calls up into another's
// owner, and each gets only the values it uses.
//
//	server.go    Server (the values composed), Serve, the shutdown
//	options.go   Options: what cmd/shim configures
//	routes.go    routes: where each ACP call runs, under which context
//	             (callContext: a request's trace context goes on every
//	             A2A call it causes); thin handlers; session/new, close,
//	             delete
//	queue.go     queues: where a session's calls run, one serial queue
//	             per session id with work
//	out.go       out: replies and session updates to the editor, and the
//	             connection's lifetime
//	notices.go   notices: about a session outside a turn (SPEC §14)
//	signin.go    access: the auth methods offered, authenticate, logout;
//	             signing in from the editor (the OAuth flow's page shown
//	             as a URL elicitation, completed or withdrawn)
//	prompt.go    prompts: session/prompt (a turn of package turn, or a
//	             steer), session/cancel; the turns' Host; the
//	             editor-context preamble
//	steering.go  steering: Send Now and _session/steering routed to the
//	             session's turn
//	commands.go  commands: the card's commands (package slash) sent and
//	             sent again when the card changes, /status, skill hints
//	             (§11.1)
//	modes.go     modes: the permissions and model options, mirrored as
//	             modes (§11.2); session/set_model of older clients (§14)
//	archive.go   archive: session/list, load, resume; past turns replayed
//	             through the renderer
//	handoff.go   the console hand-off claimed on session/new (§4.2)
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
//	reading ahead       the first initialize        Options.Answered, once, after its answer (sends nothing)
//
// # Locks
//
// Each value keeps its own state under its own lock: queues.mu (the
// sessions' queues), commands.mu (the command list last sent) and
// signInPage.mu (one sign-in's page). They are taken alone, but for one
// order: queues.mu → sessions.Store.mu and queues.mu → serial.mu (enqueue
// and drop hold queues.mu while they read whether the id is a session and
// take a queue's lock). The locks of the remote agent (package remote),
// the editor (package editor) and the session store are never held while
// one of this package's is taken. A turn's locks (turn.Turn.mu,
// turn.Session.mu) are never taken under a lock of this package, nor one
// of this package's under them. No lock is held while waiting for the
// editor: a reply never waits (so a cancel never waits on stdout).
//
// # Shutdown
//
// When stdin ends the editor is gone: the output queue is dropped, every
// running turn is given up (its context cancelled, its task cancelled
// with the A2A client's own timeout and retries) and waited for.
package bridge
