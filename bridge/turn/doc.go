// Package turn runs one exchange with the remote agent for a session:
// it sends one A2A message, maps the events of the answer (and of any
// reattach, read-back or resumed approval) onto ACP session updates
// through package render, and answers the prompt. A turn can outlive its
// prompt: Send Now detaches it from the cancelled prompt and hands it to
// the next one.
//
// # The state machine
//
// A turn's state is one machine (machine.go) under one lock (Turn.mu):
// who owns its output (phase: attached, detached, adopting, orphaned,
// ended), the prompt that waits, the grace window's buffer and timer,
// the steers folded in, the task id and the outcome. Its transition
// table is written once, as the variable transitions in machine.go;
// machine.apply takes an event (a cancel, a steer, an adoption, a refused
// steer, the window expiring, a give-up, the end, an update to route) and
// returns effects (a prompt to answer, the buffer to hand over, the timer
// to start or stop, the task to give up, an update to deliver); Turn.apply
// does them. The grace timer applies its expiry under the same lock.
//
// The A2A events of a stream are read by the turn's goroutine
// (stream.go), rendered (frames.go: the renderer is the goroutine's own)
// and their updates routed through the machine. An approval (approval.go)
// is a pure decision (decide: from the park, the call it names, the
// session's mode and whether the message asked to bypass) and a driver
// that asks the editor and resumes the task with the answer.
//
// # Files
//
//	machine.go  the state machine: phases, events, effects, transitions
//	turn.go     Turn, Env, Host: start, run, the output routed, cancel,
//	            give up, the task id, the waits on the phase; what the A2A
//	            client did on its own in a call (a renewed sign-in) as a
//	            notice
//	stream.go   the A2A streams: drive, follow, reattach, read back
//	frames.go   each frame through the renderer: statuses, messages,
//	            artifacts, snapshots, tool calls (and the roots they need)
//	approval.go an approval: the decision and its driver
//	park.go     questions and forms (as the editor's forms, else as text)
//	dialog.go   a park's dialog in the editor, withdrawn ($/cancel_request)
//	            once it is not needed: the prompt cancelled, the turn over,
//	            the park answered elsewhere
//	busy.go     the wait for a chat busy elsewhere; the park a turn answers
//	steer.go    Send Now and _session/steering: steers posted, marked,
//	            settled at the turn's end
//	session.go  Session: what a session's turns share
//
// # Goroutines
//
//	goroutine      started by      owns / does
//	turn           Start           the stream, the renderer and the fields "only the
//	                               turn's goroutine touches"; waits for the session's
//	                               previous turn first; permission and elicitation calls
//	                               run on it (stdio.Conn.Call)
//	grace timer    Turn.apply      applies the window's expiry (its generation) under Turn.mu
//	CancelTask     Turn.apply      one per given-up task (Abandon cancels in its caller)
//	dialog         Turn.dialog     two per open dialog (a permission request, a form):
//	watchers                       one ends it when its prompt is cancelled, one reads the
//	                               operator API's summary of the chat while it is open
//
// Cancel, Withdraw, Steer, NativeSteer and Abandon run on the caller's goroutine
// (the session's queue, or shutdown).
//
// # Locks
//
// Turn.mu guards the machine, the timer and the phase channel; under it
// a turn queues its updates and its prompt's reply on the stdio.Conn (so
// that nothing passes a handed-over buffer or a cancel's answer;
// queueing never waits). Session.mu is taken alone. No lock is held while
// waiting for the editor: an update waits for room after Turn.mu is let
// go.
package turn
