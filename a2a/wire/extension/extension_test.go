package extension

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzReadKeys holds readKeys to encoding/json: the members it reads of
// any valid object are those of the object read into a map (exact keys,
// the last of a key given twice).
func FuzzReadKeys(f *testing.F) {
	for _, s := range []string{`"a b"`, `"a\"b\\"`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", `{ "toolCallId" : "c", "TOOLCALLID":"d", "args": [ 1 , {"a b":" c "} ] }`,
		`{"name":"x","name":"y","phase":1,"result":null}`, `[1, 2]`, ` 12.50 `, `null`, `true`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(in, &members) != nil || members == nil {
			return
		}
		var o toolCallPayload
		if !readKeys(in, &o) {
			t.Fatalf("readKeys(%q) refused an object", in)
		}
		for key, got := range map[string]json.RawMessage{"toolCallId": o.ID, "tool_call_id": o.ID2, "name": o.Name, "phase": o.Phase,
			"args": o.Args, "result": o.Result, "error": o.Error, "parentToolCallId": o.Parent, "parent_tool_call_id": o.Parent2} {
			if want, ok := members[key]; !bytes.Equal(got, want) || ok != (got != nil) {
				t.Fatalf("readKeys(%q)[%s] = %q; encoding/json: %q", in, key, got, want)
			}
		}
	})
}
