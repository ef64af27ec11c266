package benchagent

import "testing"

// TestSpecPrompt: what a prompt asks for reads back as it was written,
// within other text, a paced stream always flushed; a prompt without one
// asks for nothing.
func TestSpecPrompt(t *testing.T) {
	for _, s := range []Spec{
		{N: 3},
		{N: 1024, Size: 1024, Replace: true},
		{N: 10, Pace: 2000, Stamp: true, Flush: true},
		{N: 1, Gate: true},
		{N: 5, Flush: true},
	} {
		got, ok := ParseSpec("say this: " + s.Prompt() + " thanks")
		if !ok || got != s {
			t.Errorf("%+v read back as %+v (%v)", s, got, ok)
		}
	}
	if got, _ := ParseSpec(Spec{N: 2, Pace: 10}.Prompt()); !got.Flush {
		t.Error("a paced stream is not flushed")
	}
	for _, text := range []string{"hello", "bench:", "bench: ", "bench:%zz"} {
		if s, ok := ParseSpec(text); ok {
			t.Errorf("%q asks for %+v", text, s)
		}
	}
}
