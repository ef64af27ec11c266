package wire

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/shimdev/shim/internal/jsontext"
)

// A part's text is kept as the JSON the decoder read (wirePart.Text) and
// read here: no unmarshaler runs per part, and a text without escapes
// costs no copy at all: its string shares the frame's bytes (a frame
// past zeroCopyMax only when the text is most of it: shareOf). A text with escapes is unescaped with one copy
// (encoding/json makes two: the unquoted bytes, then the string). Either
// way it is what encoding/json gives, invalid UTF-8 replaced by U+FFFD
// included (FuzzWireText holds the two side by side).

// hasText reports whether a part's text is a JSON string (null, absent or
// another type is no text, as a flag or an enum of the wrong type is
// their zero value).
func hasText(raw json.RawMessage) bool {
	raw = trimSpace(raw)
	return len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"'
}

// trimSpace is raw without the JSON whitespace around its value (a
// decoder's raw value usually has none: two byte tests).
func trimSpace(raw json.RawMessage) json.RawMessage {
	for len(raw) > 0 && isSpace(raw[0]) {
		raw = raw[1:]
	}
	for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	return raw
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// partText is a part's text; "" when it has none. big is the length of
// the body raw shares (shareOf): a text without escapes shares it only
// when it is most of it.
func partText(raw json.RawMessage, big int) string {
	if raw = trimSpace(raw); !hasText(raw) {
		return ""
	}
	in := raw[1 : len(raw)-1]
	if len(in) == 0 {
		return ""
	}
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		// The decoder checked the string: no control byte, no bare quote.
		// raw is never written again.
		if big != 0 && 2*len(in) < big {
			return string(in)
		}
		return unsafe.String(&in[0], len(in))
	}
	s, _ := jsontext.Unquote(in)
	return s
}
