package history

// What this process showed of each thread: the turns (never shown twice)
// and the ids given to replayed tool calls.

import (
	"slices"
	"strconv"
	"sync"
)

// shownKeep is how many shown task ids a thread remembers beyond the
// longest list of turns a replay read for it.
const shownKeep = 1000

// Shown is what this process remembers of one thread's history: the
// turns already shown (never shown twice) and the replayed tool-call ids.
// shown keeps the newest ids only (order, oldest first, says which), at
// most keep: turns are claimed oldest first, and a replay reads at most
// the newest 200 turns of a thread from a server that honours its limit,
// so an id that fell out is older than any a replay can bring back. It is
// safe for concurrent use.
type Shown struct {
	mu      sync.Mutex
	shown   map[string]bool
	order   []string
	keep    int
	toolIDs map[string]bool
}

func newShown() *Shown {
	return &Shown{shown: map[string]bool{}, keep: shownKeep, toolIDs: map[string]bool{}}
}

// Expect raises what the thread remembers to cover a replay of n turns (a
// server that sends every turn of the thread), before they are claimed.
func (st *Shown) Expect(n int) {
	st.mu.Lock()
	st.keep = max(st.keep, n+shownKeep)
	st.mu.Unlock()
}

// Claim marks a turn shown and reports whether it was new.
func (st *Shown) Claim(taskID string) bool {
	if taskID == "" {
		return true
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.shown[taskID] {
		return false
	}
	st.shown[taskID] = true
	st.order = append(st.order, taskID)
	if n := len(st.order) - st.keep; n > 0 {
		for _, old := range st.order[:n] {
			delete(st.shown, old)
		}
		st.order = slices.Delete(st.order, 0, n)
	}
	return true
}

// ToolID is the replayed view id of a tool call: "replay-<id>", made
// unique within the session when the server reuses ids across turns.
func (st *Shown) ToolID(taskID, id string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	rid := "replay-" + id
	if st.toolIDs[rid] {
		rid = "replay-" + taskID + "-" + id
		for n := 2; st.toolIDs[rid]; n++ {
			rid = "replay-" + taskID + "-" + id + "-" + strconv.Itoa(n)
		}
	}
	st.toolIDs[rid] = true
	return rid
}

// Threads holds what this process showed of each thread, by session id.
// The zero value is ready to use.
type Threads struct{ m sync.Map }

// Of is what this process showed of the thread id.
func (ts *Threads) Of(id string) *Shown {
	if v, ok := ts.m.Load(id); ok {
		return v.(*Shown)
	}
	v, _ := ts.m.LoadOrStore(id, newShown())
	return v.(*Shown)
}

// Forget drops what this process remembers of a thread.
func (ts *Threads) Forget(id string) { ts.m.Delete(id) }
