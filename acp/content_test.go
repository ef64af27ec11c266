package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodingJSON is how encoding/json writes v with HTML escaping off.
func encodingJSON(t testing.TB, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var jsonTextCases = []string{"", "plain", "a\"b\\c/d", "\b\f\n\r\t\x00\x01\x1f\x7f", "<b>&amp;</b>", "é ü 中文 🎉",
	"\u2028\u2029", "bad \xff utf8 \xe2\x82", "\xed\xa0\x80 surrogate", "\"}}}}\n{\"jsonrpc\""}

// TestRawJSONOfText: a text's raw JSON is what the encoder writes for it.
func TestRawJSONOfText(t *testing.T) {
	for _, s := range append([]string{strings.Repeat("<long & \"text\">\n", 5000)}, jsonTextCases...) {
		if got, want := string(RawJSON(s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: RawJSON %s, encoding/json %s", s, got, want)
		}
	}
}
