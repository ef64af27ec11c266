package render

// Tool calls, rendered: a tool call's title, kind, locations, result and
// diff, live (a tool_call when the call first appears, then updates) or
// replayed (one tool_call in its final state). What a kind of tool adds
// to its view is one row of kindRules; what a phase means is toolPhases.
// A plan tool's list follows its view as a plan update (planOf); a
// command view is a terminal when the client draws them (terminal).

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
)

// calls are the calls of one turn.
type calls struct {
	open  map[string]*call
	order []string // ids in the order they opened
}

type call struct {
	name   string
	parent string
	args   toolview.Args
	ended  bool
	// emitted: a replayed view was shown (in its final state)
	emitted bool
	// plan is the plan last sent for this call (planSent).
	plan     []toolview.PlanItem
	planSent bool
	agentSays
}

// kindRule is what one kind of tool adds to its view; a kind with no row
// adds nothing.
type kindRule struct {
	// completed adds content to a view that completed (a diff).
	completed func(c *call, res Roots) []acp.ToolCallContent
	// resultLocations reads locations from a result (search hits); nil
	// keeps the view's own.
	resultLocations func(c *call, result string, res Roots) []acp.Location
}

var kindRules = map[acp.ToolKind]kindRule{
	acp.ToolKindEdit: {completed: func(c *call, res Roots) []acp.ToolCallContent {
		if d, ok := toolview.Diff(c.name, c.args, res); ok {
			return []acp.ToolCallContent{acp.Diff{Path: d.Path, OldText: d.OldText, NewText: d.NewText}}
		}
		return nil
	}},
	acp.ToolKindSearch: {resultLocations: func(c *call, result string, res Roots) []acp.Location {
		return acpLocations(toolview.SearchLocations(result, c.args.String("project"), res))
	}},
}

// toolPhases maps a call's phase to the status of its view; a phase not
// listed leaves the call running (in_progress). Completed and failed end it.
var toolPhases = map[a2a.Phase]acp.ToolStatus{
	a2a.PhaseCompleted: acp.ToolCompleted,
	a2a.PhaseFailed:    acp.ToolFailed,
	a2a.PhasePending:   acp.ToolPending,
}

// endStatus is the status a call's phase ends its view with.
func endStatus(tc a2a.ToolCall) (acp.ToolStatus, bool) {
	s := toolPhases[tc.Phase]
	return s, s == acp.ToolCompleted || s == acp.ToolFailed
}

// liveStatus is the status a view opens or runs with (a call that ends
// at once opens in_progress).
func liveStatus(p a2a.Phase) acp.ToolStatus {
	if s, ok := toolPhases[p]; ok && s != acp.ToolCompleted && s != acp.ToolFailed {
		return s
	}
	return acp.ToolInProgress
}

// resultOf is what an ended call returned: its result, or a failed call's
// error.
func resultOf(tc a2a.ToolCall, status acp.ToolStatus) string {
	if status == acp.ToolFailed && tc.Result == "" {
		return tc.Error
	}
	return tc.Result
}

// callShown is what a view shows of the call itself.
type callShown struct {
	title     string
	kind      acp.ToolKind
	locations []acp.Location
	rawInput  json.RawMessage
}

func (r *Renderer) callShown(c *call) callShown {
	locs := toolview.Locations(c.name, c.args, r.roots)
	locs = append(locs, c.agentLocations(r.roots, locs)...)
	return callShown{title: callTitle(c.titleName(), c.parent, c.args), kind: c.kindOf(),
		locations: acpLocations(locs), rawInput: rawInput(c.args)}
}

// resultShown is what an ended view shows of its result.
type resultShown struct {
	content   []acp.ToolCallContent
	rawOutput json.RawMessage
	locations []acp.Location // nil: the view's own stand
}

func (r *Renderer) resultShown(c *call, status acp.ToolStatus, result string) resultShown {
	var v resultShown
	rule := kindRules[c.kindOf()]
	if d := c.agentDiff(); status == acp.ToolCompleted && d != nil {
		v.content = append(v.content, d)
	} else if status == acp.ToolCompleted && rule.completed != nil {
		v.content = append(v.content, rule.completed(c, r.roots)...)
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
		v.locations = rule.resultLocations(c, result, r.roots)
	}
	return v
}

