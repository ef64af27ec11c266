package main

import (
	"bytes"
	"io"
	"sync"
)

// secrets are the tokens this process knows. Every writer the process
// writes through (the log on stderr, ACP messages on stdout, command
// output, error messages) replaces them, so that a token never leaves the
// process in clear whatever a log line, an error or a server's answer
// quotes.
var secrets struct {
	mu   sync.RWMutex
	list [][]byte
}

// addSecret registers a token (ignored when short enough to be noise).
func addSecret(s string) {
	if len(s) < 4 {
		return
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	for _, k := range secrets.list {
		if string(k) == s {
			return
		}
	}
	secrets.list = append(secrets.list, []byte(s))
}

const redacted = "[REDACTED]"

// redactor writes with every known secret replaced. A write is redacted as
// a whole: the writers it wraps get one write per line (slog) or per
// message (the ACP stream), so a secret never straddles two writes.
type redactor struct {
	mu sync.Mutex
	w  io.Writer
	// jsonSafe limits redaction to secrets whose replacement cannot break
	// the JSON around them: at least 12 bytes of [A-Za-z0-9._~+/=-] (what
	// bearer tokens, JWTs and API keys are made of). Such a token can only
	// occur inside a JSON string, and "[REDACTED]" keeps that string valid.
	jsonSafe bool
}

func newRedactor(w io.Writer) *redactor { return &redactor{w: w} }

// newJSONRedactor wraps the ACP stdout stream.
func newJSONRedactor(w io.Writer) *redactor { return &redactor{w: w, jsonSafe: true} }

func (r *redactor) Write(p []byte) (int, error) {
	out := p
	secrets.mu.RLock()
	for _, s := range secrets.list {
		if r.jsonSafe && !jsonSafeSecret(s) {
			continue
		}
		if bytes.Contains(out, s) {
			out = bytes.ReplaceAll(out, s, []byte(redacted))
		}
	}
	secrets.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func jsonSafeSecret(s []byte) bool {
	if len(s) < 12 {
		return false
	}
	for _, b := range s {
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case bytes.IndexByte([]byte("._~+/=-"), b) >= 0:
		default:
			return false
		}
	}
	return true
}
