// Package termsafe makes text that came from a server or a file safe to
// show where a person reads it.
//
// On a terminal (SPEC §13): a terminal acts on control characters, so a
// card name, an error body, an OAuth verification URI or a thread title
// holding them could clear the screen, retitle the window, plant an OSC 8
// link or write the clipboard (OSC 52). shim login, doctor and threads
// print such text only through [String], which escapes them.
//
// In the editor (SPEC §15): text a server supplies that shim places in
// its own ACP messages (a notice, a permission dialog's title, a form's
// message and its fields' titles and descriptions, a tool call's title,
// the agent's name) goes through [Text] or, for a title, [Line], which
// remove control characters and bidirectional overrides. The agent's
// answer and thought text never does: it is the agent's, passed as
// written.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// String returns s with every control character escaped: C0 (ESC, BEL,
// and newline, carriage return and tab too, which would break a line or a
// table apart) and DEL as \xNN (\n, \r and \t as such), C1 (U+0080 to
// U+009F, which terminals may read as ESC sequences) as \u00NN, and a byte
// that is not UTF-8 as \xNN. Everything else, a backslash included, is
// kept as it is.
func String(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case r >= 0x80 && r < 0xa0:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte String must escape, -1 when
// there is none.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r < 0xa0) {
			return i
		}
		i += size
	}
	return -1
}

// Text is server text as shim places it in its own words (SPEC §15): s
// without its control characters (C0 but newline and tab, DEL, C1) and
// bidirectional overrides and isolates (U+202A to U+202E, U+2066 to
// U+2069), which could make a dialog say something else than it shows.
// A byte that is not UTF-8 becomes U+FFFD, as a JSON encoder writes it
// (so that removing a character never joins two stray bytes into one of
// those). Everything else is kept; s itself when nothing changes.
func Text(s string) string { return clean(s, false) }

// Line is Text on one line, for a title: newline and tab become spaces.
func Line(s string) string { return clean(s, true) }

// clean is Text, or Line when line is set: one pass, no copy when nothing
// changes.
func clean(s string, line bool) string {
	i := firstUnclean(s, line)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\t':
			if line {
				b.WriteByte(' ')
			} else {
				b.WriteByte(byte(r))
			}
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case removed(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// removed reports whether the character r is one Text removes.
func removed(r rune) bool {
	switch {
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return r != '\n' && r != '\t'
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// firstUnclean is the index of the first byte clean changes, -1 when
// there is none.
func firstUnclean(s string, line bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && (line || (c != '\n' && c != '\t'))) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if removed(r) || (r == utf8.RuneError && size == 1) {
			return i
		}
		i += size
	}
	return -1
}
