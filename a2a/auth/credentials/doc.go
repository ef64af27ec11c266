// Package credentials keeps where shim's bearer tokens and the last URL live
// (SPEC §9): the OS keyring (service "shim", account = the normalized URL)
// and the file <config-dir>/credentials.json:
//
//	{"version": 1, "lastUrl": "<url>", "tokens": {"<url>": "<token>"}}
//
// tokens holds only what the keyring could not take. The file is written
// through a temporary file and a rename, and every write puts its mode back
// to 0600 and the directory's to 0700 (skipped on Windows, where modes mean
// little). A file that cannot be parsed, or whose version is not 1, is moved
// aside to credentials.json.corrupt-<unix time> by the next write, which logs
// a warning; reads of such a file return an error wrapping [ErrCorrupt].
//
// A token is only ever returned for the exact normalized URL it was stored
// for, and no error or log line of this package contains a token.
//
// The package knows nothing of HTTP, ACP or the command line: the refusal of
// plain http with a token, probing and prompting belong to its callers.
//
// Files:
//   - store.go: Store, the modes, Save, Token, Forget, LastURL, CheckToken.
//   - lookup.go: the token's sources in order (flags, variables, files,
//     the store).
//   - file.go: the credentials file, an internal/privfile versioned file.
//   - oauth.go: an OAuth sign-in's renewal half and the renewal lock.
//   - keyring.go, keyring_dbus.go, keyring_nodbus.go: the OS keyring
//     through go-keyring, with a timeout, no D-Bus launched.
//   - normalize.go: URL normalization (the key of tokens and threads).
//   - errors.go: its errors.
//
// Goroutines: a keyring call that does not answer in time goes on in the
// background (timeoutKeyring) and later calls fail at once meanwhile.
// Locks: Store.mu, then the file's advisory lock (privfile); the renewal
// lock (LockRenewal) is taken by a client's renewal before it reads the
// store, never under Store.mu.
package credentials
