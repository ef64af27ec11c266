package bridge

import (
	"context"
	"path/filepath"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/roots"
)

// toolCards follows the tool calls of one turn and keeps the editor's
// cards in step: one tool_call when a call first appears, then updates.
type toolCards struct {
	t     *turn
	open  map[string]*toolCard
	order []string // ids in the order they opened
}

type toolCard struct {
	name   string
	parent string
	args   toolview.Args
	ended  bool
	// kind is the agent's kind for the call, else the name's.
	kind string
	// label is the agent's own title, for a name shim has none for.
	label string
	// status is the last status the card was given.
	status string
}

func newToolCards(t *turn) *toolCards {
	return &toolCards{t: t, open: map[string]*toolCard{}}
}

// handle maps one tool-call event.
func (c *toolCards) handle(tc a2a.ToolCall) {
	if tc.ID == "" {
		return
	}
	card := c.open[tc.ID]
	switch tc.Phase {
	case a2a.PhaseCompleted, a2a.PhaseFailed:
		if card == nil {
			card = c.start(tc)
		}
		c.end(tc, card)
	case a2a.PhaseOutput:
		if card == nil {
			c.start(tc)
		}
		// The live output replaces what the card showed.
		c.t.emit(toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: tc.ID,
			Content: []any{toolContent{Type: "content", Content: text(toolview.CutResult(tc.Output))}}})
	default:
		if card == nil {
			c.start(tc)
			return
		}
		u := toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: tc.ID}
		changed := false
		if st := phaseStatus(tc.Phase); st != card.status {
			card.status, u.Status, changed = st, st, true
		}
		// Servers announce a call twice: first with empty args, then with
		// the full ones.
		if tc.Args != "" {
			if tc.Name != "" {
				card.name = tc.Name
			}
			c.learn(card, tc)
			card.args = toolview.ParseArgs(tc.Args)
			u.Title, u.Kind = c.title(card), card.kind
			u.Locations, u.RawInput = c.locations(card), rawInput(card.args)
			changed = true
		}
		if changed {
			c.t.emit(u)
		}
	}
}

// phaseStatus is the card status of a phase before the call ends.
func phaseStatus(p a2a.Phase) string {
	if p == a2a.PhasePending {
		return "pending"
	}
	return "in_progress"
}

// learn keeps what the agent says of the call's kind and title.
func (c *toolCards) learn(card *toolCard, tc a2a.ToolCall) {
	card.kind = tc.Kind
	if card.kind == "" {
		card.kind = toolview.Kind(card.name)
	}
	if tc.Title != "" {
		card.label = tc.Title
	}
}

func (c *toolCards) start(tc a2a.ToolCall) *toolCard {
	card := &toolCard{name: tc.Name, parent: tc.ParentID, args: toolview.ParseArgs(tc.Args), status: phaseStatus(tc.Phase)}
	c.learn(card, tc)
	c.open[tc.ID] = card
	c.order = append(c.order, tc.ID)
	c.t.emit(toolCallUpdate{SessionUpdate: uToolCall, ToolCallID: tc.ID, Title: c.title(card),
		Kind: card.kind, Status: card.status,
		Locations: c.locations(card), RawInput: rawInput(card.args)})
	return card
}

func (c *toolCards) end(tc a2a.ToolCall, card *toolCard) {
	status := "completed"
	result := tc.Result
	if tc.Phase == a2a.PhaseFailed {
		status = "failed"
		if result == "" {
			result = tc.Error
		}
	}
	u := toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: tc.ID, Status: status}
	if tc.Args != "" {
		card.args = toolview.ParseArgs(tc.Args)
	}
	if status == "completed" {
		if d := tc.Diff; d != nil && filepath.IsAbs(d.Path) {
			old := d.OldText
			u.Content = append(u.Content, diffContent{Type: "diff", Path: d.Path, OldText: &old, NewText: d.NewText})
		} else if d, ok := toolview.Diff(card.name, card.args, c.resolver()); ok {
			u.Content = append(u.Content, diffContent{Type: "diff", Path: d.Path, OldText: d.OldText, NewText: d.NewText})
		}
	}
	if result != "" {
		u.Content = append(u.Content, toolContent{Type: "content", Content: text(toolview.CutResult(result))})
		u.RawOutput = result
	}
	switch card.kind {
	case toolview.KindSearch:
		if locs := toolview.SearchLocations(result, card.args.String("project"), c.resolver()); len(locs) > 0 {
			u.Locations = acpLocations(locs)
		}
	}
	if card.name == "list_projects" && status == "completed" && c.t.srv.roots() != nil {
		c.t.srv.roots().Learn(result)
	}
	card.ended = true
	c.t.emit(u)
}

// settle ends every card still open as the turn ends (no card outlives its
// turn): status is completed for a turn that ends end_turn, else failed.
func (c *toolCards) settle(status string) {
	for _, id := range c.order {
		card := c.open[id]
		if card.ended {
			continue
		}
		card.ended = true
		c.t.emitSettled(toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: id, Status: status})
	}
}

func (c *toolCards) title(card *toolCard) string {
	name := card.name
	if card.label != "" && toolview.Title(name, card.args) == name {
		name = card.label
	}
	return cardTitle(name, card.parent, card.args)
}

// cardTitle is the title of a tool card, live or replayed.
func cardTitle(name, parent string, args toolview.Args) string {
	if name == "" {
		name = "tool"
	}
	title := toolview.Title(name, args)
	if parent != "" {
		title = toolview.ChildTitle(title)
	}
	return title
}

func (c *toolCards) locations(card *toolCard) []location {
	return acpLocations(toolview.Locations(card.name, card.args, c.resolver()))
}

func (c *toolCards) resolver() toolview.Resolver {
	return rootResolver{m: c.t.srv.roots(), cwd: c.t.sess.cwd, ctx: c.t.ctx}
}

func acpLocations(locs []toolview.Location) []location {
	if len(locs) == 0 {
		return nil
	}
	out := make([]location, len(locs))
	for i, l := range locs {
		out[i] = location{Path: l.Path, Line: l.Line}
	}
	return out
}

// rawInput is what the editor shows as the call's input: the parsed
// arguments, or the raw text when nothing parsed.
func rawInput(a toolview.Args) any {
	if len(a.Fields) > 0 {
		return a.Fields
	}
	if a.Raw != "" {
		return a.Raw
	}
	return nil
}

// rootResolver resolves tool paths against the project roots: a named
// project against its root (reloading the map once for an unknown name),
// a path with no project against the session cwd when a root is known.
// With no root known, an absolute path inside the session cwd (what an
// agent on this machine reports) is still resolved, never one that leaves
// the cwd.
type rootResolver struct {
	m   *roots.Map
	cwd string
	ctx context.Context
}

func (r rootResolver) Resolve(project, path string) (string, bool) {
	if r.m == nil {
		return "", false
	}
	if project != "" {
		if _, ok := r.m.Lookup(project); !ok && !r.m.ReloadFor(r.ctx, project) {
			return "", false
		}
		return r.m.Resolve(project, path)
	}
	if !r.m.Known() {
		if !filepath.IsAbs(path) || !filepath.IsAbs(r.cwd) || filepath.Dir(r.cwd) == r.cwd {
			return "", false
		}
		return r.m.ResolveUnder(r.cwd, path)
	}
	if filepath.IsAbs(path) {
		root, ok := r.m.Containing(path)
		if !ok {
			return "", false
		}
		return r.m.ResolveUnder(root.Path, path)
	}
	if r.cwd == "" || !filepath.IsAbs(r.cwd) {
		return "", false
	}
	return r.m.ResolveUnder(r.cwd, path)
}
