package steer

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func text(s string) Item[string] { return Item[string]{Update: s, Kind: Text, Size: len(s)} }

func updates(items []Item[string]) []string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it.Update))
	}
	return out
}

// TestBufferBounded: a full buffer keeps its head and its latest tail,
// drops the middle and says so; tool updates are never dropped for room.
func TestBufferBounded(t *testing.T) {
	b := Buffer[string]{Max: 100, Note: DroppedNote}
	b.Add(text(strings.Repeat("h", 40)))
	b.Add(Item[string]{Update: "tool", Kind: Other, Size: 10})
	b.Add(text(strings.Repeat("i", 30))) // does not fit the 50-byte head
	for i := 0; i < 10; i++ {
		b.Add(text(fmt.Sprint(i) + strings.Repeat("t", 9)))
	}
	b.Add(Item[string]{Update: "think", Kind: Thought, Size: 5})
	if b.Size() > 100 {
		t.Errorf("kept %d bytes, bound 100", b.Size())
	}
	got := updates(b.Take())
	want := []string{strings.Repeat("h", 40), "tool", DroppedNote(30+60, 0),
		"6ttttttttt", "7ttttttttt", "8ttttttttt", "9ttttttttt", "think"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if b.Len() != 0 || b.Dropped() {
		t.Error("Take must empty the buffer")
	}
	if !regexp.MustCompile(`90 bytes of the answer came, more than shim keeps`).MatchString(want[2]) {
		t.Errorf("note %q", want[2])
	}
}

func TestNewIDAndMarker(t *testing.T) {
	if id := NewID("zed"); !regexp.MustCompile(`^zed-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("id %q", id)
	}
	if m := Marker("look at B"); m != "\n\n↪ steering: look at B\n\n" {
		t.Errorf("marker %q", m)
	}
}
