package jsontext

// Raw JSON values read as text without a decode: a value kept raw by a
// decoder (a metadata member, a tool call's args) is read here as the
// string it is, or as its JSON text.

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// String is a raw JSON value as the string it is (unescaped as
// encoding/json does, invalid UTF-8 as U+FFFD); false for any other value.
func String(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	n := len(raw)
	if n < 2 || raw[n-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && plain(raw[1:n-1]) {
		// No escape: the text between the quotes (a copy).
		return string(raw[1 : n-1]), true
	}
	// Unescaped as encoding/json does (no decoder run: a tool call's
	// args and result are such strings).
	return Unquote(raw[1 : n-1])
}

// plain reports whether s may be read as a JSON string's text as it is:
// no quote, no control character and valid UTF-8 (the decoder replaces an
// invalid sequence with U+FFFD).
func plain(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '"' {
			return false
		}
	}
	return utf8.Valid(s)
}

// IsTrue reports whether a raw JSON value is the literal true.
func IsTrue(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "true" }

// IsNull reports whether a raw JSON value is absent or null.
func IsNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// Text is a raw JSON value (valid: it was decoded) as text: a string as
// it is, null or nothing as "", any other value as its JSON text without
// the whitespace between its tokens (one copy, none made to find out
// whether it has any).
func Text(raw []byte) string {
	if IsNull(raw) {
		return ""
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] == '"' {
		if s, ok := String(raw); ok {
			return s
		}
	}
	return compactText(raw)
}

// compactText is the JSON value raw (valid JSON: it was decoded) as text
// with the whitespace outside its strings dropped.
func compactText(raw []byte) string {
	if !spaced(raw) {
		return string(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in:
			esc, in = c == '\\', c != '"'
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// spaced reports whether the JSON value raw has whitespace outside its
// strings.
func spaced(raw []byte) bool {
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in:
			esc, in = c == '\\', c != '"'
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return true
		}
	}
	return false
}
