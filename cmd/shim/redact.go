package main

import (
	"io"

	"github.com/shimdev/shim/internal/redact"
)

// Every writer the process writes through (the log on stderr, ACP messages
// on stdout, command output, error messages) replaces the secrets in
// redact.Default, raw and escaped, so that a secret never leaves the
// process in clear whatever a log line, an error or a server's answer
// quotes.

// addSecret registers a secret for redaction.
func addSecret(s string) { redact.Add(s) }

// newRedactor wraps a writer that gets whole records or lines per write
// (slog writes one record a call; command output a line or a prompt).
func newRedactor(w io.Writer) io.Writer { return redact.NewWriter(w) }

// newJSONRedactor wraps the ACP stdout stream: redacted line by line, each
// line still valid JSON.
func newJSONRedactor(w io.Writer) io.Writer { return redact.NewLineWriter(w) }
