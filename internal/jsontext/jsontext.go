// Package jsontext writes and reads JSON strings the way encoding/json
// does (HTML escaping off), without reflection and with one copy: the one
// escaper of the ACP output's text chunks and of the A2A request bodies
// that carry long text, and the one unescaper of prompt text and of A2A
// part text. Both directions read one escape table. Members walks an
// object's top-level members without decoding it; String and Text read a
// raw value as the string it is or as its JSON text (value.go).
package jsontext

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

const hex = "0123456789abcdef"

// escapes is the escape table: for each ASCII byte, the letter after the
// backslash that escapes it ('u' for \u00XX), 0 when it goes as it is.
var escapes = func() (e [utf8.RuneSelf]byte) {
	for c := range byte(' ') {
		e[c] = 'u'
	}
	e['"'], e['\\'] = '"', '\\'
	e['\b'], e['\f'], e['\n'], e['\r'], e['\t'] = 'b', 'f', 'n', 'r', 't'
	return e
}()

// unescapes is the table read backwards: for each letter after a
// backslash, the byte it stands for (0: not a short escape). '/' is one
// encoding/json reads and never writes.
var unescapes = func() (u [utf8.RuneSelf]byte) {
	for c, e := range escapes {
		if e != 0 && e != 'u' {
			u[e] = byte(c)
		}
	}
	u['/'] = '/'
	return u
}()

// AppendString appends s as a JSON string (quotes included).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendText(b, s)
	return append(b, '"')
}

// AppendText appends the inside of s as a JSON string, byte for byte
// what encoding/json writes with SetEscapeHTML(false): the short escapes
// for " \ \b \f \n \r \t, \u00XX for other control bytes, \u2028 and
// \u2029 escaped, invalid UTF-8 replaced by \ufffd
// (TestAppendJSONTextLikeEncodingJSON).
func AppendText(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if escapes[c] == 0 {
				continue
			}
			b = appendEscape(append(b, s[start:i-1]...), c)
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if esc := runeEscape(r, size); esc != "" {
			b = append(append(b, s[start:i]...), esc...)
			start = i + size
		}
		i += size
	}
	return append(b, s[start:]...)
}

// appendEscape appends the escape of the ASCII byte c.
func appendEscape(b []byte, c byte) []byte {
	if e := escapes[c]; e != 'u' {
		return append(b, '\\', e)
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// runeEscape is what stands for a non-ASCII rune of size bytes: "" for
// the rune itself.
func runeEscape(r rune, size int) string {
	switch {
	case r == utf8.RuneError && size == 1:
		return `\ufffd`
	case r == '\u2028':
		return `\u2028`
	case r == '\u2029':
		return `\u2029`
	}
	return ""
}

// Len is the length of AppendString(nil, s).
func Len(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch escapes[c] {
			case 0:
				n++
			case 'u':
				n += 6
			default:
				n += 2
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if esc := runeEscape(r, size); esc != "" {
			n += len(esc)
		} else {
			n += size
		}
		i += size
	}
	return n
}

// Unquote unescapes the inside of a JSON string (its quotes taken off)
// into a string of its own, as encoding/json decodes it: surrogate pairs
// joined, a lone surrogate and each byte of invalid UTF-8 read as U+FFFD.
// It reports false for what encoding/json refuses: a control byte or an
// unescaped quote, an unknown escape, a \u without four hex digits.
func Unquote(in []byte) (string, bool) {
	out := make([]byte, 0, len(in))
	for len(in) > 0 {
		j := bytes.IndexByte(in, '\\')
		if j < 0 {
			j = len(in)
		}
		var ok bool
		if out, ok = appendPlain(out, in[:j]); !ok {
			return "", false
		}
		if in = in[j:]; len(in) == 0 {
			break
		}
		n := 0
		if out, n = appendUnescaped(out, in); n == 0 {
			return "", false
		}
		in = in[n:]
	}
	// out is this string's own and never written again.
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// appendPlain appends a run without escapes, invalid UTF-8 as U+FFFD; a
// control byte or a quote there is no JSON.
func appendPlain(out, run []byte) ([]byte, bool) {
	for _, c := range run {
		if c < ' ' || c == '"' {
			return out, false
		}
	}
	if utf8.Valid(run) {
		return append(out, run...), true
	}
	for len(run) > 0 {
		r, n := utf8.DecodeRune(run)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, run[:n]...)
		}
		run = run[n:]
	}
	return out, true
}

// appendUnescaped appends what the escape at the start of in stands for
// and returns the bytes it took (0: not an escape JSON has).
func appendUnescaped(out, in []byte) ([]byte, int) {
	if len(in) < 2 || in[1] >= utf8.RuneSelf {
		return out, 0
	}
	if in[1] != 'u' {
		if c := unescapes[in[1]]; c != 0 {
			return append(out, c), 2
		}
		return out, 0
	}
	r, ok := hex4(in[2:])
	if !ok {
		return out, 0
	}
	if !utf16.IsSurrogate(r) {
		return utf8.AppendRune(out, r), 6
	}
	if len(in) >= 12 && in[6] == '\\' && in[7] == 'u' {
		if r2, ok := hex4(in[8:]); ok {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				return utf8.AppendRune(out, pair), 12
			}
		}
	}
	return utf8.AppendRune(out, utf8.RuneError), 6
}

// hex4 reads the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
