// Package notice is what shim says about itself (SPEC §14, §18): a
// Notice (a short title, a description, a severity) and how a client
// without notices is told instead (Told: a thought, a line of the answer,
// or nothing but the log); the notice update built from one, its text
// made one line and cut (Of, SPEC §15); a notice about a session outside
// a turn (Said); and every notice shim gives, each in plain words
// (words_test.go checks them all). Package render says a turn's notices
// (its Notices value); bridge and bridge/turn say the others. It imports
// the ACP vocabulary and internal text helpers, nothing of bridge.
//
// # Files
//
//	notice.go  Notice, Told, Of, Said
//	gives.go   the notices shim gives
//
// # Goroutines and locks
//
// None: the package is pure.
package notice