// Tool renders one tool-call event of a live turn.
func (r *Renderer) Tool(tc a2a.ToolCall) []Out {
	if tc.ID = r.calls.callID(tc); tc.ID == "" {
		return nil
	}
	c := r.calls.open[tc.ID]
	if status, ended := endStatus(tc); ended {
		if c == nil {
			c = r.openCall(tc)
		}
		r.endCall(tc, c, status)
		return r.take()
	}
	if c == nil {
		c = r.openCall(tc)
		if tc.Phase != a2a.PhaseOutput {
			return r.take()
		}
	}
	if tc.Phase == a2a.PhaseOutput {
		// A terminal view keeps its one terminal block; its output comes
		// with its end (terminal_output), never twice.
		if !r.terminal(c) {
			r.push(c.liveOutput(tc))
		}
		return r.take()
	}
	u := acp.ToolCallUpdate{ToolCallID: tc.ID}
	if st := liveStatus(tc.Phase); st != c.status {
		c.status, u.Status = st, st
	}
	// Servers announce a call twice: first with empty args, then with
	// the full ones.
	if tc.Args == "" {
		if u.Status != "" {
			r.push(u)
		}
		return r.take()
	}
	if tc.Name != "" {
		c.name = tc.Name
	}
	c.learn(tc)
	c.args = r.parseArgs(tc.Args)
	plan := r.planOf(c)
	v := r.callShown(c)
	u.Title, u.Kind, u.Locations, u.RawInput = v.title, v.kind, v.locations, v.rawInput
	r.push(u)
	r.pushPlan(plan)
	return r.take()
}

func (r *Renderer) openCall(tc a2a.ToolCall) *call {
	c := &call{name: tc.Name, parent: tc.ParentID, args: r.parseArgs(tc.Args)}
	c.learn(tc)
	c.status = liveStatus(tc.Phase)
	r.calls.open[tc.ID] = c
	r.calls.order = append(r.calls.order, tc.ID)
	plan := r.planOf(c)
	v := r.callShown(c)
	u := acp.ToolCall{ToolCallID: tc.ID, Title: v.title, Kind: v.kind, Status: c.status,
		Locations: v.locations, RawInput: v.rawInput}
	if r.terminal(c) {
		u.Content, u.Meta = terminalBlock(tc.ID), &acp.ToolMeta{TerminalInfo: &acp.TerminalInfo{TerminalID: tc.ID}}
	}
	r.push(u)
	r.pushPlan(plan)
	return c
}

func (r *Renderer) endCall(tc a2a.ToolCall, c *call, status acp.ToolStatus) {
	if tc.Args != "" {
		c.args = r.parseArgs(tc.Args)
	}
	c.learn(tc)
	var plan *acp.Plan
	if tc.Args != "" {
		plan = r.planOf(c)
	}
	result := resultOf(tc, status)
	v := r.resultShown(c, status, result)
	c.ended, c.status = true, status
	u := acp.ToolCallUpdate{ToolCallID: tc.ID, Status: status, Content: v.content, RawOutput: v.rawOutput, Locations: v.locations}
	if r.terminal(c) {
		u.Content, u.Meta = terminalBlock(tc.ID), terminalEnd(tc.ID, status, result)
	}
	r.push(u)
	r.pushPlan(plan)
}

// terminal reports whether the view shows its output as a terminal: a
// command c, for a client that draws them (SPEC §11.6).
func (r *Renderer) terminal(c *call) bool {
	return r.opts.Terminals && c.kindOf() == acp.ToolKindExecute
}

// terminalBlock is a terminal view's content: its one terminal, named by
// the view's id.
func terminalBlock(id string) []acp.ToolCallContent {
	return []acp.ToolCallContent{acp.Terminal{TerminalID: id}}
}

// terminalEnd is the _meta of a terminal view that ended: what it printed
// (the result text) and the exit code the result states, else 0 for a
// completed call and 1 for a failed one.
func terminalEnd(id string, status acp.ToolStatus, result string) *acp.ToolMeta {
	code, ok := toolview.ExitCode(result)
	if !ok && status != acp.ToolCompleted {
		code = 1
	}
	return &acp.ToolMeta{TerminalOutput: &acp.TerminalOutput{TerminalID: id, Data: result},
		TerminalExit: &acp.TerminalExit{TerminalID: id, ExitCode: code}}
}

