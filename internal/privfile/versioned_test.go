package privfile

import (
	"strings"
	"testing"
)

// TestDecodeVersioned: the one reader of shim's {"version": N, …} files
// returns the members but the version, and says what is wrong without
// quoting the content.
func TestDecodeVersioned(t *testing.T) {
	top, err := DecodeVersioned([]byte(`{"version": 1, "servers": {"u": {}}, "future": [1]}`), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 2 || string(top["servers"]) != `{"u": {}}` || string(top["future"]) != `[1]` {
		t.Errorf("members: %q", top)
	}
	const secret = "secret-in-the-file"
	for _, tc := range []struct{ data, want string }{
		{`{"version": 1, "tokens": {"` + secret + `"`, "not JSON (error at byte"},
		{secret, "not JSON (error at byte"},
		{``, "not JSON"},
		{`["` + secret + `"]`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`{"tokens": "` + secret + `"}`, "no version"},
		{`{"version": "1"}`, "version is not an integer"},
		{`{"version": 2, "tokens": "` + secret + `"}`, "version 2, want 1"},
	} {
		_, err := DecodeVersioned([]byte(tc.data), 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.data, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q: the error quotes the content: %v", tc.data, err)
		}
	}
}
