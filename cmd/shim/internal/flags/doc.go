// Package flags is shim's command line as urfave/cli reads it: every flag
// and which command reads which (flags.go, with flags that know their
// names, worked out once), and the values as read wherever they were
// given, before the command name or after it, with the state and config
// directories they name (read.go). What the values mean is package main's
// (its settings).
//
// No goroutine, no lock; NameLibraryFlags changes the library's globals
// and is called once, before the command line is parsed.
package flags
