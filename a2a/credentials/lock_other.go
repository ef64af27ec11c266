//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package credentials

// lockFile is a no-op where the standard library has no flock (Windows
// among them): writers of one process are still serialized by the Store's
// mutex, and each write is an atomic rename, so a race between two processes
// can lose one update but never leave a torn file.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
