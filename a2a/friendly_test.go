package a2a

import (
	"strings"
	"testing"
)

// TestFriendlyError: a failed task's text as SPEC §4.3 "Friendly text"
// reads it: an "Error code: NNN - <object>" (JSON or Python-literal
// quoting) gives "<message> (HTTP NNN, <type>)", "<message> (HTTP NNN)"
// or "HTTP NNN error"; any other text is trimmed and cut at 500
// characters.
func TestFriendlyError(t *testing.T) {
	long := strings.Repeat("é", 600)
	tests := []struct{ in, want string }{
		{`Error code: 429 - {'error': {'type': 'usage_limit_reached', 'message': 'The usage limit has been reached'}}`,
			"The usage limit has been reached (HTTP 429, usage_limit_reached)"},
		{`Error code: 400 - {"error": {"code": "bad_request", "message": "It's wrong"}}`, "It's wrong (HTTP 400, bad_request)"},
		{`Error code: 500 - {'message': 'boom', 'type': 'server', 'extra': None, 'ok': False}`, "boom (HTTP 500, server)"},
		{`Error code: 503 - {'error': {'message': 'down'}}`, "down (HTTP 503)"},
		{`Error code: 502 - {'error': {}}`, "HTTP 502 error"},
		{`Error code: 418 - not an object`, "Error code: 418 - not an object"},
		{"  the model crashed \n", "the model crashed"},
		{long, strings.Repeat("é", 500) + "…"},
	}
	for _, tt := range tests {
		if got := FriendlyError(tt.in); got != tt.want {
			t.Errorf("FriendlyError(%.60q) = %.80q, want %.80q", tt.in, got, tt.want)
		}
	}
}
