package a2a

import "testing"

// TestParseStateAsSpelled: the names read without a lowered copy read as
// any spelling does.
func TestParseStateAsSpelled(t *testing.T) {
	if len(statesAsSpelled) != 16 {
		t.Fatalf("%d names", len(statesAsSpelled))
	}
	for s, want := range statesAsSpelled {
		if got := parseState(s); got != want || ParseState(s) != want {
			t.Errorf("%q: %q, as any spelling %q", s, want, got)
		}
	}
	for s, want := range map[string]State{"TASK_STATE_INPUT_REQUIRED": StateInputRequired, " Cancelled ": StateCanceled,
		"task_state_auth_required": StateAuthRequired, "TASK_STATE_UNSPECIFIED": StateUnknown, "": StateUnknown} {
		if got := ParseState(s); got != want {
			t.Errorf("ParseState(%q) = %q, want %q", s, got, want)
		}
	}
}
