package acp

import (
	"encoding/json"
	"testing"
)

// TestNoticesCapability: session.notices is advertised by an object
// ({} or more); null, another value or any other shape is not.
func TestNoticesCapability(t *testing.T) {
	for caps, want := range map[string]bool{
		`{"session":{"notices":{}}}`:            true,
		`{"session":{"notices":{"x":1}}}`:       true,
		`{"session":{"notices":null}}`:          false,
		`{"session":{"notices":true}}`:          false,
		`{"session":{"notices":[]}}`:            false,
		`{"session":{"compaction":{}}}`:         false,
		`{"session":5}`:                         false,
		`{}`:                                    false,
		`{"elicitation":{"form":{}},"auth":{}}`: false,
	} {
		var c ClientCapabilities
		if err := json.Unmarshal([]byte(caps), &c); err != nil {
			t.Fatalf("%s: %v", caps, err)
		}
		if got := c.Notices(); got != want {
			t.Errorf("%s: notices %v, want %v", caps, got, want)
		}
	}
}
