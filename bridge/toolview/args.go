package toolview

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/shimdev/shim/internal/jsontext"
)

// Args is a tool's arguments as recovered from the raw args text.
type Args struct {
	Raw      string         // as received
	Complete bool           // the text parsed as a whole JSON object
	Fields   map[string]any // parsed object, or the fields recovered from a cut string

	// cutKey and cutText are the key and the decoded beginning of a
	// top-level string value the raw text ends inside, if any.
	cutKey, cutText string
}

// ParseArgs reads a tool's raw argument text. protoAgent sends the
// arguments as a JSON string cut at 800 characters, so it may end anywhere,
// even inside a string, an escape or a number.
//
// An empty or blank text gives Args with no fields. A text that is one whole
// JSON object gives Complete Args whose Fields are that object, numbers as
// json.Number. Any other JSON value (a list, a string, null) gives no fields.
// Otherwise the text is read as the start of an object: every top-level
// member whose value arrived whole is kept, in particular the short ones
// that precede the bulky ones ("project", "path", "offset", "limit",
// "query", "pattern", "command", "cmd", "dest", "destination", "new_path",
// "to"). A value cut short is dropped, a number too when nothing follows it
// (a cut "offset": 3 may have been 30). Reading stops at the first member
// that is cut or malformed. Nested members are never mistaken for top-level
// ones. ParseArgs never panics.
func ParseArgs(raw string) Args {
	a := Args{Raw: raw}
	if strings.TrimSpace(raw) == "" {
		return a
	}
	var room [8]member // a call's few args need no list of their own
	ms, cut, whole := scanObjectInto(room[:0], raw)
	if whole {
		a.Complete = true
		a.Fields = make(map[string]any, len(ms))
		for _, m := range ms {
			a.Fields[m.key] = m.val
		}
		return a
	}
	if i := skipSpace(raw, 0); raw[i] != '{' && json.Valid([]byte(raw)) {
		return a // a whole JSON value that is not an object
	}
	if len(ms) > 0 {
		a.Fields = make(map[string]any, len(ms))
		for _, m := range ms {
			a.Fields[m.key] = m.val
		}
	}
	if cut != nil {
		a.cutKey, a.cutText = cut.key, cut.val.(string)
	}
	return a
}

// RawValue is a big list or object of the args kept as its JSON text
// (valid JSON), not decoded: decoded, a list of a million small objects
// costs ten times its text (SPEC §13 amended). Plan reads one item at a
// time.
type RawValue string

// MarshalJSON returns the value's JSON text.
func (v RawValue) MarshalJSON() ([]byte, error) { return []byte(v), nil }

// JSON returns the text of whole args (Complete) as JSON, nil for args
// that are not whole. It shares Raw's memory, never copied (the args of
// one call may be tens of MiB): it must be read, never written to.
func (a Args) JSON() json.RawMessage {
	if !a.Complete {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(a.Raw), len(a.Raw))
}

