package render

// One tool call as its view shows it: what the agent says of it, what a
// kind of tool adds to its view (a row of kindRules), what a phase means
// (toolPhases), a command's view as a terminal's, the call's input as the
// editor shows it.

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
)

// calls are the calls of one turn.
type calls struct {
	open  map[string]*call
	order []string // ids in the order they opened
	// alias maps the agent's id of a call to the card that stood for it
	// (a park's, opened before the call was announced); standIns counts
	// the park cards no announce took yet.
	alias    map[string]string
	standIns int
}

// cardID is the id of the card that shows the call id.
func (cs *calls) cardID(id string) string {
	if a, ok := cs.alias[id]; ok {
		return a
	}
	return id
}

type call struct {
	name   string
	parent string
	args   toolview.Args
	ended  bool
	// emitted: a replayed view was shown (in its final state)
	emitted bool
	// plan is the plan last sent for this call (planSent). (The flags
	// side by side keep a call in the allocation size it had.)
	planSent bool
	// standIn: a park opened the card before the call was announced; the
	// announce of the same tool on the same command or file takes it.
	standIn bool
	// approved, denied: the person answered the call's permission dialog
	// (SPEC §18). An approved call is no longer pending whatever its
	// phases say; a denied call's card ended, and shows nothing more.
	approved, denied bool
	plan             []toolview.PlanItem
	agentSays
}

// kindRule is what one kind of tool adds to its view; a kind with no row
// adds nothing.
type kindRule struct {
	// completed adds content to a view that completed (a diff).
	completed func(c *call, res toolpath.Roots) []acp.ToolCallContent
	// resultLocations reads locations from a result (search hits); nil
	// keeps the view's own.
	resultLocations func(c *call, result string, res toolpath.Roots) []acp.Location
}

var kindRules = map[acp.ToolKind]kindRule{
	acp.ToolKindEdit: {completed: func(c *call, res toolpath.Roots) []acp.ToolCallContent {
		if d, ok := toolview.Diff(c.name, c.args, res); ok {
			return []acp.ToolCallContent{acp.Diff{Path: d.Path, OldText: d.OldText, NewText: d.NewText}}
		}
		return nil
	}},
	acp.ToolKindSearch: {resultLocations: func(c *call, result string, res toolpath.Roots) []acp.Location {
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

// shown is what c's view shows of the call itself, its paths resolved
// against roots.
func (c *call) shown(roots toolpath.Roots) callShown {
	locs := toolview.Locations(c.name, c.args, roots)
	locs = append(locs, c.agentLocations(roots, locs)...)
	return callShown{title: c.title(), kind: c.kindOf(),
		locations: acpLocations(locs), rawInput: rawInput(c.args)}
}

// terminal reports whether c's view shows its output as a terminal: a
// command, for a client that draws them (terminals, SPEC §11.6).
func (c *call) terminal(terminals bool) bool {
	return terminals && c.kindOf() == acp.ToolKindExecute
}

// resultShown is what an ended view shows of its result.
type resultShown struct {
	content   []acp.ToolCallContent
	rawOutput json.RawMessage
	locations []acp.Location // nil: the view's own stand
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

// title is the title of the call's view, live or replayed: toolview's,
// from its name, args and what the agent says of it ("tool" when it has
// none); built from the server's name, label and args, so one line
// without control characters or bidirectional overrides (SPEC §15).
func (c *call) title() string {
	title := toolview.Title(c.name, c.args, toolview.Hints{Kind: c.kind, Display: c.display, Subject: c.subject})
	if title == "" {
		title = "tool"
	}
	if c.parent != "" {
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

// agentSays is what the agent itself says of a call (its kind, its
// display text and subject, an edit's diff), kept over what shim derives
// from the name; and the status last shown live.
type agentSays struct {
	kind    acp.ToolKind
	display string
	subject string
	diff    *a2a.ToolDiff
	paths   []a2a.ToolPath
	status  acp.ToolStatus
}

// learn keeps what a call's event says of it.
func (c *call) learn(tc a2a.ToolCall) {
	if tc.Kind != "" {
		c.kind = tc.Kind
	}
	if tc.Display != "" || tc.Subject != "" {
		c.display, c.subject = tc.Display, tc.Subject
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
func (c *call) agentLocations(res toolpath.Roots, have []toolview.Location) []toolview.Location {
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
