// Package sse reads server-sent events per the WHATWG rules (multi-line
// data, comments, id and event fields, any line end), in time and memory
// linear in an event's size, each event bounded by a limit that breaks the
// stream past it. An event's data is a buffer of its own, which the reader
// never touches again (a decoder may keep slices of it), unless the
// reader shares (Reader.Share): an event of one data line whose end came
// in the same read is then lent in the reader's buffer, valid until the
// next event is read (Reader.Lent).
//
// Files:
//   - reader.go: the Reader, its line and field reading, the Buffer events
//     and bodies are collected in, the line-end normalizer, TooLargeError.
//   - departures.go: where a server departs from the SSE the A2A spec
//     names and the reader reads it anyway (recordSeparator: a record
//     separator before each event's data).
//
// Goroutines and locks: none; a Reader is one goroutine's.
package sse
