package render

// Tool calls, rendered: a tool call's title, kind, locations, result and
// diff, live (a tool_call when the call first appears, then updates) or
// replayed (one tool_call in its final state). How a call looks is
// decided here alone, with toolview: what a kind of tool adds to its view
// is one row of kindRules (call.go), its title one of toolview's rules. A
// plan tool's list follows its view as a plan update (planOf); a command
// view is a terminal when the client draws them (terminal).

import (
	"slices"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/bridge/toolview"
)

// Tools are the tool calls of one turn and how their views look.
type Tools struct {
	out       *sink
	roots     toolpath.Roots
	terminals bool // the client draws command calls as terminals
	calls     calls
	// parsed is the arguments Unknown parsed, for the call's rendering.
	parsed parsedArgs
}

func (t *Tools) resultShown(c *call, status acp.ToolStatus, result string) resultShown {
	var v resultShown
	rule := kindRules[c.kindOf()]
	if d := c.agentDiff(); status == acp.ToolCompleted && d != nil {
		v.content = append(v.content, d)
	} else if status == acp.ToolCompleted && rule.completed != nil {
		v.content = append(v.content, rule.completed(c, t.roots)...)
	}
	if result != "" {
		v.content = append(v.content, acp.Content{Content: acp.Text(toolview.CutResult(result))})
		// A command's output goes to the editor once: as its terminal's
		// output, else as the view's content (SPEC §13 amended).
		if c.kindOf() != acp.ToolKindExecute {
			v.rawOutput = acp.RawJSON(result)
		}
	}
	if rule.resultLocations != nil {
		v.locations = rule.resultLocations(c, result, t.roots)
	}
	return v
}

// Tool renders one tool-call event of a live turn.
func (t *Tools) Tool(tc a2a.ToolCall) []Out {
	if tc.ID = t.calls.callID(tc); tc.ID == "" {
		return nil
	}
	tc.ID = t.calls.cardID(tc.ID)
	c := t.calls.open[tc.ID]
	if c == nil && t.calls.standIns > 0 {
		tc.ID, c = t.takeStandIn(tc)
	}
	if c != nil && c.denied {
		return nil
	}
	if status, ended := endStatus(tc); ended {
		if c == nil {
			c = t.openCall(tc)
		}
		t.endCall(tc, c, status)
		return t.out.take()
	}
	if c == nil {
		c = t.openCall(tc)
		if tc.Phase != a2a.PhaseOutput {
			return t.out.take()
		}
	}
	if tc.Phase == a2a.PhaseOutput {
		// A terminal view keeps its one terminal block; its output comes
		// with its end (terminal_output), never twice.
		if !c.terminal(t.terminals) {
			t.out.push(c.liveOutput(tc))
		}
		return t.out.take()
	}
	u := acp.ToolCallUpdate{ToolCallID: tc.ID}
	if st := liveStatus(tc.Phase); st != c.status && (st != acp.ToolPending || !c.approved) {
		c.status, u.Status = st, st
	}
	// Servers announce a call twice: first with empty args, then with
	// the full ones.
	if tc.Args == "" {
		if u.Status != "" {
			t.out.push(u)
		}
		return t.out.take()
	}
	if tc.Name != "" {
		c.name = tc.Name
	}
	c.learn(tc)
	c.args = t.parseArgs(tc.Args)
	plan := t.planOf(c)
	v := c.shown(t.roots)
	u.Title, u.Kind, u.Locations, u.RawInput = v.title, v.kind, v.locations, v.rawInput
	t.out.push(u)
	t.pushPlan(plan)
	return t.out.take()
}

// takeStandIn is the card a park opened for the call tc announces, now
// the call's (the latest open one of its kind on the same command or
// file), and its id; tc's own id and nil when there is none.
func (t *Tools) takeStandIn(tc a2a.ToolCall) (string, *call) {
	if tc.Args == "" {
		return tc.ID, nil
	}
	kind := tc.Kind
	if kind == "" {
		kind = toolview.Kind(tc.Name)
	}
	a := toolview.ParseArgs(tc.Args)
	for i := len(t.calls.order) - 1; i >= 0; i-- {
		id := t.calls.order[i]
		if c := t.calls.open[id]; c.standIn && (!c.ended || c.denied) && c.kindOf() == kind && toolview.SameSubject(kind, c.args, a) {
			c.standIn = false
			t.calls.standIns--
			if t.calls.alias == nil {
				t.calls.alias = map[string]string{}
			}
			t.calls.alias[tc.ID] = id
			return id, c
		}
	}
	return tc.ID, nil
}

