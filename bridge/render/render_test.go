package render

import (
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/roots"
)

// newOwn is New with the ids of shim's own messages own-1, own-2, ….
func newOwn(agent string, roots toolpath.Roots, d Draws) *Renderer {
	r := New(agent, roots, d)
	r.ids.own = "own"
	return r
}

// cwdRoots resolves any path under /work, the session's cwd.
func cwdRoots() toolpath.Roots {
	return toolpath.RootsOf(roots.New([]roots.Root{{Name: "w", Path: "/work"}}, nil, "", nil), "/work", nil)
}

func textArtifact(id, s string) a2a.Artifact {
	return a2a.Artifact{ID: id, Parts: []a2a.Part{{Kind: a2a.PartText, Text: s}}}
}

// messageIDsOf is the message ids of the answer chunks, each once, in
// order.
func messageIDsOf(outs []Out) string {
	var ids []string
	for _, o := range outs {
		if c, ok := o.Update().(acp.AgentMessageChunk); ok && (len(ids) == 0 || ids[len(ids)-1] != c.MessageID) {
			ids = append(ids, c.MessageID)
		}
	}
	return strings.Join(ids, " ")
}

func answerOfOuts(outs []Out) string {
	var b strings.Builder
	for _, o := range outs {
		if c, ok := o.Update().(acp.AgentMessageChunk); ok {
			if tc, ok := c.Content.(acp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
	}
	return b.String()
}

// TestRendererLiveAndReplayAgree: the renderer is pure (no server, no
// turn), and a turn rendered live (events) and replayed (its stored
// values) reads the same: two artifacts, each new block after a blank
// line, the replay's failure line after them (live, the prompt's error
// says it); an edit card completed with its diff.
func TestRendererLiveAndReplayAgree(t *testing.T) {
	arts := []a2a.Artifact{textArtifact("a1", "\n\nFirst."), textArtifact("a2", "Second.")}
	edit := a2a.ToolCall{ID: "c1", Name: "edit_file", Phase: a2a.PhaseCompleted, Result: "ok",
		Args: `{"path":"x.go","old_string":"a","new_string":"b"}`}

	live := newOwn("Agent", cwdRoots(), Draws{})
	var liveOut []Out
	grab := func(o []Out) { liveOut = append(liveOut, o...) }
	grab(live.Tools.Tool(edit))
	for i := range arts {
		grab(live.Answer.Artifact("t1", &arts[i], false))
	}
	failed := &a2a.Message{ID: "f1", Role: "agent", Parts: []a2a.Part{{Kind: a2a.PartText, Text: "boom"}}}
	ferr := live.Answer.Failure("t1", failed)
	friendly := strings.TrimPrefix(ferr.Message, "Agent: ")
	if friendly == "" || friendly == ferr.Message {
		t.Fatalf("no friendly text: %q", ferr.Message)
	}

	past := &past.Turn{TaskID: "t1", State: a2a.StateFailed, Artifacts: arts,
		Status: a2a.Status{State: a2a.StateFailed, Message: failed}}
	rep := newOwn("Agent", cwdRoots(), Draws{})
	var repOut []Out
	repOut = append(repOut, rep.Tools.pastTool(edit, func(id string) string { return "replay-" + id })...)
	repOut = append(repOut, rep.Tools.pastOpen(past.State, nil)...)
	repOut = append(repOut, rep.Past.end(past)...)

	// Live, the failure is said once, by the prompt's error; replayed
	// (no error answer), by the ⚠️ line after the answer (SPEC §18).
	want := "First.\n\nSecond."
	if got := answerOfOuts(liveOut); got != want {
		t.Errorf("live answer %q, want %q", got, want)
	}
	if got, want := answerOfOuts(repOut), want+"\n\n⚠️ Agent error: "+friendly; got != want {
		t.Errorf("replayed answer %q, want %q", got, want)
	}
	// The same message ids live and replayed (SPEC §14): one per
	// artifact, made unique with its task's id, and (replayed) the failed
	// status message's own for its line.
	wantIDs := "t1/a1 t1/a2"
	if got := messageIDsOf(liveOut); got != wantIDs {
		t.Errorf("live message ids %q, want %q", got, wantIDs)
	}
	if got := messageIDsOf(repOut); got != wantIDs+" f1" {
		t.Errorf("replayed message ids %q, want %q", got, wantIDs+" f1")
	}
	var liveDiff, repDiff bool
	for _, o := range liveOut {
		if u, ok := o.update.(acp.ToolCallUpdate); ok && u.Status == acp.ToolCompleted && len(u.Content) == 2 {
			_, liveDiff = u.Content[0].(acp.Diff)
		}
	}
	for _, o := range repOut {
		if u, ok := o.update.(acp.ToolCall); ok && u.ToolCallID == "replay-c1" && u.Status == acp.ToolCompleted && len(u.Content) == 2 {
			_, repDiff = u.Content[0].(acp.Diff)
		}
	}
	if !liveDiff || !repDiff {
		t.Errorf("the completed edit card's diff: live %v, replayed %v", liveDiff, repDiff)
	}
}

// checkAgentsCardLive checks the live updates of the agent's edit card:
// opened pending with the agent's kind and title, started, its output,
// completed with the agent's diff.
func checkAgentsCardLive(t *testing.T, ups []acp.Update, isDiff func([]acp.ToolCallContent) bool) {
	t.Helper()
	open, _ := ups[0].(acp.ToolCall)
	if open.Kind != "edit" || open.Title != "Edit hello.txt" || open.Status != acp.ToolPending {
		t.Errorf("opened %+v", open)
	}
	if u, _ := ups[1].(acp.ToolCallUpdate); u.Status != acp.ToolInProgress {
		t.Errorf("started %+v", ups[1])
	}
	if u, _ := ups[2].(acp.ToolCallUpdate); len(u.Content) != 1 || u.Content[0] != (acp.Content{Content: acp.Text("screen")}) {
		t.Errorf("output %+v", ups[2])
	}
	if u, _ := ups[3].(acp.ToolCallUpdate); u.Status != acp.ToolCompleted || len(u.Content) != 2 || !isDiff(u.Content) {
		t.Errorf("completed %+v", ups[3])
	}
}

// TestRendererKeepsTheAgentsCard: what the agent says of a call (its
// kind, its display text for a name shim has no title for, an absolute
// diff) is kept live and replayed; pending is a status, a status change
// before the end an update, live output replaces the content; the kind's
// rules follow the agent's kind (a search's hits become locations).
func TestRendererKeepsTheAgentsCard(t *testing.T) {
	diff := &a2a.ToolDiff{Path: "/abs/hello.txt", OldText: "a", NewText: "b"}
	call := a2a.ToolCall{ID: "c1", Name: "replace", Kind: "edit", Display: "Edit hello.txt", Args: `{"x":1}`}
	at := func(p a2a.Phase, f func(*a2a.ToolCall)) a2a.ToolCall {
		c := call
		c.Phase = p
		if f != nil {
			f(&c)
		}
		return c
	}
	done := at(a2a.PhaseCompleted, func(c *a2a.ToolCall) { c.Result, c.Diff = "ok", diff })

	live := newOwn("Agent", cwdRoots(), Draws{})
	var ups []acp.Update
	for _, tc := range []a2a.ToolCall{at(a2a.PhasePending, nil), at(a2a.PhaseStarted, func(c *a2a.ToolCall) { c.Args = "" }),
		at(a2a.PhaseOutput, func(c *a2a.ToolCall) { c.Output = "screen" }), done} {
		for _, o := range live.Tools.Tool(tc) {
			ups = append(ups, o.update)
		}
	}
	if len(ups) != 4 {
		t.Fatalf("live updates %#v", ups)
	}
	isDiff := func(cs []acp.ToolCallContent) bool {
		d, ok := cs[0].(acp.Diff)
		return ok && d.Path == diff.Path && *d.OldText == "a" && d.NewText == "b"
	}
	checkAgentsCardLive(t, ups, isDiff)

	rep := newOwn("Agent", cwdRoots(), Draws{})
	outs := rep.Tools.pastTool(done, func(id string) string { return "r-" + id })
	if len(outs) != 1 {
		t.Fatalf("replayed %d updates", len(outs))
	}
	if p, _ := outs[0].update.(acp.ToolCall); p.Kind != "edit" || p.Title != "Edit hello.txt" || len(p.Content) != 2 || !isDiff(p.Content) {
		t.Errorf("replayed %+v", outs[0].update)
	}

	// A relative diff is not the agent's to give; an agent's search kind
	// reads its hits.
	rel := newOwn("Agent", cwdRoots(), Draws{})
	outs = rel.Tools.Tool(at(a2a.PhaseCompleted, func(c *a2a.ToolCall) { c.Diff = &a2a.ToolDiff{Path: "hello.txt"} }))
	if u, _ := outs[1].update.(acp.ToolCallUpdate); len(u.Content) != 0 {
		t.Errorf("a relative diff shown: %+v", u)
	}
	outs = rel.Tools.Tool(a2a.ToolCall{ID: "s1", Name: "find_things", Kind: "search", Phase: a2a.PhaseCompleted, Result: "src/a.go:3: hit"})
	if u, _ := outs[1].update.(acp.ToolCallUpdate); len(u.Locations) != 1 || u.Locations[0].Path != "/work/src/a.go" {
		t.Errorf("search by the agent's kind: %+v", u)
	}
}
