// Package message is ACP prompt content as the parts of one A2A user
// message: text, links, embedded files and images, and what is not
// forwarded said in words; the start of the user's own text (for a
// title); the editor-context preamble put before it; whether a prompt is
// plain text (a steer). Pure: no I/O, no lock, no goroutine.
//
// # Files
//
//	message.go  Parts, WithPreamble, PlainText
//
// # Goroutines and locks
//
// None: the package is pure.
package message
