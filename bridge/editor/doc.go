// Package editor is the editor as initialize described it: the client's
// name and title, what it draws (forms, terminals, notices; SPEC §11.3,
// §11.6, §14), whether it opens a page shim asks it to; initialize's
// answer; the prefix of the context ids minted for it and the ids; the
// notes it is given once per process.
//
// # Files
//
//	editor.go  Editor, Slug, MintContextID
//
// # Goroutines and locks
//
// It starts no goroutine. Editor.mu guards what initialize said and the
// once-only notes; it is taken alone and never held while calling out.
package editor
