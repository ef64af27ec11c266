package a2a

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// wireText is a part's text. encoding/json makes two copies of a string
// with escapes (the unquoted bytes, then the string); a full replace of a
// long answer is one such string, so this decodes it with one copy. It
// gives what encoding/json gives, invalid UTF-8 replaced by U+FFFD
// included (a fuzz test holds the two side by side).
type wireText string

func (t *wireText) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = wireText(s)
		return nil
	}
	out, ok := unquote(b[1 : len(b)-1])
	if !ok {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = wireText(s)
		return nil
	}
	// out is ours and never written again: it can back the string.
	*t = wireText(unsafe.String(unsafe.SliceData(out), len(out)))
	return nil
}

// unquote unescapes the inside of a JSON string into a new buffer. It
// reports false for input encoding/json would refuse (the decoder already
// validated the token, so that does not happen in practice).
func unquote(in []byte) ([]byte, bool) {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			if i+1 >= len(in) {
				return nil, false
			}
			switch in[i+1] {
			case '"', '\\', '/', '\'':
				out = append(out, in[i+1])
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r, ok := hex4(in, i+2)
				if !ok {
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(-1), false
					if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
						r2, ok2 = hex4(in, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, false
			}
		case c < ' ':
			return nil, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, in[i:i+size]...)
			}
			i += size
		}
	}
	return out, true
}

func hex4(in []byte, at int) (rune, bool) {
	if at+4 > len(in) {
		return 0, false
	}
	var r rune
	for _, c := range in[at : at+4] {
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
		r = r*16 + rune(c)
	}
	return r, true
}
