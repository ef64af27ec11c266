package render

// An approval's card (SPEC §18: one card per tool call): the card of the
// call the park is about when one is shown, else one card the park
// opens, which stands for the call from then on (a later announce of the
// same tool on the same command or file updates it). While the dialog is
// open the card is pending; after it, it follows the call (approved) or
// ends failed, "Denied" (denied).

import (
	"encoding/json"
	"strings"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/bridge/toolview"
)

// Approvals are the approvals a turn asks on its calls' cards: they find
// or open the card of the call an approval is about and show it pending,
// running again or ended "Denied". They hold no calls of their own: they
// read and mark the turn's calls (the tool calls' table, whose later
// events an answered approval changes) and show them as the tool calls
// do (their roots, terminals).
type Approvals struct {
	out       *sink
	calls     *calls
	roots     toolpath.Roots
	terminals bool
}

// ParkCall is the call an approval asks about, as the park says it.
type ParkCall struct {
	// ID is the call the park names by its id ("" when it names none).
	ID string
	// Kind is what the park says the call is: execute (a command),
	// delete (a delete), else other.
	Kind acp.ToolKind
	// Detail is the park's detail (its first line is the command or the
	// file), Project the project it names.
	Detail, Project string
	// Words are the approval's own words (its title): a call the detail
	// does not name is titled by them.
	Words string
}

// Card is a tool call's card as a permission dialog names it: its id,
// and its title, kind, locations and input as the card shows them.
type Card struct {
	ID        string
	Title     string
	Kind      acp.ToolKind
	Locations []acp.Location
	RawInput  json.RawMessage
}

// Tools a park's call stands for: its name and args as the park gives
// them (a command's first line, a file and its project).
const (
	parkCommandTool = "run_command"
	parkDeleteTool  = "delete_file"
)

// parkedCall is the call p says, before any card shows it.
func parkedCall(p ParkCall) *call {
	first, _, _ := strings.Cut(strings.TrimSpace(p.Detail), "\n")
	first = strings.TrimSpace(first)
	c := &call{standIn: true}
	c.kind = p.Kind
	switch {
	case p.Kind == acp.ToolKindExecute && first != "":
		c.name, c.args = parkCommandTool, toolview.ParseArgs(string(acp.RawJSON(map[string]any{"command": first})))
	case p.Kind == acp.ToolKindDelete && first != "":
		f := map[string]any{"path": first}
		if p.Project != "" {
			f["project"] = p.Project
		}
		c.name, c.args = parkDeleteTool, toolview.ParseArgs(string(acp.RawJSON(f)))
	default:
		c.display = first
		if c.display == "" {
			c.display = strings.TrimSpace(p.Words)
		}
		if c.display == "" {
			c.display = "Approve?"
		}
	}
	return c
}

// Parked finds the card of the call a park is about: the open card it
// names by id, else the latest open card of its kind (a command or a
// delete) on the command or file its detail names (any of that kind when
// it names none). False when no card shows it: a park of other words
// names no card but by id.
func (a *Approvals) Parked(p ParkCall) (Card, bool) {
	if p.ID != "" {
		c := a.calls.open[p.ID]
		if c == nil || c.ended {
			return Card{}, false
		}
		return a.card(p.ID, c), true
	}
	if p.Kind != acp.ToolKindExecute && p.Kind != acp.ToolKindDelete {
		return Card{}, false
	}
	want := parkedCall(p)
	for i := len(a.calls.order) - 1; i >= 0; i-- {
		id := a.calls.order[i]
		c := a.calls.open[id]
		if c.ended || c.kindOf() != p.Kind {
			continue
		}
		if len(want.args.Fields) == 0 || toolview.SameSubject(p.Kind, want.args, c.args) {
			return a.card(id, c), true
		}
	}
	return Card{}, false
}

// OpenParked opens the card of a call no card shows yet, id, with status
// (pending while its dialog is open, in_progress when it was approved at
// once): titled by the park's detail (a command's first line, Delete
// <file>), else by its words. It stands for the call: the first later
// announce of the same kind on the same command or file updates it.
func (a *Approvals) OpenParked(id string, p ParkCall, status acp.ToolStatus) (Card, []Out) {
	c := parkedCall(p)
	c.status = status
	a.calls.open[id] = c
	a.calls.order = append(a.calls.order, id)
	a.calls.standIns++
	v := c.shown(a.roots)
	u := acp.ToolCall{ToolCallID: id, Title: v.title, Kind: v.kind, Status: status, Locations: v.locations, RawInput: v.rawInput}
	if c.terminal(a.terminals) {
		u.Content, u.Meta = terminalBlock(id), &acp.ToolMeta{TerminalInfo: &acp.TerminalInfo{TerminalID: id}}
	}
	a.out.push(u)
	return a.card(id, c), a.out.take()
}

// card is the card id of c.
func (a *Approvals) card(id string, c *call) Card {
	v := c.shown(a.roots)
	return Card{ID: id, Title: v.title, Kind: v.kind, Locations: v.locations, RawInput: v.rawInput}
}

// Asking shows the card id pending: its dialog is open.
func (a *Approvals) Asking(id string) []Out { return a.restatus(id, acp.ToolPending) }

// Approved shows the card id running after its dialog approved the
// call: in_progress, never pending again; the call's end ends it.
func (a *Approvals) Approved(id string) []Out {
	if c := a.calls.open[id]; c != nil {
		c.approved = true
	}
	return a.restatus(id, acp.ToolInProgress)
}

// Resumed shows the card id running again after its dialog was answered
// elsewhere.
func (a *Approvals) Resumed(id string) []Out { return a.restatus(id, acp.ToolInProgress) }

// restatus shows the open card id with status, when it shows another.
func (a *Approvals) restatus(id string, status acp.ToolStatus) []Out {
	if c := a.calls.open[id]; c != nil && !c.ended && c.status != status {
		c.status = status
		a.out.push(acp.ToolCallUpdate{ToolCallID: id, Status: status})
	}
	return a.out.take()
}

// deniedText is a denied call's content.
const deniedText = "Denied"

// Denied ends the card id: failed, "Denied"; what the agent says of
// the call later is not shown (it was not to run), a park's own card
// taking the call's announce still.
func (a *Approvals) Denied(id string) []Out {
	c := a.calls.open[id]
	if c == nil || c.ended {
		return nil
	}
	c.ended, c.denied, c.status = true, true, acp.ToolFailed
	u := acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolFailed,
		Content: []acp.ToolCallContent{acp.Content{Content: acp.Text(deniedText)}}}
	if c.terminal(a.terminals) {
		u.Meta = terminalEnd(id, acp.ToolFailed, "")
		u.Meta.TerminalOutput = nil
	}
	a.out.push(u)
	return a.out.take()
}
