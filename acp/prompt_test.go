package acp

import (
	"encoding/json"
	"testing"
)

// TestPromptTextUnquote: prompt text is unquoted as encoding/json does:
// escapes, surrogate pairs, lone surrogates and invalid UTF-8.
func TestPromptTextUnquote(t *testing.T) {
	for _, raw := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u65e5 \ud83d\ude00 \ud83d x \ude00"`, "\"bad \xff\xfe é\"", `""`, `null`} {
		var want string
		_ = json.Unmarshal([]byte(raw), &want)
		var got PromptBlock
		if err := json.Unmarshal([]byte(`{"type":"text","text":`+raw+`}`), &got); err != nil || got.Err != nil {
			t.Fatalf("%s: %v %v", raw, err, got.Err)
		}
		if got.C.Text != want || got.C.Type != "text" {
			t.Errorf("%s: got %q, want %q", raw, got.C.Text, want)
		}
	}
}
