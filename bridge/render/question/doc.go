// Package question is what a park asks, in words (SPEC §6, §12.8) and as
// the editor's own forms (§11.3): the text of its question, live or
// replayed (a form's fields listed, an approval's title and detail, a
// park's data as short key: value lines, the fields of the answer's
// schema it gives); what an auth-required status shows; the forms a
// question or form park is asked as, and how their values answer it.
// Package render shows the text as answer text; bridge/turn/ask asks the
// forms. It imports the A2A and ACP vocabularies and internal text
// helpers, nothing of bridge.
//
// # Files
//
//	question.go  Of, Answered (a park's question as text), its data lines
//	             (Lines, OneLine), AuthText
//	forms.go     Forms: a park as the editor's forms (FormStep), and how
//	             their values answer it (FormAnswer)
//
// # Goroutines and locks
//
// None: the package is pure.
package question
