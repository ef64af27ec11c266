package bridge

// Replay (SPEC §4.5): a thread's past turns, read back from the operator
// API's /turns or from A2A tasks, shown to the editor as session updates.

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/acp"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/operator"
	"github.com/shimdev/shim/bridge/toolview"
)

// pastTurn is one turn of a thread as read back from the server.
type pastTurn struct {
	taskID    string
	state     a2a.State
	updated   time.Time // zero when unknown
	text      string    // the operator API's answer text (partial while running)
	status    a2a.Status
	artifacts []a2a.Artifact
	history   []a2a.Message
}

func turnsFromOperator(ts []operator.Turn) []pastTurn {
	out := make([]pastTurn, 0, len(ts))
	for _, t := range ts {
		st := t.State
		if st == "" || st == a2a.StateUnknown {
			st = t.Status.State
		}
		out = append(out, pastTurn{taskID: t.TaskID, state: st, updated: t.Updated, text: t.Text, status: t.Status,
			artifacts: t.Artifacts, history: t.History})
	}
	return out
}

func turnFromTask(t *a2a.Task) pastTurn {
	return pastTurn{taskID: t.ID, state: t.Status.State, updated: t.Status.Timestamp, status: t.Status, artifacts: t.Artifacts, history: t.History}
}

// oldestFirst orders turns by their status timestamp, oldest first, then
// by the order the server gave (SPEC §4.5); a thread where some turn has
// no timestamp follows the order of the messages in its longest history.
func oldestFirst(ts []pastTurn) {
	for i := range ts {
		if ts[i].updated.IsZero() {
			byLongestHistory(ts)
			return
		}
	}
	slices.SortStableFunc(ts, func(a, b pastTurn) int { return a.updated.Compare(b.updated) })
}

// byLongestHistory orders the turns whose messages the longest history
// holds (agents that keep a context's whole history in every task) by the
// place of their last such message there, then by the server's order; a
// turn none of whose messages it holds keeps its place (SPEC §4.5
// amended). The cost is linear in the messages read.
func byLongestHistory(ts []pastTurn) {
	longest := 0
	for i := range ts {
		if len(ts[i].history) > len(ts[longest].history) {
			longest = i
		}
	}
	if len(ts) < 2 || len(ts[longest].history) < 2 {
		return
	}
	at := make(map[string]int, len(ts[longest].history))
	for i := range ts[longest].history {
		if id := ts[longest].history[i].ID; id != "" {
			if _, dup := at[id]; !dup {
				at[id] = i
			}
		}
	}
	type placed struct {
		at   int
		turn pastTurn
	}
	var slots []int
	var found []placed
	for i := range ts {
		last := -1
		for j := range ts[i].history {
			if n, ok := at[ts[i].history[j].ID]; ok && ts[i].history[j].ID != "" {
				last = max(last, n)
			}
		}
		if last >= 0 {
			slots = append(slots, i)
			found = append(found, placed{last, ts[i]})
		}
	}
	slices.SortStableFunc(found, func(a, b placed) int { return a.at - b.at })
	for n, i := range slots {
		ts[i] = found[n].turn
	}
}

// firstUserText is the text of the turn's first user message that is not
// a hitl resume, preamble stripped.
func (p *pastTurn) firstUserText() string {
	for i := range p.history {
		m := &p.history[i]
		if m.FromUser() && !m.HitlResume() {
			if s := strings.TrimSpace(stripPreamble(m.Text())); s != "" {
				return s
			}
		}
	}
	return ""
}

// threadTitle is a title from the first user message of a thread's turns.
func threadTitle(ts []pastTurn) string {
	for i := range ts {
		if s := ts[i].firstUserText(); s != "" {
			return titleOf(s)
		}
	}
	return ""
}

// shownKeep is how many shown task ids a thread remembers beyond the
// longest list of turns a replay read for it.
const shownKeep = 1000

// threadState is what this process remembers of one thread's history: the
// turns already shown (never shown twice) and the replayed tool-call ids.
// shown keeps the newest ids only (order, oldest first, says which), at
// most keep: turns are claimed oldest first, and a replay reads at most
// the newest 200 turns of a thread from a server that honours its limit,
// so an id that fell out is older than any a replay can bring back.
type threadState struct {
	mu      sync.Mutex
	shown   map[string]bool
	order   []string
	keep    int
	toolIDs map[string]bool
}

// expect raises what the thread remembers to cover a replay of n turns (a
// server that sends every turn of the thread), before they are claimed.
func (st *threadState) expect(n int) {
	st.mu.Lock()
	st.keep = max(st.keep, n+shownKeep)
	st.mu.Unlock()
}

