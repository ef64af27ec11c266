package bridge

// Replay (SPEC §4.5): a thread's past turns, read back from the operator
// API's /turns or from A2A tasks, shown to the editor as session updates.

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
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

func turnsFromOperator(ts []a2a.Turn) []pastTurn {
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
	return pastTurn{taskID: t.ID, state: t.Status.State, status: t.Status, artifacts: t.Artifacts, history: t.History}
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

const preambleStart = "[Context: the user is talking to you from "

// stripPreamble removes the editor-context line shim puts before the first
// prompt of a minted session (and the blank line after it).
func stripPreamble(s string) string {
	if !strings.HasPrefix(s, preambleStart) {
		return s
	}
	line, rest, _ := strings.Cut(s, "\n")
	if !strings.HasSuffix(strings.TrimRight(line, " \r"), "]") {
		return s
	}
	rest = strings.TrimPrefix(rest, "\r")
	return strings.TrimPrefix(strings.TrimPrefix(rest, "\n"), "\r\n")
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
	emit  func(update any)
	res   toolview.Resolver
}

func (s *Server) newReplayer(sess *session, emit func(any)) *replayer {
	_ = s.roots().Load(s.ctx) // a failure is logged; the map works with what it has
	return &replayer{s: s, sess: sess, st: s.thread(sess.id), agent: s.agentName(), emit: emit,
		res: rootResolver{m: s.roots(), cwd: sess.cwd, ctx: s.ctx}}
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

// replayCard is one tool call of a replayed turn.
type replayCard struct {
	id, name, parent string
	args             toolview.Args
	phase            string
	result           string
	emitted          bool
}

// turn shows one past turn: the user's text, steers and tool calls where
// they happened, the answer, and how the turn ended.
func (r *replayer) turn(p *pastTurn) {
	cards := map[string]*replayCard{}
	var order []string
	tool := func(tc a2a.ToolCall) {
		if tc.ID == "" {
			return
		}
		c := cards[tc.ID]
		if c == nil {
			c = &replayCard{id: tc.ID}
			cards[tc.ID] = c
			order = append(order, tc.ID)
		}
		if c.emitted {
			return
		}
		if tc.Name != "" {
			c.name = tc.Name
		}
		if tc.ParentID != "" {
			c.parent = tc.ParentID
		}
		if tc.Args != "" {
			c.args = toolview.ParseArgs(tc.Args)
		}
		switch tc.Phase {
		case a2a.PhaseCompleted, a2a.PhaseFailed:
			c.phase = "completed"
			c.result = tc.Result
			if tc.Phase == a2a.PhaseFailed {
				c.phase = "failed"
				if c.result == "" {
					c.result = tc.Error
				}
			}
			r.card(p.taskID, c, c.phase)
		}
	}
	for i := range p.history {
		m := &p.history[i]
		if m.FromUser() {
			if !m.HitlResume() {
				r.user(m)
			}
			continue
		}
		for _, st := range m.SteersConsumed() {
			if s := strings.TrimSpace(st.Text); s != "" {
				r.emit(chunkUpdate{SessionUpdate: uUserMessage, Content: text(st.Text)})
			}
		}
		for _, tc := range m.ToolCalls() {
			tool(tc)
		}
	}
	if m := p.status.Message; m != nil {
		for _, tc := range m.ToolCalls() {
			tool(tc)
		}
	}
	// Calls that never ended take the turn's state.
	open := "completed"
	switch p.state {
	case a2a.StateFailed, a2a.StateCanceled, a2a.StateRejected:
		open = "failed"
	case a2a.StateInputRequired, a2a.StateAuthRequired:
		open = "pending"
	case a2a.StateWorking, a2a.StateSubmitted, a2a.StateUnknown, "":
		open = "in_progress"
	}
	for _, id := range order {
		if c := cards[id]; !c.emitted {
			r.card(p.taskID, c, open)
		}
	}

	answer := answerText(p.artifacts)
	statusText := strings.TrimSpace(p.status.Message.Text())
	if answer == "" && p.text != "" && (p.state != a2a.StateFailed || strings.TrimSpace(p.text) != statusText) {
		answer = trimLeadingBlankLines(p.text)
	}
	if answer == "" && (p.state == a2a.StateCompleted || p.state == a2a.StateRejected) && p.status.Message.Hitl() == nil {
		answer = trimLeadingBlankLines(p.status.Message.Text())
	}
	if answer != "" {
		r.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(answer)})
	}
	sep := ""
	if answer != "" {
		sep = "\n\n"
	}
	switch p.state {
	case a2a.StateFailed:
		f := a2a.FriendlyError(p.status.Message.Text())
		if f == "" {
			f = "the task failed"
		}
		r.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(sep + "⚠️ " + r.agent + " error: " + f)})
	case a2a.StateInputRequired:
		r.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(sep + parkQuestion(p.status.Message))})
	case a2a.StateAuthRequired:
		if statusText != "" {
			r.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(sep + statusText)})
		}
	case a2a.StateWorking, a2a.StateSubmitted:
		r.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(sep + "(still running elsewhere…)")})
	}
}

