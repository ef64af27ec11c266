// Package console is what `shim login` asks on (console.go): stdin, where
// its prompts go and whether stdin is a terminal; the agent URL asked for
// (or taken from the command line without a terminal), and the secret
// read without echo on a terminal, else all of stdin, bounded and checked
// before anything is stored. An answer it cannot take is an *Error (exit
// status 2). No goroutine, no lock; a Console is used by one goroutine.
package console
