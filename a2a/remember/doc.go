// Package remember keeps, between launches, what an agent's origin
// served and what it did not (SPEC §19): the agent card as served, with
// its validators (ETag, Last-Modified), and the operator API routes that
// answered 404 or 405. The next launch uses the card at once while the
// client asks again in the background, and does not ask the absent routes
// again.
//
// Everything lives in one file, <state-dir>/remembered.json:
//
//	{"version": 1, "origins": {"https://agent.example:7870": {
//	  "cards": {"<card url>": {"body": "<base64 of the card as served>",
//	    "etag": "…", "lastModified": "…", "checked": "<RFC 3339>"}},
//	  "absent": {"<base url>": {"fs-roots": "<RFC 3339>", …}}}}}
//
// keyed by origin (scheme, host and port): a client sees only the entry
// of its own origin (File.For), never another's. Entries are kept at
// most 24 hours (MaxAge) from when the agent last said them; the file is
// bounded (at most 32 origins, 4 cards and 4 bases of 16 routes an
// origin, a card of at most 256 KiB, the whole at most 1 MiB: the oldest
// cards go first). It is a cache: a file that cannot be read (not JSON,
// another version, too large, a symbolic link or another file that is not
// regular) is read as empty, said once in the log, never followed, and
// replaced by the next write. Writes go through internal/privfile (0600
// in a 0700 directory, under the file's lock, through a synced temporary
// file renamed over it; a write that fails leaves the old file and no
// temporary file), in the background, several changes in one write: a
// change waits 2 s for others (settleWrite) so that a launch's changes
// make one write after its session/new, and Close writes at once what
// still waits. Load reads the file ahead of the first question.
//
// Nothing here knows what a card means, checks a signature or sends a
// request: package a2aclient does, and checks a remembered card as a
// fetched one.
//
// Files:
//   - remember.go: File, Origin, Card; the read and the bounded write.
//
// Goroutines: one writer at a time, started 2 s after a change is kept
// (on its timer's goroutine) or by File.Close, and ending when none is
// pending (File.Close waits for it). Locks: File.mu,
// a leaf (held by callers' locks above it: operator.API.mu); the writer
// takes the file's advisory lock (privfile.Lock) without File.mu.
package remember
