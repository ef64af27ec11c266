package render

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/render/toolpath"
)

// benchWalk is a replay's walk as package history's Replay keeps it.
type benchWalk struct{ msgs map[string]bool }

func (w benchWalk) Repeated(m *a2a.Message) bool {
	if m.ID == "" {
		return false
	}
	seen := w.msgs[m.ID]
	w.msgs[m.ID] = true
	return seen
}

func (benchWalk) ToolID(taskID, id string) string { return "replay-" + id }

// benchTurns are n turns of make bench's replayed thread as read back:
// the user's question, a tool call started and completed, the answer as
// an artifact and as text.
func benchTurns(n int) []past.Turn {
	ts := make([]past.Turn, n)
	for i := range ts {
		id := "t" + strconv.Itoa(i)
		answer := fmt.Sprintf("Turn %d: the README says hello. It explains how to build the project, run its tests and "+
			"where the configuration lives; the function you asked about is in src/main.go line %d.", i, i%400+1)
		call := "c" + strconv.Itoa(i)
		ts[i] = past.Turn{TaskID: id, State: a2a.StateCompleted, Text: answer, Status: a2a.Status{State: a2a.StateCompleted},
			Artifacts: []a2a.Artifact{{ID: id + "-answer", Parts: []a2a.Part{{Kind: a2a.PartText, Text: answer}}}},
			History: []a2a.Message{
				{Role: "user", Parts: []a2a.Part{{Kind: a2a.PartText, Text: fmt.Sprintf("Question %d: what does the README say about building?", i)}}},
				{Role: "agent", Tools: []a2a.ToolCall{{ID: call, Name: "read_file", Phase: a2a.PhaseStarted,
					Args: `{"project": "p", "path": "README.md", "offset": 3}`}}},
				{Role: "agent", Tools: []a2a.ToolCall{{ID: call, Name: "read_file", Phase: a2a.PhaseCompleted, Result: "# Project\nhello\n"}}},
			}}
	}
	return ts
}

// BenchmarkPast renders 1,000 past turns as session/load does: each
// through a renderer of its own (one renewed), every update taken.
func BenchmarkPast(b *testing.B) {
	ts := benchTurns(1000)
	b.ReportAllocs()
	for b.Loop() {
		w := benchWalk{msgs: map[string]bool{}}
		n := 0
		r := New("Agent", toolpath.RootsOf(nil, "/home/u", nil), Draws{})
		r.ids.own = "shim-bench"
		for i := range ts {
			r.Renew("Agent", toolpath.RootsOf(nil, "/home/u", nil), Draws{})
			for _, o := range r.Past.Show(&ts[i], w) {
				_ = o.Update()
				n++
			}
		}
		if n != 3000 {
			b.Fatalf("%d updates", n)
		}
	}
}
