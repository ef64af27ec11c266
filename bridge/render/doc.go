// Package render is shim's one mapping from A2A values to ACP updates:
// a live turn's events, a past turn read back, and the updates about a
// session (its title, usage, commands, modes). It is pure: no server, no
// turn, no lock, no network, no goroutine. A Renderer holds only what the
// mapping of one turn remembers (the text shown per artifact, the open
// tool calls, the snapshot and note bookkeeping) and is used by one
// goroutine at a time; what comes out (Out) is routed by its caller (the
// prompt, a detached turn's buffer, nobody; or sent as replay).
//
// Tool paths resolve against a roots snapshot the caller gives (Roots):
// a call that names a project the snapshot does not know is the caller's
// to act on (Renderer.Unknown: it reloads the roots, then SetRoots),
// never a load here. Every ACP session update shim writes is built here
// or by an acp constructor; so are the ACP errors a failed turn or an
// A2A call answers with (errors.go).
//
// # Files
//
//	render.go    Renderer, Out; answer text, thoughts, files, the failure
//	             line, notes, steer markers; the blank-line rule (blocks)
//	text.go      what was shown of an artifact's text (a length and a
//	             hash), so a replace adds only the new part
//	snapshot.go  task snapshots (SPEC §12.4): status text as replaces,
//	             messages shown by id; progress notes held until the next
//	             frame tells what they are (§12.8)
//	tools.go     tool calls: a row per kind (kindRules), per phase
//	             (toolPhases); live (opened, updated, ended) and replayed;
//	             a todo tool's plan; command calls as terminals
//	roots.go     the roots snapshot tool paths resolve against; Unknown
//	park.go      a park's question (SPEC §6), its data lines and the tool
//	             call it names (§12.8)
//	forms.go     a park asked as the editor's forms (§11.3)
//	approval.go  an approval's views: the open call it asks about, or its own
//	past.go      a past turn, in the order it happened; how a turn's end
//	             shows, live and replayed (closing)
//	session.go   updates about the session: title, usage, commands, modes,
//	             the hand-off's file, what a detached buffer dropped
//	errors.go    the ACP errors of failed turns and A2A calls
//
// Tests: golden_test.go renders cases into testdata/*.golden (go test
// -update rewrites them), each update checked against the ACP schema.
package render
