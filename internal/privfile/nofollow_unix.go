//go:build !windows

package privfile

import "syscall"

// noFollow makes an open fail on a symbolic link at the last component
// (O_NOFOLLOW), and not block on a FIFO (O_NONBLOCK; no effect on a
// regular file).
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
