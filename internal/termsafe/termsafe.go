// Package termsafe makes text that came from a server or a file safe to
// print where a person reads it (SPEC §13): a terminal acts on control
// characters, so a card name, an error body, an OAuth verification URI or
// a thread title holding them could clear the screen, retitle the window,
// plant an OSC 8 link or write the clipboard (OSC 52). shim login, doctor
// and threads print such text only through [String].
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
