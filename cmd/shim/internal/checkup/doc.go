// Package checkup is what `shim doctor` says: its table (table.go: a row
// per check with its verdict, the advice a failed row gives), the rows
// about an agent as a session would reach it, its card, what the command
// line chose, its sign-in, a managed platform's credential, the optional
// operator API and shim's own directories (agent.go), and `--probe`'s
// rows: one short message, its cancel and the departures from the spec
// the client saw (probe.go).
//
// It reads nothing of the command line: the caller passes the values
// (package main reads the flags and builds the client). It starts no
// goroutine and takes no lock; a Table is written by one goroutine.
package checkup
