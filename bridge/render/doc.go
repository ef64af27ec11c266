// Package render is shim's one mapping from A2A values to ACP updates:
// a live turn's events and a past turn read back (the updates about a
// session, its title, usage, commands, modes, are package session's). It
// is pure: no server, no turn, no lock, no network, no goroutine.
//
// A Renderer maps one turn through a few values, each with one job and
// only what its mapping remembers, composed and wired to one output by
// the Renderer itself (a thin owner):
//
//	Answer     the answer text: the text shown per artifact, the task's
//	           status answer, blocks, message ids, thoughts, files, a
//	           failed turn's error (its line only in a replay), a
//	           question, steer markers
//	Tools      the tool calls, the one value that decides how a call
//	           looks (with toolview): opened, updated, ended, settled,
//	           replayed; terminals; plans; the roots its paths resolve
//	           against
//	Approvals  the approvals asked on the calls' cards: the card of the
//	           call one is about, else one it opens; pending, running
//	           again, ended "Denied". Not kept in the Renderer: taken
//	           from it (Renderer.Approvals) over the Tools' calls table,
//	           roots and output
//	Snapshots  task snapshots and progress notes: the messages shown, the
//	           artifacts snapshots carried, the note held for one frame
//	Notices    what shim says about itself, and progress notes: notices
//	           to a client that draws them, else as before
//	Past       a past turn shown in the order it happened, through the
//	           Answer's and the Tools' mappings
//
// A Renderer and its values are used by one goroutine at a time (the
// turn's, or the replay's); what a method renders is what it returns,
// valid until the next rendering call, and is routed by its caller (the
// prompt, a detached turn's buffer, nobody; or sent as replay). What the
// client draws (Draws) is read once from its capabilities and passed on
// as it is.
//
// Tool paths resolve against the roots the caller gives (package
// toolpath's Roots, taken by RootsOf): a call that names a project they
// do not know is the caller's to act on (Tools.Unknown: it reloads the
// roots, then Tools.SetRoots), never a load here. Every ACP session
// update shim writes is built here, in a package below it (question,
// notice, session) or by an acp constructor; the ACP errors a failed turn
// or an A2A call answers with are package failure's. render imports the
// A2A vocabulary (a2a) and nothing of the A2A client or below it, nothing
// of bridge above it; its packages below it import nothing of it.
//
// # Files
//
//	render.go    Renderer (New, Renew, the wiring), Draws
//	out.go       what the values share: Out, the output (sink), the
//	             message ids (shim's own, an artifact's, a message's)
//	answer.go    Answer: answer text (what was shown of it is package
//	             shown's: a length and a hash), thoughts, files, a failed turn's
//	             error (the failure line is a replay's, past.go), a
//	             park's question as answer text (its words are package
//	             question's),
//	             steer markers; the blank-line rule (blocks); the message
//	             id of every chunk (SPEC §14: an artifact's made unique
//	             with its task's, a message's own)
//	tools.go     Tools: tool calls live (opened, updated, ended), settled,
//	             replayed; a todo tool's plan; the pending call a park
//	             names; a call a park's own card stood for taking it; a
//	             project the roots do not know (Unknown), newer roots
//	             (SetRoots)
//	call.go      one call and the calls table: what the agent says of a
//	             call, a row per kind (kindRules), per phase (toolPhases);
//	             its title, input, locations (shown) and terminal blocks
//	             (a command's call as a terminal)
//	snapshot.go  Snapshots: task snapshots (SPEC §12.4): status text as
//	             replaces, messages shown by id; progress notes held
//	             until the next frame tells what they are (§12.8)
//	notices.go   Notices: what shim says about itself in a turn (the
//	             notices are package notice's), to a client that
//	             advertised notices, else a thought, an answer line or
//	             nothing, as before (SPEC §14); progress notes
//	approval.go  Approvals: an approval's card (SPEC §18): the card of the
//	             call it is about, else one it opens; pending while asked,
//	             then running (approved) or ended "Denied"
//	past.go      Past: a past turn, in the order it happened; how a turn's
//	             end shows, live and replayed (closing)
//	pastpark.go  what a past turn's history says besides words, calls and
//	             the answer: thoughts, each park's question and its answer,
//	             an approval as its call's card with its outcome (SPEC §18)
//
// Tests: golden_test.go renders cases into testdata/*.golden (go test
// -update rewrites them), each update checked against the ACP schema.
package render
