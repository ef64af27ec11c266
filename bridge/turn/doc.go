// Package turn runs one exchange with the remote agent for a session:
// it sends one A2A message, maps the events of the answer (and of any
// reattach, read-back or resumed approval) onto ACP session updates
// through package render, and answers the prompt. A turn can outlive its
// prompt: Send Now detaches it from the cancelled prompt and hands it to
// the next one.
//
// # The parts
//
// Turn is a thin owner: it starts the turn's goroutine and hands the
// session's calls (Cancel, Withdraw, Steer, NativeSteer, Abandon) to its
// parts, each of one job:
//
//	control   the machine under its lock: events applied, effects done,
//	          the task id, the waits on the phase; the output routed to
//	          whoever owns it now (the prompt, the grace buffer, nobody)
//	driver    the turn's goroutine: the wait for a busy chat (idleWait),
//	          the streams, their frames through the renderer, the parks
//	          asked of the person (package ask), the end recorded
//	steers    the steers folded in: posted, marked, settled
//
// Asking the person (approvals, questions, forms, withdrawn dialogs) is
// package ask, over interfaces it declares (its Output, Prompt and Mode:
// the control and the session's mode); it never sees a Turn. What the
// turn needs of the server is Env and three roles it declares: Replies
// (answer the prompt, map a client error), Thread (the session still
// open, the turns that finished meanwhile, the index record) and Modes
// (a mode change told to the editor).
//
// # The state machine
//
// A turn's state is one machine (machine.go) under one lock (control.mu):
// who owns its output (phase: attached, detached, adopting, orphaned,
// ended), the prompt that waits, the grace window's buffer and timer,
// the steers folded in, the task id and the outcome. Its transition
// table is written once, as the variable transitions in machine.go;
// machine.apply takes an event (a cancel, a steer, an adoption, a refused
// steer, the window expiring, a give-up, the end, an update to route) and
// returns effects (a prompt to answer, the buffer to hand over, the timer
// to start or stop, the task to give up, an update to deliver);
// control.apply does them. The grace timer applies its expiry under the
// same lock.
//
// The A2A events of a stream are read by the turn's goroutine (the
// driver, stream.go), rendered (frames.go: the renderer is the
// goroutine's own) and their updates routed through the machine. An
// approval is package ask's: a pure decision and a driver that asks the
// editor; its answer resumes the task in the same turn.
//
// # Files
//
//	machine.go  the state machine: phases, events, effects, transitions;
//	            the outcome, the steers folded in
//	turn.go     Turn, the owner: start, run, cancel, withdraw, abandon,
//	            Send Now's steer and _session/steering's; the session's
//	            current turn
//	env.go      Env and the roles the server plays for a turn (Replies,
//	            Thread, Modes)
//	control.go  control: the machine under its lock, the task id, the
//	            waits on the phase
//	output.go   control's output routed to whoever owns it; what the A2A
//	            client did on its own in a call (a renewed sign-in) as a
//	            notice
//	stream.go   the driver's run: the busy wait, then the A2A streams:
//	            drive, follow, reattach, read back; the end
//	frames.go   driver; each frame through the renderer: statuses,
//	            messages, artifacts, snapshots, tool calls (and the roots
//	            they need); a park asked of the person (package ask)
//	busy.go     idleWait: the wait for a chat busy elsewhere; the park a
//	            turn answers
//	steer.go    steers: posted to the server's steering queue, marked
//	            where the agent read them, settled at the turn's end
//	refused.go  a refused cancel (SPEC §16): the cancel of a turn given up,
//	            its refusal told, and the next turn's word that the
//	            earlier one is still finishing
//	session.go  Session: what a session's turns share
//
// # Goroutines
//
//	goroutine      started by      owns / does
//	turn           Start           the driver: the stream, the renderer and the fields
//	                               only it touches; waits for the session's previous
//	                               turn first; permission and elicitation calls run on
//	                               it (package ask, stdio.Conn.Call)
//	grace timer    control.apply   applies the window's expiry (its generation) under control.mu
//	CancelTask     control.apply   one per given-up task (Abandon cancels in its caller);
//	                               a refusal is kept on the session for its next turn
//	earlier check  the next turn   waits for that cancel's answer and, refused, asks
//	                               whether the task still runs (refused.go)
//	dialog         package ask     two per open dialog (a permission request, a form):
//	watchers                       one ends it when its prompt is cancelled, one reads the
//	                               operator API's summary of the chat while it is open
//
// Cancel, Withdraw, Steer, NativeSteer and Abandon run on the caller's goroutine
// (the session's queue, or shutdown).
//
// # Locks
//
// control.mu guards the machine, the timer and the phase channel; under
// it a turn queues its updates and its prompt's reply on the stdio.Conn (so
// that nothing passes a handed-over buffer or a cancel's answer;
// queueing never waits). Session.mu is taken alone. No lock is held while
// waiting for the editor: an update waits for room after control.mu is
// let go.
//
// The files reference each other one way, from the owner down: turn.go;
// stream.go; frames.go and busy.go; steer.go and output.go; control.go;
// env.go; session.go and machine.go. A session knows its current turn
// only as something that ends.
package turn
