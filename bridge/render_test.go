package bridge

import (
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// cwdResolver resolves any path under /work.
type cwdResolver struct{}

func (cwdResolver) Resolve(_, path string) (string, bool) { return "/work/" + path, true }

func textArtifact(id, s string) a2a.Artifact {
	return a2a.Artifact{ID: id, Parts: []a2a.Part{{Kind: a2a.PartText, Text: s}}}
}

func answerOfOuts(outs []out) string {
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
// values) reads the same: two artifacts and the failure line, each new
// block after a blank line; an edit card completed with its diff.
func TestRendererLiveAndReplayAgree(t *testing.T) {
	arts := []a2a.Artifact{textArtifact("a1", "\n\nFirst."), textArtifact("a2", "Second.")}
	edit := a2a.ToolCall{ID: "c1", Name: "edit_file", Phase: a2a.PhaseCompleted, Result: "ok",
		Args: `{"path":"x.go","old_string":"a","new_string":"b"}`}

	live := newRenderer("Agent", cwdResolver{})
	var liveOut []out
	grab := func(o []out) { liveOut = append(liveOut, o...) }
	grab(live.tool(edit))
	for i := range arts {
		grab(live.artifact("t1", &arts[i], false))
	}
	fo, friendly := live.failure("boom")
	grab(fo)
	if friendly == "" {
		t.Fatal("no friendly text")
	}

	past := &pastTurn{taskID: "t1", state: a2a.StateFailed, artifacts: arts,
		status: a2a.Status{State: a2a.StateFailed, Message: &a2a.Message{Role: "agent", Parts: []a2a.Part{{Kind: a2a.PartText, Text: "boom"}}}}}
	rep := newRenderer("Agent", cwdResolver{})
	var repOut []out
	repOut = append(repOut, rep.pastTool(edit, func(id string) string { return "replay-" + id })...)
	repOut = append(repOut, rep.pastOpen(past.state, nil)...)
	repOut = append(repOut, rep.pastEnd(past)...)

	want := "First.\n\nSecond.\n\n⚠️ Agent error: " + friendly
	if got := answerOfOuts(liveOut); got != want {
		t.Errorf("live answer %q, want %q", got, want)
	}
	if got := answerOfOuts(repOut); got != want {
		t.Errorf("replayed answer %q, want %q", got, want)
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
