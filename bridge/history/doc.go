// Package history reads a thread's past turns back (SPEC §4.5) and lists
// threads (§4.4); what the editor is shown of them is package render's.
//
// One Source interface returns a thread's turns: Operator (the operator
// API's /turns), Tasks (GetTask of the task ids the thread index
// recorded) and Listed (ListTasks by contextId), tried in that order by
// Read under one load budget (SPEC §13), the turns (package past's
// values) ordered oldest first. Shown remembers what this process showed of a thread
// (never shown twice; the ids of replayed tool calls). List builds
// session/list's rows (conversations only: an index entry that never got
// a prompt is not one, SPEC §18).
//
// # Files
//
//	turn.go    a thread's turns put in order (timestamps, else the
//	           longest history); Settle: turns the index says failed
//	           live, while the server keeps them running (SPEC §16)
//	source.go  Source and its three kinds; Read and the load budget
//	shown.go   Shown and Threads: what this process showed of each thread
//	list.go    session/list's rows: the server's sessions or the index's
//	           threads, filtered, missing titles fetched
//
// # Goroutines and locks
//
// List fetches missing titles on at most titleFetchers goroutines, and
// waits for them. Shown has its own lock, taken alone; Threads is a
// sync.Map.
package history
