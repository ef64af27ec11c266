//go:build windows

package privfile

// noFollow is 0 on Windows: OpenNoFollow checks the path with Lstat first.
const noFollow = 0
