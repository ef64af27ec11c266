// Package shown remembers what was shown of a text that a server sends
// in appends and replaces (an artifact's text, a task's status answer):
// a length and a running hash, never a copy (Text), so that a replace adds
// only the part not yet shown and memory stays flat in the text's length;
// blank lines before the first text dropped; and FNV-1a for a text hashed
// whole. Package render keeps one Text per answer text it shows. It
// imports nothing of shim.
//
// # Files
//
//	shown.go  Text (New, Reset, Append, Replace, TrimLead), FNV
//
// # Goroutines and locks
//
// None: a Text is used by one goroutine at a time (its renderer's).
package shown
