package wire

import (
	"encoding/json"

	"github.com/shimdev/shim/internal/jsontext"
)

// wireText is a part's text. encoding/json makes two copies of a string
// with escapes (the unquoted bytes, then the string); a full replace of a
// long answer is one such string, so this decodes it with one copy. It
// gives what encoding/json gives, invalid UTF-8 replaced by U+FFFD
// included (a fuzz test holds the two side by side).
type wireText string

func (t *wireText) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		if s, ok := jsontext.Unquote(b[1 : len(b)-1]); ok {
			*t = wireText(s)
			return nil
		}
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = wireText(s)
	return nil
}
