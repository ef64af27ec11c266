package wire

import (
	"encoding/json"
	"testing"
)

// FuzzWireText holds wireText's decoding side by side with encoding/json's
// for every JSON string: the same text, the same errors.
func FuzzWireText(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00x"`, `"\ud83dx"`, "\"\xff\xfe\"", `"é中😀"`, `"\u0000"`, `""`, `"a\'b"`, `"bad \x"`, `123`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		wantErr := json.Unmarshal(b, &want)
		var got wireText
		gotErr := json.Unmarshal(b, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: encoding/json err %v, wireText err %v", b, wantErr, gotErr)
		}
		if wantErr == nil && string(got) != want {
			t.Fatalf("%q: encoding/json %q, wireText %q", b, want, string(got))
		}
	})
}
