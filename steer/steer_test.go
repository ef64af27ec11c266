package steer

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func text(s string) Item[string] { return Item[string]{Update: s, Kind: Text, Size: len(s)} }

func updates(items []Item[string]) []string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it.Update))
	}
	return out
}

func TestWindowAdopt(t *testing.T) {
	var expired atomic.Int32
	w := NewWindow(time.Hour, 0, DroppedNote, func() { expired.Add(1) })
	if !w.Route(text("live")) {
		t.Fatal("an attached window delivers")
	}
	if w.Reserve() {
		t.Fatal("an attached window cannot be reserved")
	}
	if s := w.Detach(); s != Detached {
		t.Fatalf("detach: %v", s)
	}
	for _, s := range []string{"a", "b", "c"} {
		if w.Route(text(s)) {
			t.Fatal("a detached window must buffer")
		}
	}
	if !w.Reserve() {
		t.Fatal("reserve")
	}
	w.Route(text("d"))
	if got := updates(w.Adopt()); fmt.Sprint(got) != "[a b c d]" {
		t.Errorf("flushed %v", got)
	}
	if w.State() != Attached || !w.Route(text("e")) {
		t.Error("adopted window must deliver")
	}
	if expired.Load() != 0 {
		t.Error("adoption must not expire")
	}
}

func TestWindowExpires(t *testing.T) {
	done := make(chan struct{})
	w := NewWindow(50*time.Millisecond, 0, DroppedNote, func() { close(done) })
	w.Detach()
	w.Route(text("lost"))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the window did not close")
	}
	if w.State() != Orphaned || w.Route(text("x")) || w.Reserve() {
		t.Error("an expired window drops output and cannot be adopted")
	}
	if w.Adopt() != nil {
		t.Error("nothing to adopt")
	}
}

func TestWindowZeroGraceAndEnd(t *testing.T) {
	w := NewWindow(0, 0, DroppedNote, nil)
	if s := w.Detach(); s != Orphaned {
		t.Errorf("grace 0 must orphan at once, got %v", s)
	}
	w2 := NewWindow(time.Hour, 0, DroppedNote, nil)
	w2.Detach()
	w2.End()
	if w2.Reserve() {
		t.Error("a turn that ended cannot be adopted")
	}
	w3 := NewWindow(time.Hour, 0, DroppedNote, nil)
	w3.End()
	if s := w3.Detach(); s != Orphaned {
		t.Errorf("detaching an ended turn: %v", s)
	}
}

// TestWindowRelease: a reservation holds the window open: it stops the
// grace timer, and a timer that fired anyway (racing the reservation)
// closes nothing; a release orphans the turn.
func TestWindowRelease(t *testing.T) {
	var expired atomic.Int32
	w := NewWindow(time.Hour, 0, DroppedNote, func() { expired.Add(1) })
	w.Detach()
	if !w.Reserve() {
		t.Fatal("reserve")
	}
	if w.timer.Stop() {
		t.Error("the grace timer still ran after the reservation")
	}
	w.expire() // what the timer does when it fires
	if w.State() != Adopting || expired.Load() != 0 {
		t.Fatalf("a reserved window must not expire: %v", w.State())
	}
	w.Release()
	if w.State() != Orphaned {
		t.Errorf("release: %v", w.State())
	}
}

func TestWindowWait(t *testing.T) {
	w := NewWindow(time.Hour, 0, DroppedNote, nil)
	w.Detach()
	got := make(chan State, 1)
	go func() { got <- w.Wait(nil) }()
	select {
	case s := <-got:
		t.Fatalf("Wait returned %v while the window was open", s)
	case <-time.After(50 * time.Millisecond):
	}
	w.Reserve()
	w.Adopt()
	select {
	case s := <-got:
		if s != Attached {
			t.Errorf("Wait: %v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return on adoption")
	}
	done := make(chan struct{})
	close(done)
	w2 := NewWindow(time.Hour, 0, DroppedNote, nil)
	w2.Detach()
	if s := w2.Wait(done); s != Detached {
		t.Errorf("Wait with done closed: %v", s)
	}
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
	if !regexp.MustCompile(`90 bytes of the answer did not fit`).MatchString(want[2]) {
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

// TestWindowLeft: the channel closes when a cancel detaches the window,
// and is closed at once for a window that is not attached.
func TestWindowLeft(t *testing.T) {
	w := NewWindow[string](time.Hour, 1<<10, nil, nil)
	left := w.Left()
	select {
	case <-left:
		t.Fatal("closed while attached")
	default:
	}
	w.Detach()
	<-left
	<-w.Left()
	o := NewWindow[string](0, 1<<10, nil, nil)
	left = o.Left()
	o.Detach()
	<-left
}
