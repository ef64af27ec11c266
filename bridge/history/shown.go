package history

// What this process showed of each thread: the turns (never shown twice)
// and the ids given to replayed tool calls.

import (
	"slices"
	"strconv"
	"sync"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/past"
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

// A Replay is one replay's walk over a thread's turns, oldest first: it
// claims the turns not shown yet, names their tool calls, and remembers
// the messages it went through (shown now or before), so that a task
// that repeats the context's earlier messages shows only its own, and a
// message kept twice in a task shows once (SPEC §4.5, §12.4).
type Replay struct {
	shown *Shown
	msgs  map[string]bool
}

// NewReplay starts a replay of n turns of the thread shown.
func NewReplay(shown *Shown, n int) *Replay {
	shown.Expect(n)
	return &Replay{shown: shown, msgs: map[string]bool{}}
}

// Claim reports whether the turn is to be shown now (it was not before);
// the messages of a turn shown before count as gone through.
func (r *Replay) Claim(p *past.Turn) bool {
	if r.shown.Claim(p.TaskID) {
		return true
	}
	for i := range p.History {
		r.Repeated(&p.History[i])
	}
	if p.Status.Message != nil {
		r.Repeated(p.Status.Message)
	}
	return false
}

// Repeated reports whether a message of this id went through this replay
// already, and records it.
func (r *Replay) Repeated(m *a2a.Message) bool {
	if m.ID == "" {
		return false
	}
	if r.msgs[m.ID] {
		return true
	}
	r.msgs[m.ID] = true
	return false
}

// ToolID is the replayed view id of the tool call id of the turn taskID.
func (r *Replay) ToolID(taskID, id string) string { return r.shown.ToolID(taskID, id) }
