package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRawValues holds the readers of raw values to encoding/json: for any
// valid JSON value, String is what json.Unmarshal gives a string (and only
// for a string), and Text of anything but a string is json.Compact's text.
func FuzzRawValues(f *testing.F) {
	for _, s := range []string{`"a b"`, `"a\"b\\"`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", `{ "toolCallId" : "c", "TOOLCALLID":"d", "args": [ 1 , {"a b":" c "} ] }`,
		`{"name":"x","name":"y","phase":1,"result":null}`, `[1, 2]`, ` 12.50 `, `null`, `true`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var want string
		trimmed := bytes.TrimSpace(in)
		isString := trimmed[0] == '"' && json.Unmarshal(in, &want) == nil // (null reads into a string too)
		if got, ok := String(in); ok != isString || got != want {
			t.Fatalf("String(%q) = %q, %v; encoding/json: %q, %v", in, got, ok, want, isString)
		}
		if !isString && string(trimmed) != "null" {
			var b bytes.Buffer
			if err := json.Compact(&b, in); err != nil {
				t.Fatal(err)
			}
			if got := Text(in); got != b.String() {
				t.Fatalf("Text(%q) = %q; json.Compact: %q", in, got, b.String())
			}
		}
	})
}