func (s *Server) thread(id string) *threadState {
	if v, ok := s.threadStates.Load(id); ok {
		return v.(*threadState)
	}
	v, _ := s.threadStates.LoadOrStore(id, &threadState{shown: map[string]bool{}, keep: shownKeep, toolIDs: map[string]bool{}})
	return v.(*threadState)
}

// forgetThread drops what this process remembers of a thread.
func (s *Server) forgetThread(id string) { s.threadStates.Delete(id) }

// claim marks a turn shown and reports whether it was new.
func (st *threadState) claim(taskID string) bool {
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

// toolID is the replayed card id of a tool call: "replay-<id>", made unique
// within the session when the server reuses ids across turns.
func (st *threadState) toolID(taskID, id string) string {
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

// replayer shows past turns through emit.
type replayer struct {
	s     *Server
	sess  *session
	st    *threadState
	agent string
	emit  func(update acp.Update)
	res   toolview.Resolver
	// msgs holds the message ids of the turns this replay went through
	// (shown now or before): a task that repeats the context's earlier
	// messages shows only its own (SPEC §4.5 amended).
	msgs map[string]bool
}

func (s *Server) newReplayer(sess *session, emit func(acp.Update)) *replayer {
	_ = s.roots().Load(s.ctx) // a failure is logged; the map works with what it has
	return &replayer{s: s, sess: sess, st: s.thread(sess.id), agent: s.agentName(), emit: emit,
		res: s.resolver(s.ctx, sess), msgs: map[string]bool{}}
}

// replay shows the turns not shown yet, oldest first. With park set, a
// parked last turn leaves its task for the next prompt to answer. It
// returns how many turns it showed.
func (r *replayer) replay(ts []pastTurn, park bool) int {
	n := 0
	r.st.expect(len(ts))
	for i := range ts {
		p := &ts[i]
		if !r.st.claim(p.taskID) {
			r.shownBefore(p)
			continue
		}
		r.turn(p)
		n++
	}
	if park && len(ts) > 0 {
		last := &ts[len(ts)-1]
		if last.state == a2a.StateInputRequired && last.taskID != "" {
			r.sess.mu.Lock()
			r.sess.parkedTask = last.taskID
			r.sess.mu.Unlock()
		}
	}
	return n
}

// turn shows one past turn in the order it happened: the user's text,
// steers and tool calls where they happened, the calls that never ended,
// the answer and how the turn ended. What each looks like is the
// renderer's (render.go).
func (r *replayer) turn(p *pastTurn) {
	v := r.s.newSessionRenderer(r.agent, r.res)
	cardID := func(id string) string { return r.st.toolID(p.taskID, id) }
	for i := range p.history {
		m := &p.history[i]
		if r.repeated(m) {
			continue // kept twice in a task (SPEC §12.4), or an earlier task's
		}
		if m.FromUser() {
			if !m.HitlResume() {
				r.send(v.userMessage(m))
			}
			continue
		}
		r.send(v.steersRead(m.SteersConsumed()))
		tools := m.ToolCalls()
		if park := p.status.Message; park != nil && m.ID != "" && m.ID == park.ID {
			tools = p.status.ToolCalls() // the status message, kept in the history too
		}
		for _, tc := range tools {
			r.send(v.pastTool(tc, cardID))
		}
	}
	if m := p.status.Message; m != nil && !r.repeated(m) {
		for _, tc := range p.status.ToolCalls() { // a park's data parts are its own
			r.send(v.pastTool(tc, cardID))
		}
	}
	r.send(v.pastOpen(p.state, cardID))
	r.send(v.pastEnd(p))
}

// repeated reports whether a message of this id went through this replay
// already, and records it.
func (r *replayer) repeated(m *a2a.Message) bool {
	if m.ID == "" {
		return false
	}
	if r.msgs[m.ID] {
		return true
	}
	r.msgs[m.ID] = true
	return false
}

// shownBefore records the messages of a turn shown before this replay.
func (r *replayer) shownBefore(p *pastTurn) {
	for i := range p.history {
		r.repeated(&p.history[i])
	}
	if p.status.Message != nil {
		r.repeated(p.status.Message)
	}
}

func (r *replayer) send(outs []out) {
	for _, o := range outs {
		r.emit(o.Update())
	}
}

// reverseTasks turns a newest-first task list into oldest first.
func reverseTasks(ts []a2a.Task) []a2a.Task {
	ts = slices.Clone(ts)
	slices.Reverse(ts)
	return ts
}
