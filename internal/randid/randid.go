// Package randid mints the random ids shim needs: hex tails of context,
// card and steer ids, probe ids, and UUIDs for A2A message ids. Every
// package that needs one takes it from here.
package randid

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/google/uuid"
)

// Hex returns n random bytes in lower-case hex (2n characters).
func Hex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

// UUID returns a random UUID (version 4) in its canonical form.
func UUID() string { return uuid.NewString() }