// validJSON reports whether s is valid JSON, reading it in place (a copy
// of a big value would cost its size once more; json.Valid only reads).
func validJSON(s string) bool {
	return json.Valid(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// bigValue is the size past which a list or object of the args is kept as
// a RawValue.
const bigValue = 64 << 10

// String returns the string value of key, or "" when it is absent or not a
// string. A json.Number is returned as its text.
func (a Args) String(key string) string {
	switch v := a.Fields[key].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// Int returns the integer value of key. It accepts json.Number, float64 (as
// protobuf Struct values arrive: 30 or 30.0), Go integers and decimal
// strings ("30"), and reports false for anything absent, fractional or out
// of range.
func (a Args) Int(key string) (int, bool) {
	switch v := a.Fields[key].(type) {
	case json.Number:
		return numberInt(string(v))
	case string:
		return numberInt(strings.TrimSpace(v))
	case float64:
		return floatInt(v)
	case float32:
		return floatInt(float64(v))
	case int:
		return v, true
	case int64:
		if v >= math.MinInt && v <= math.MaxInt {
			return int(v), true
		}
	case int32:
		return int(v), true
	}
	return 0, false
}

func numberInt(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return floatInt(f)
}

func floatInt(f float64) (int, bool) {
	// 2^63 is exact as a float64; anything at or above it overflows int64.
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 || math.IsNaN(f) {
		return 0, false
	}
	n := int64(f)
	if n < math.MinInt || n > math.MaxInt {
		return 0, false
	}
	return int(n), true
}

// member is one top-level member of an object read by scanObjectInto.
type member struct {
	key string
	val any
}

// scanObjectInto reads s as the start of a JSON object and returns, in order,
// the members whose values are whole (a repeated key as often as it
// appears; ParseArgs keeps the last, as encoding/json does), and whether
// s is one whole JSON object (nothing but whitespace after it). It stops
// at the end of the object, at the first member that is cut, and at the
// first syntax error. Each key and value is decoded as encoding/json decodes it, from
// its own slice of s, so escapes (\" \\ \n \uXXXX and surrogate pairs) mean
// what they mean in JSON; a list or object value longer than bigValue is
// checked valid and kept as a RawValue. When s ends inside a string
// value, cut holds its key and the text decoded so far.
// The members are appended to out (room the caller has).
func scanObjectInto(out []member, s string) ([]member, *member, bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return nil, nil, false
	}
	i++
	if j := skipSpace(s, i); j < len(s) && s[j] == '}' {
		return nil, nil, skipSpace(s, j+1) == len(s)
	}
	for {
		key, at, ok := scanKey(s, i)
		if !ok {
			return out, nil, false // a cut, or not a key
		}
		end, ok := valueEnd(s, at)
		if !ok {
			return out, cutMember(s, at, key), false
		}
		v, ok := decodeValue(s[at:end])
		if !ok {
			return out, nil, false
		}
		out = append(out, member{key, v})
		i = skipSpace(s, end)
		if i < len(s) && s[i] == '}' {
			return out, nil, skipSpace(s, i+1) == len(s)
		}
		if i >= len(s) || s[i] != ',' {
			return out, nil, false
		}
		i++
	}
}

// scanKey reads a member's key and its colon from s[i:] and returns the
// key and where its value starts; false when s is cut there or is no key.
func scanKey(s string, i int) (string, int, bool) {
	i = skipSpace(s, i)
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	end, ok := stringEnd(s, i)
	if !ok {
		return "", 0, false
	}
	// Unescaped as decodeValue does a string value (a json.Unmarshal per
	// key was a third of what a replayed call's args cost).
	key, ok := jsontext.Unquote(unsafe.Slice(unsafe.StringData(s[i+1:]), end-i-2))
	if !ok {
		return "", 0, false
	}
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		return "", 0, false
	}
	return key, skipSpace(s, i+1), true
}

// cutMember is the member of key whose string value starting at s[i] is
// cut, with the text decoded so far; nil when the value is no string.
func cutMember(s string, i int, key string) *member {
	if i < len(s) && s[i] == '"' {
		if t, ok := cutString(s[i:]); ok {
			return &member{key, t}
		}
	}
	return nil
}

// decodeValue decodes one whole value's text; a list or object longer
// than bigValue is checked valid and kept as a RawValue.
func decodeValue(text string) (any, bool) {
	// The common values first, without a decoder each (a json.Decoder per
	// member was a fifth of a long thread's replay): a string unescaped as
	// encoding/json unescapes it (jsontext, fuzzed side by side), a
	// literal, a number as json.Number.
	switch {
	case len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"':
		if v, ok := jsontext.Unquote(unsafe.Slice(unsafe.StringData(text[1:]), len(text)-2)); ok {
			return v, true
		}
		return nil, false
	case text == "true", text == "false":
		return text == "true", true
	case text == "null":
		return nil, true
	case len(text) > 0 && (text[0] == '-' || '0' <= text[0] && text[0] <= '9'):
		if validJSON(text) {
			return json.Number(text), true
		}
		return nil, false
	}
	if len(text) > bigValue && (text[0] == '[' || text[0] == '{') {
		if !validJSON(text) {
			return nil, false
		}
		return RawValue(text), true
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the closing quote of the JSON string
// starting at s[i] == '"', and false when s ends first.
func stringEnd(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++ // skip the escaped byte; \uXXXX's digits are no quotes
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// valueEnd returns the index just past the JSON value starting at s[i], and
// false when the value is cut (or empty). A scalar counts as whole only when
// a delimiter follows it, since a number at the very end may have been cut.
// The extent is found lexically; encoding/json validates it afterwards.
func valueEnd(s string, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end, ok := stringEnd(s, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\n\r", rune(s[j])) {
		j++
	}
	if j == i || j == len(s) {
		return 0, false
	}
	return j, true
}

// cutString decodes the unterminated JSON string s (starting with its
// opening quote), leaving out an escape the cut split; false when what
// arrived is not valid JSON string text.
func cutString(s string) (string, bool) {
	// A character the cut split would decode as U+FFFD: leave it out.
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				s = s[:i]
			}
			break
		}
	}
	// An escape is at most 6 bytes (\uXXXX): try the whole text closed,
	// then without its last 1 to 5 bytes.
	for drop := 0; drop <= 5 && drop < len(s); drop++ {
		var t string
		if json.Unmarshal([]byte(s[:len(s)-drop]+`"`), &t) == nil {
			return t, true
		}
	}
	return "", false
}
