// Package encode writes the ACP lines shim writes by hand, byte for byte
// as encoding/json (HTML escaping off) writes them, each appended to a
// buffer the caller owns (acp/stdio's queue): a notification encoded in
// one pass, a session/update with its long fields (a tool's whole input
// or output, a command's output, a diff) written in place, a chunk of
// text and a plain tool_call without reflection, a text chunk's text
// extended in place when chunks merge, a successful answer's envelope
// and initialize's result. Tests and fuzzing hold every fast path to the
// encoder.
//
// The package keeps no state, starts no goroutine and takes no lock: its
// functions run on the caller's goroutine, under the caller's lock, and
// never wait.
//
// # Files
//
//	line.go       AppendUpdate, AppendNotification, ResultLine
//	chunks.go     a chunk of text and a plain tool_call without reflection;
//	              AppendTextChunk and AppendMergedText, for merging chunks
//	long.go       a tool update's long fields written into its line in place
//	initialize.go initialize's result written by hand (a cold start's
//	              first answer, before encoding/json has built its codecs)
package encode
