// Package threads keeps the local thread index (SPEC §8): which threads this
// machine has seen on which server, with their working directory, title,
// timestamps and A2A task ids.
//
// The index lives in one JSON file, <dir>/threads.json:
//
//	{"version": 1, "servers": {"<url>": {"<sessionId>": {"cwd", "additionalDirectories"?, "title", "createdAt", "updatedAt", "taskIds": [...], "failures"?: {"<taskId>": "<text>"}}}}}
//
// failures holds how some of the thread's turns failed, as the live turn
// read it (a server may keep such a task working for ever, SPEC §16), for
// the task ids the entry keeps only.
//
// An entry keeps the newest MaxTaskIDs task ids, so what one write costs
// does not grow with a thread's age, and takes at most MaxEntryBytes of
// the file (SPEC §15): past it, Update cuts the title to 80 characters,
// drops the oldest task ids, then cuts the rest of the title, and refuses
// (ErrEntryTooLarge, nothing written) an entry whose id, cwd and folders
// alone are larger.
//
// Several shim processes may write it at once. Every write takes an advisory
// lock on the sibling file threads.json.lock, re-reads the file, applies the
// change to the one entry it concerns, writes a temporary file in the same
// directory, syncs it and renames it over threads.json, so no process loses
// another's entries. Every write also puts the modes back to 0600 for the file
// and 0700 for the directory (on Windows, where modes mean little, this is
// skipped). Temporary files left behind by a process that died before its
// rename are removed by the next write and never read.
//
// A file that cannot be parsed, or whose version is not 1, is moved aside to
// threads.json.corrupt-<unix time> by the next write, which logs a warning
// and starts a new file; it is never silently overwritten. Reads of such a
// file return an error wrapping [ErrCorrupt] and leave it in place. Reads when
// there is no file return an empty result.
//
// Entries of other servers and other sessions are carried over unchanged, and
// so are unknown top-level fields. Unknown fields inside an entry are not
// kept: they are dropped on the next write.
//
// The file is an [privfile.Versioned]: the cycle above is privfile's, the
// entries are this package's. An Index starts no goroutine; its locks are
// procMu (this process's readers and writers, any Index) then the file's
// advisory lock (every process), in that order.
//
// The index is a convenience: callers log its errors and go on.
//
// Files:
//   - threads.go: an Entry and its bounds, the Index and its reads and
//     writes, the document on disk.
package threads
