package main

import (
	"bytes"
	"io"
	"sync"
)

// redactor writes log output with every known secret replaced, so that a
// token never reaches stderr whatever a log line quotes.
type redactor struct {
	mu      sync.Mutex
	w       io.Writer
	secrets [][]byte
}

// Add registers a secret (ignored when short enough to be noise).
func (r *redactor) Add(secret string) {
	if len(secret) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, []byte(secret))
}

func (r *redactor) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := p
	for _, s := range r.secrets {
		out = bytes.ReplaceAll(out, s, []byte("[REDACTED]"))
	}
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