// planOf is the plan update a plan tool's view is due, to follow the
// view's own update: its list as the editor's plan once its args are
// complete, and again when they change (SPEC §11.5); nil when none is
// (the same list of the same call is not sent twice). It is read before
// the view's update is built, so that reading a big list never overlaps
// with holding the view's raw input.
func (r *Renderer) planOf(c *call) *acp.Plan {
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
func (r *Renderer) pushPlan(p *acp.Plan) {
	if p != nil {
		r.push(*p)
	}
}

// ToolName is the name of the call id's view ("" when none).
func (r *Renderer) ToolName(id string) string {
	if c := r.calls.open[id]; c != nil {
		return c.name
	}
	return ""
}

// Settle ends every view still open as the turn ends (no view outlives its
// turn): status is completed for a turn that ends end_turn, else failed.
func (r *Renderer) Settle(status acp.ToolStatus) []Out {
	for _, id := range r.calls.order {
		if c := r.calls.open[id]; !c.ended {
			c.ended = true
			u := acp.ToolCallUpdate{ToolCallID: id, Status: status}
			if r.terminal(c) {
				u.Meta = terminalEnd(id, status, "")
				u.Meta.TerminalOutput = nil
			}
			r.push(u)
		}
	}
	return r.take()
}

// pastTool renders one tool-call event of a past turn: a call is shown
// once, as one tool_call in its final state, when it ended (newID names
// the view in the session).
func (r *Renderer) pastTool(tc a2a.ToolCall, newID func(string) string) []Out {
	if tc.ID = r.calls.callID(tc); tc.ID == "" {
		return nil
	}
	c := r.calls.open[tc.ID]
	if c == nil {
		c = &call{}
		r.calls.open[tc.ID] = c
		r.calls.order = append(r.calls.order, tc.ID)
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
		c.args = r.parseArgs(tc.Args)
	}
	c.learn(tc)
	if status, ended := endStatus(tc); ended {
		r.pastCall(tc.ID, c, status, resultOf(tc, status), newID)
	}
	return r.take()
}

// pastOpen shows the past calls that never ended, with the status the
// turn's state gives them.
func (r *Renderer) pastOpen(state a2a.State, newID func(string) string) []Out {
	status := acp.ToolCompleted
	switch state {
	case a2a.StateFailed, a2a.StateCanceled, a2a.StateRejected:
		status = acp.ToolFailed
	case a2a.StateInputRequired, a2a.StateAuthRequired:
		status = acp.ToolPending
	case a2a.StateWorking, a2a.StateSubmitted, a2a.StateUnknown, "":
		status = acp.ToolInProgress
	}
	for _, id := range r.calls.order {
		if c := r.calls.open[id]; !c.emitted {
			r.pastCall(id, c, status, "", newID)
		}
	}
	return r.take()
}

func (r *Renderer) pastCall(id string, c *call, status acp.ToolStatus, result string, newID func(string) string) {
	c.emitted = true
	plan := r.planOf(c)
	cv, rv := r.callShown(c), r.resultShown(c, status, result)
	u := acp.ToolCall{ToolCallID: newID(id), Title: cv.title, Kind: cv.kind, Status: status, RawInput: cv.rawInput,
		Locations: cv.locations, Content: rv.content, RawOutput: rv.rawOutput}
	if len(rv.locations) > 0 {
		u.Locations = rv.locations
	}
	if r.terminal(c) {
		tid := u.ToolCallID
		u.Content, u.Meta = terminalBlock(tid), &acp.ToolMeta{TerminalInfo: &acp.TerminalInfo{TerminalID: tid}}
		if status == acp.ToolCompleted || status == acp.ToolFailed {
			end := terminalEnd(tid, status, result)
			u.Meta.TerminalOutput, u.Meta.TerminalExit = end.TerminalOutput, end.TerminalExit
		}
	}
	r.push(u)
	r.pushPlan(plan)
}

// callID names a call the server gave no id (ADK code execution): its
// start opens a new c, its end ends the latest view of its name not
// ended.
func (cs *calls) callID(tc a2a.ToolCall) string {
	if tc.ID != "" || tc.Name == "" {
		return tc.ID
	}
	if _, ended := endStatus(tc); ended {
		for i := len(cs.order) - 1; i >= 0; i-- {
			if c := cs.open[cs.order[i]]; c.name == tc.Name && !c.ended && !c.emitted {
				return cs.order[i]
			}
		}
	}
	return tc.Name + "-" + randid.Hex(4)
}

// callTitle is the title of a tool call's view, live or replayed: built
// from the server's name, label and args, so one line without control
// characters or bidirectional overrides (SPEC §15).
func callTitle(name, parent string, args toolview.Args) string {
	if name == "" {
		name = "tool"
	}
	title := toolview.Title(name, args)
	if parent != "" {
		title = toolview.ChildTitle(title)
	}
	return termsafe.Line(title)
}

func acpLocations(locs []toolview.Location) []acp.Location {
	if len(locs) == 0 {
		return nil
	}
	out := make([]acp.Location, len(locs))
	for i, l := range locs {
		out[i] = acp.Location{Path: l.Path, Line: l.Line}
	}
	return out
}

// rawInput is what the editor shows as the call's input: the arguments
// (their JSON text as it came, when whole: neither re-encoded nor copied,
// as they may be tens of MiB), the fields recovered from a cut text, or
// the raw text when nothing parsed.
func rawInput(a toolview.Args) json.RawMessage {
	if a.Complete {
		return a.JSON()
	}
	if len(a.Fields) > 0 {
		return acp.RawJSON(a.Fields)
	}
	if a.Raw != "" {
		return acp.RawJSON(a.Raw)
	}
	return nil
}

// agentSays is what the agent itself says of a call (its kind, its title,
// an edit's diff), kept over what shim derives from the name; and the
// status last shown live.
type agentSays struct {
	kind   acp.ToolKind
	label  string
	diff   *a2a.ToolDiff
	paths  []a2a.ToolPath
	status acp.ToolStatus
}

// learn keeps what a call's event says of it.
func (c *call) learn(tc a2a.ToolCall) {
	if tc.Kind != "" {
		c.kind = tc.Kind
	}
	if tc.Title != "" {
		c.label = tc.Title
	}
	if tc.Diff != nil {
		c.diff = tc.Diff
	}
	if len(tc.Paths) > 0 {
		c.paths = tc.Paths
	}
}

// agentLocations are the places the agent's profile read from the call
// (ToolCall.Paths), resolved as any tool path is (never one that leaves
// its root), less those already in have.
func (c *call) agentLocations(res Roots, have []toolview.Location) []toolview.Location {
	var out []toolview.Location
	for _, p := range c.paths {
		abs, ok := res.Resolve("", p.Path)
		if !ok || !filepath.IsAbs(abs) {
			continue
		}
		l := toolview.Location{Path: abs, Line: max(p.Line, 0)}
		if !slices.ContainsFunc(have, func(h toolview.Location) bool { return h.Path == abs }) &&
			!slices.ContainsFunc(out, func(h toolview.Location) bool { return h.Path == abs }) {
			out = append(out, l)
		}
	}
	return out
}

// kindOf is the agent's kind for the call, else the name's.
func (c *call) kindOf() acp.ToolKind {
	if c.kind != "" {
		return c.kind
	}
	return toolview.Kind(c.name)
}

// titleName is the name a view's title is built from: the agent's label
// when shim knows no better title for the name.
func (c *call) titleName() string {
	if c.label != "" && toolview.Title(c.name, c.args) == c.name {
		return c.label
	}
	return c.name
}

// agentDiff is the diff the agent reported, when it names an absolute
// path; nil leaves the diff to the kind's rule.
func (c *call) agentDiff() acp.ToolCallContent {
	if c.diff == nil || !filepath.IsAbs(c.diff.Path) {
		return nil
	}
	old := c.diff.OldText
	return acp.Diff{Path: c.diff.Path, OldText: &old, NewText: c.diff.NewText}
}

// liveOutput is a PhaseOutput event's update: the live output replaces
// what the view showed, cut as results are.
func (c *call) liveOutput(tc a2a.ToolCall) acp.ToolCallUpdate {
	return acp.ToolCallUpdate{ToolCallID: tc.ID,
		Content: []acp.ToolCallContent{acp.Content{Content: acp.Text(toolview.CutResult(tc.Output))}}}
}
