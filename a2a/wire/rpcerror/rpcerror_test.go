package rpcerror

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRESTErrorTextBounded: an HTTP+JSON error body's text is kept up to
// 64 KiB (cut at a character's start) and a body past that is not kept
// as the error's data: a 48 MiB detail is never held twice more.
func TestRESTErrorTextBounded(t *testing.T) {
	detail := strings.Repeat("é", 1<<20)
	for name, body := range map[string]string{
		"problem": `{"type": "about:blank", "title": "Bad request", "status": 400, "detail": "` + detail + `"}`,
		"status":  `{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "` + detail + `"}}`,
	} {
		re := Decode(400, []byte(body))
		if re == nil {
			t.Fatalf("%s: not read as an error", name)
		}
		if n := len(re.Message); n > 64<<10 || n < 60<<10 || !utf8.ValidString(re.Message) {
			t.Errorf("%s: a message of %d bytes (valid UTF-8: %v)", name, n, utf8.ValidString(re.Message))
		}
		if re.Data != nil {
			t.Errorf("%s: the %d-byte body kept as data", name, len(re.Data))
		}
	}
	small := Decode(404, []byte(`{"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found"}}`))
	if small == nil || small.Message != "Task not found" || len(small.Data) == 0 {
		t.Errorf("a small error: %+v", small)
	}
}
