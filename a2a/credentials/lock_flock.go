//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package credentials

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path (created 0600), which
// serializes writers of different processes (and of different Stores in one
// process: every call opens the file anew, and flock locks belong to open
// files).
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
