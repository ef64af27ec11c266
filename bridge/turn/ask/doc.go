// Package ask asks the person at the editor what a turn's parks ask
// (SPEC §6, §11.3, §14): an approval in the editor's permission dialog
// (a pure decision, then a driver that asks and returns the answer that
// resumes the task), a question or a form as the editor's own forms, and
// a dialog withdrawn ($/cancel_request) once it is not needed: its prompt
// cancelled, the turn over, the park answered elsewhere.
//
// It never sees the turn: what it needs of it are interfaces it declares
// (ask.go): where what it shows goes (Output), the prompt that owns the
// turn now (Prompt), the session's permissions mode (Mode). It returns a
// Result; the turn decides what that means for its outcome.
//
// # Files
//
//	ask.go       Asker, Result, and the interfaces it needs of the turn
//	approval.go  an approval: the decision and its driver
//	question.go  questions and forms (as the editor's forms, else as text)
//	dialog.go    a park's dialog in the editor, withdrawn once it is not
//	             needed
//
// # Goroutines
//
// An Asker runs on the turn's goroutine (its renderer is that
// goroutine's). Each open dialog starts two watchers, both ended with
// the dialog: one withdraws it when its prompt leaves the turn, one reads
// the operator API's summary of the chat every poll and withdraws it once
// the park was answered elsewhere.
//
// # Locks
//
// None of its own: Output, Prompt and Mode take the turn's locks.
package ask
