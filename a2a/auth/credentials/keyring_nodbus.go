//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd)

package credentials

// sessionBusError is nil where go-keyring does not use D-Bus (macOS
// Keychain, Windows Credential Manager) or has no backend at all.
func sessionBusError() error { return nil }
