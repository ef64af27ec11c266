package render

import (
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestArtifactAnswer: a stored artifact's answer is its text parts' text
// joined, thoughts left out, without its leading blank lines.
func TestArtifactAnswer(t *testing.T) {
	thought := a2a.Part{Kind: a2a.PartText, Text: "hmm", Thinking: true}
	data := a2a.Part{Kind: a2a.PartData, Data: []byte(`{}`)}
	for _, c := range []struct {
		parts []a2a.Part
		want  string
	}{
		{nil, ""},
		{[]a2a.Part{text("\n\nOne")}, "One"},
		{[]a2a.Part{thought, text(" \nOne"), data}, "One"},
		{[]a2a.Part{text("\n"), thought, text("\nOne"), data, text(" two")}, "One two"},
		{[]a2a.Part{text("a"), text("b"), text("c")}, "abc"},
	} {
		if got := artifactAnswer(&a2a.Artifact{Parts: c.parts}); got != c.want {
			t.Errorf("%v: %q, want %q", c.parts, got, c.want)
		}
	}
}
