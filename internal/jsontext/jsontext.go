// Package jsontext writes JSON strings the way encoding/json does with
// HTML escaping off, without reflection: the one escaper of the ACP
// output's text chunks and of the A2A request bodies that carry long text.
package jsontext

import "unicode/utf8"

// AppendString appends s as a JSON string (quotes included).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendText(b, s)
	return append(b, '"')
}

// AppendText appends the inside of s as a JSON string, byte for byte
// what encoding/json writes with SetEscapeHTML(false): the short escapes
// for \b \f \n \r \t, \u00XX for other control bytes, \u2028 and \u2029
// escaped, invalid UTF-8 replaced by \ufffd (TestAppendJSONTextLikeEncodingJSON).
func AppendText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