func (t *Tools) openCall(tc a2a.ToolCall) *call {
	c := &call{name: tc.Name, parent: tc.ParentID, args: t.parseArgs(tc.Args)}
	c.learn(tc)
	c.status = liveStatus(tc.Phase)
	t.calls.open[tc.ID] = c
	t.calls.order = append(t.calls.order, tc.ID)
	plan := t.planOf(c)
	v := c.shown(t.roots)
	u := acp.ToolCall{ToolCallID: tc.ID, Title: v.title, Kind: v.kind, Status: c.status,
		Locations: v.locations, RawInput: v.rawInput}
	if c.terminal(t.terminals) {
		u.Content, u.Meta = terminalBlock(tc.ID), &acp.ToolMeta{TerminalInfo: &acp.TerminalInfo{TerminalID: tc.ID}}
	}
	t.out.push(u)
	t.pushPlan(plan)
	return c
}

func (t *Tools) endCall(tc a2a.ToolCall, c *call, status acp.ToolStatus) {
	if tc.Args != "" {
		c.args = t.parseArgs(tc.Args)
	}
	c.learn(tc)
	var plan *acp.Plan
	if tc.Args != "" {
		plan = t.planOf(c)
	}
	result := resultOf(tc, status)
	v := t.resultShown(c, status, result)
	c.ended, c.status = true, status
	u := acp.ToolCallUpdate{ToolCallID: tc.ID, Status: status, Content: v.content, RawOutput: v.rawOutput, Locations: v.locations}
	if c.terminal(t.terminals) {
		u.Content, u.Meta = terminalBlock(tc.ID), terminalEnd(tc.ID, status, result)
	}
	t.out.push(u)
	t.pushPlan(plan)
}

// planOf is the plan update a plan tool's view is due, to follow the
// view's own update: its list as the editor's plan once its args are
// complete, and again when they change (SPEC §11.5); nil when none is
// (the same list of the same call is not sent twice). It is read before
// the view's update is built, so that reading a big list never overlaps
// with holding the view's raw input.
func (t *Tools) planOf(c *call) *acp.Plan {
	items, ok := toolview.Plan(c.name, c.args)
	if !ok || (c.planSent && slices.Equal(items, c.plan)) {
		return nil
	}
	c.plan, c.planSent = items, true
	entries := make([]acp.PlanEntry, len(items))
	for i, it := range items {
		entries[i] = acp.PlanEntry{Content: it.Content, Priority: acp.PlanEntryPriority(it.Priority), Status: acp.PlanEntryStatus(it.Status)}
	}
	return &acp.Plan{Entries: entries}
}

// pushPlan shows a plan update planOf gave, if any.
func (t *Tools) pushPlan(p *acp.Plan) {
	if p != nil {
		t.out.push(*p)
	}
}

// ToolName is the name of the call id's view ("" when none).
func (t *Tools) ToolName(id string) string {
	if c := t.calls.open[t.calls.cardID(id)]; c != nil {
		return c.name
	}
	return ""
}

// Settle ends every view still open as the turn ends (no view outlives its
// turn): status is completed for a turn that ends end_turn, else failed.
func (t *Tools) Settle(status acp.ToolStatus) []Out {
	for _, id := range t.calls.order {
		if c := t.calls.open[id]; !c.ended {
			c.ended = true
			u := acp.ToolCallUpdate{ToolCallID: id, Status: status}
			if c.terminal(t.terminals) {
				u.Meta = terminalEnd(id, status, "")
				u.Meta.TerminalOutput = nil
			}
			t.out.push(u)
		}
	}
	return t.out.take()
}

// ParkTool opens the pending view of the tool call a park's data names
// and returns its id; a call already open keeps its view. "" when the
// data names none.
func (t *Tools) ParkTool(d *a2a.ParkData) (string, []Out) {
	if d == nil || d.Tool == nil {
		return "", nil
	}
	tc := *d.Tool
	if c := t.calls.open[tc.ID]; tc.ID != "" && c != nil && !c.ended {
		return tc.ID, nil
	}
	if t.calls.open[tc.ID] != nil {
		tc.ID = ""
	}
	if tc.ID = t.calls.callID(tc); tc.ID == "" {
		return "", nil
	}
	t.openCall(tc)
	return tc.ID, t.out.take()
}

