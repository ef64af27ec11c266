// Package session is the updates shim sends about an ACP session rather
// than a turn's answer: its title (named by a first prompt, or as it was
// named elsewhere), the context used and its cost, its commands, its mode
// and options, the file a console hand-off points at, what a detached
// turn's full buffer dropped. Titles are one line without control
// characters (SPEC §15). Package bridge and bridge/turn send them; it
// imports the ACP vocabulary, the steer texts and internal helpers,
// nothing of bridge.
//
// # Files
//
//	session.go  Title, Named, Usage, Commands, CurrentMode, ConfigOptions,
//	            DroppedNote, HandoffFile
//
// # Goroutines and locks
//
// None: the package is pure.
package session
