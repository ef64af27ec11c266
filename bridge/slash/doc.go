// Package slash is the card's skills as the editor's "/" commands (SPEC
// §11.1; §13 amended): their names, descriptions and input hints, shim's
// own status command last, the skill a command names, and the command a
// prompt starts with. Pure: no I/O, no lock, no goroutine.
//
// # Files
//
//	slash.go  Of (a card's commands), Set, Same, Command; the namer
//
// # Goroutines and locks
//
// None: the package is pure.
package slash
