package history

import (
	"fmt"
	"testing"
)

// TestShownBounded: what a thread remembers of the turns it showed does
// not grow with every live turn: the newest shownKeep ids stay claimed
// (never shown again), older ones are dropped. A replay of more turns
// than that (a server that ignores limit=200) raises the bound first, so
// none of its turns is shown twice.
func TestShownBounded(t *testing.T) {
	st := newShown()
	const live = 3 * shownKeep
	for i := range live {
		if !st.Claim(fmt.Sprintf("live-%d", i)) {
			t.Fatalf("live-%d claimed twice", i)
		}
	}
	if len(st.shown) != shownKeep || len(st.order) != shownKeep {
		t.Errorf("%d ids remembered (%d in order), want %d", len(st.shown), len(st.order), shownKeep)
	}
	for i := live - shownKeep; i < live; i++ {
		if st.Claim(fmt.Sprintf("live-%d", i)) {
			t.Fatalf("live-%d, among the newest, claimed again", i)
		}
	}
	const big = 5 * shownKeep
	st.Expect(big)
	for i := range big {
		st.Claim(fmt.Sprintf("r-%d", i))
	}
	for i := range big {
		if st.Claim(fmt.Sprintf("r-%d", i)) {
			t.Fatalf("replayed r-%d claimed again", i)
		}
	}
}
