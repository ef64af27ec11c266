// Package toolpath is the roots a tool call's paths resolve against
// (Roots, a toolview.NewResolver): the project roots taken as they are
// (RootsOf, never reloaded here), the session's cwd and its additional
// directories; a named project against its root, a relative path against
// the cwd, and with no root known a relative path where its file (or a
// new file's folder) is (SPEC §14, §18); never a path that leaves them.
// Package render resolves its tool calls' paths with it; bridge and
// bridge/turn take the roots. It imports the roots and toolview packages,
// nothing of bridge above them.
//
// # Files
//
//	roots.go  Roots, RootsOf, Resolve, ResolveNew, Taken, Knows
//
// # Goroutines and locks
//
// None: a Roots is a value, read by whoever holds it (its map is a copy
// that never loads); the file system is only read (os.Stat).
package toolpath