// user shows a user message: its text (preamble stripped) and images.
func (r *replayer) user(m *a2a.Message) {
	if s := stripPreamble(m.Text()); strings.TrimSpace(s) != "" {
		r.emit(chunkUpdate{SessionUpdate: uUserMessage, Content: text(s)})
	}
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.Kind == a2a.PartFile && len(p.Raw) > 0 && strings.HasPrefix(p.MediaType, "image/") {
			r.emit(chunkUpdate{SessionUpdate: uUserMessage, Content: imageContent{Type: "image",
				Data: base64.StdEncoding.EncodeToString(p.Raw), MimeType: p.MediaType}})
		}
	}
}

// card shows one tool call as a single tool_call in its final state.
func (r *replayer) card(taskID string, c *replayCard, status string) {
	c.emitted = true
	u := toolCallUpdate{SessionUpdate: uToolCall, ToolCallID: r.st.toolID(taskID, c.id), Title: cardTitle(c.name, c.parent, c.args),
		Kind: toolview.Kind(c.name), Status: status, RawInput: rawInput(c.args)}
	u.Locations = acpLocations(toolview.Locations(c.name, c.args, r.res))
	if toolview.Kind(c.name) == toolview.KindSearch {
		if locs := toolview.SearchLocations(c.result, c.args.String("project"), r.res); len(locs) > 0 {
			u.Locations = acpLocations(locs)
		}
	}
	if status == "completed" {
		if d, ok := toolview.Diff(c.name, c.args, r.res); ok {
			u.Content = append(u.Content, diffContent{Type: "diff", Path: d.Path, OldText: d.OldText, NewText: d.NewText})
		}
	}
	if c.result != "" {
		u.Content = append(u.Content, toolContent{Type: "content", Content: text(toolview.CutResult(c.result))})
		u.RawOutput = c.result
	}
	r.emit(u)
}

// answerText is the text of a task's artifacts, in order, each without its
// leading blank lines, separated by blank lines.
func answerText(arts []a2a.Artifact) string {
	var out []string
	for i := range arts {
		var b strings.Builder
		for j := range arts[i].Parts {
			if p := &arts[i].Parts[j]; p.Kind == a2a.PartText && !p.Thought() {
				b.WriteString(p.Text)
			}
		}
		if s := trimLeadingBlankLines(b.String()); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n\n")
}

func trimLeadingBlankLines(s string) string {
	st := newShownText()
	return st.trimLead(s)
}

// reverseTasks turns a newest-first task list into oldest first.
func reverseTasks(ts []a2a.Task) []a2a.Task {
	ts = slices.Clone(ts)
	slices.Reverse(ts)
	return ts
}