// Unknown is the project a tool call's arguments name that the roots
// taken do not know; "" when there is none. The caller reloads the roots
// for it (at most once per name in a while, roots.Map.ReloadFor) and
// gives the tool calls the new ones (SetRoots) before it renders the call.
func (t *Tools) Unknown(tc a2a.ToolCall) string {
	if !t.roots.Taken() || !strings.Contains(tc.Args, `"project"`) {
		return ""
	}
	a := toolview.ParseArgs(tc.Args)
	t.parsed = parsedArgs{text: tc.Args, args: a, ok: true}
	p := a.String("project")
	if p == "" || t.roots.Knows(p) {
		return ""
	}
	return p
}

// parseArgs parses a call's arguments; the text Unknown parsed is not
// parsed again when the call is rendered next.
func (t *Tools) parseArgs(s string) toolview.Args {
	if t.parsed.ok && s == t.parsed.text {
		a := t.parsed.args
		t.parsed = parsedArgs{}
		return a
	}
	return toolview.ParseArgs(s)
}

// parsedArgs is a call's argument text and what it parsed to.
type parsedArgs struct {
	text string
	args toolview.Args
	ok   bool
}

// SetRoots gives the tool calls newer roots (after a reload, or
// roots learned from a list_projects result).
func (t *Tools) SetRoots(roots toolpath.Roots) { t.roots = roots }

// pastTool renders one tool-call event of a past turn: a call is shown
// once, as one tool_call in its final state, when it ended (newID names
// the view in the session).
func (t *Tools) pastTool(tc a2a.ToolCall, newID func(string) string) []Out {
	if tc.ID = t.calls.callID(tc); tc.ID == "" {
		return nil
	}
	c := t.calls.open[tc.ID]
	if c == nil {
		c = &call{}
		t.calls.open[tc.ID] = c
		t.calls.order = append(t.calls.order, tc.ID)
	}
	if c.emitted {
		return nil
	}
	if tc.Name != "" {
		c.name = tc.Name
	}
	if tc.ParentID != "" {
		c.parent = tc.ParentID
	}
	if tc.Args != "" {
		c.args = t.parseArgs(tc.Args)
	}
	c.learn(tc)
	if status, ended := endStatus(tc); ended {
		t.pastCall(tc.ID, c, status, resultOf(tc, status), newID)
	}
	return t.out.take()
}

// pastOpen shows the past calls that never ended, with the status the
// turn's state gives them.
func (t *Tools) pastOpen(state a2a.State, newID func(string) string) []Out {
	status := acp.ToolCompleted
	switch state {
	case a2a.StateFailed, a2a.StateCanceled, a2a.StateRejected:
		status = acp.ToolFailed
	case a2a.StateInputRequired, a2a.StateAuthRequired:
		status = acp.ToolPending
	case a2a.StateWorking, a2a.StateSubmitted, a2a.StateUnknown, "":
		status = acp.ToolInProgress
	}
	for _, id := range t.calls.order {
		if c := t.calls.open[id]; !c.emitted {
			t.pastCall(id, c, status, "", newID)
		}
	}
	return t.out.take()
}

func (t *Tools) pastCall(id string, c *call, status acp.ToolStatus, result string, newID func(string) string) {
	c.emitted = true
	plan := t.planOf(c)
	cv, rv := c.shown(t.roots), t.resultShown(c, status, result)
	u := acp.ToolCall{ToolCallID: newID(id), Title: cv.title, Kind: cv.kind, Status: status, RawInput: cv.rawInput,
		Locations: cv.locations, Content: rv.content, RawOutput: rv.rawOutput}
	if len(rv.locations) > 0 {
		u.Locations = rv.locations
	}
	if c.terminal(t.terminals) {
		tid := u.ToolCallID
		u.Content, u.Meta = terminalBlock(tid), &acp.ToolMeta{TerminalInfo: &acp.TerminalInfo{TerminalID: tid}}
		if status == acp.ToolCompleted || status == acp.ToolFailed {
			end := terminalEnd(tid, status, result)
			u.Meta.TerminalOutput, u.Meta.TerminalExit = end.TerminalOutput, end.TerminalExit
		}
	}
	if c.denied {
		u.Content = append(u.Content, denied()...)
	}
	t.out.push(u)
	t.pushPlan(plan)
}
