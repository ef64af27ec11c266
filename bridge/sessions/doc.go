// Package sessions is the session store: what an ACP session is and
// keeps. The open sessions (package turn's Session values), what this
// process showed of each thread, the thread index where sessions outlive
// the process (a thread's cwd, folders, title and task ids), the project
// roots their paths resolve against, and the bounds of a session's
// folders (SPEC §14, §15). Where a session's calls run (its queue) is
// package bridge's.
//
// # Files
//
//	store.go  Store; CheckDirs and CheckCWD
//
// # Goroutines and locks
//
// It starts no goroutine. Store.mu guards the open sessions and is taken
// alone: no other lock is taken under it, and it is never held while a
// session's lock (turn.Session.mu), the thread index's or the roots' is
// taken.
package sessions
