// Package roots maps project names to absolute local directories and
// resolves the paths a remote agent names into absolute paths that never
// leave their root.
//
// Roots come from three sources, in priority order: the --root overrides,
// the roots the server reports (through a Loader, first wins for a
// duplicated name), and roots learned from a list_projects tool result.
// A leading ~ is expanded against this machine's home directory; after
// expansion only absolute paths are kept. A root from the server (loaded
// or learned) that is the file system root or the home directory itself
// is refused and logged: only an override may name one.
//
// The package is a leaf: it imports nothing of this module. The HTTP calls
// behind a Loader belong to the caller.
//
// A Map starts no goroutine. Its two locks: Map.loadMu serializes the
// loader's calls (it is held while the loader runs) and guards their
// bookkeeping; Map.mu guards the roots and the reload times. The order is
// loadMu → mu, and mu is never held while the loader runs.
//
// Files:
//   - roots.go: a Root, the Loader, the Map (its loads, lookups and
//     reloads) and the --root override's form.
//   - resolve.go: a path resolved under a root, never leaving it.
//   - learn.go: roots learned from a list_projects tool result.
package roots
