package wire

import (
	"encoding/json"
	"testing"
)

// FuzzWireText holds a part's text (partText) side by side with
// encoding/json's decoding of every JSON string: the same text; a JSON
// value of another type is no text.
func FuzzWireText(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00x"`, `"\ud83dx"`, "\"\xff\xfe\"", `"é中😀"`, `"\u0000"`, `""`, `"a\'b"`, `"bad \x"`, `123`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return // the decoder refuses the frame before any text is read
		}
		var want string
		if json.Unmarshal(b, &want) != nil {
			want = ""
		}
		if got := partText(b, 0); got != want {
			t.Fatalf("%q: encoding/json %q, partText %q", b, want, got)
		}
	})
}
