package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

const todos1 = `{"todos": [{"content": "Read the code", "status": "completed"}, {"content": "Fix it", "status": "in_progress", "priority": "high"}, {"content": "Old idea", "status": "cancelled"}]}`
const todos2 = `{"todos": [{"content": "Read the code", "status": "completed"}, {"content": "Fix it", "status": "done", "priority": "high"}]}`

// TestPlanReplayed: replay sends each plan right after its card, in
// order, from the same renderer as live turns.
func TestPlanReplayed(t *testing.T) {
	r := newOwn("Agent", cwdRoots(), Draws{})
	newID := func(id string) string { return "r-" + id }
	var outs []Out
	outs = append(outs, r.Tools.pastTool(a2a.ToolCall{ID: "p1", Name: "write_todos", Phase: a2a.PhaseStarted, Args: todos1}, newID)...)
	outs = append(outs, r.Tools.pastTool(a2a.ToolCall{ID: "p1", Name: "write_todos", Phase: a2a.PhaseCompleted, Args: todos1, Result: "ok"}, newID)...)
	outs = append(outs, r.Tools.pastTool(a2a.ToolCall{ID: "c1", Name: "read_file", Phase: a2a.PhaseCompleted, Args: `{"path":"a"}`, Result: "x"}, newID)...)
	outs = append(outs, r.Tools.pastTool(a2a.ToolCall{ID: "p2", Name: "manage_todo_list", Phase: a2a.PhaseCompleted, Args: todos2, Result: "ok"}, newID)...)
	var got []string
	for _, o := range outs {
		switch u := o.Update().(type) {
		case acp.ToolCall:
			got = append(got, "card "+u.ToolCallID+" "+u.Title+" "+u.Kind)
		case acp.Plan:
			b, _ := json.Marshal(u)
			got = append(got, "plan "+string(b))
		}
	}
	want := []string{
		"card r-p1 Update plan think",
		`plan {"sessionUpdate":"plan","entries":[{"content":"Read the code","priority":"medium","status":"completed"},{"content":"Fix it","priority":"high","status":"in_progress"}]}`,
		"card r-c1 Read a read",
		"card r-p2 Update plan think",
		`plan {"sessionUpdate":"plan","entries":[{"content":"Read the code","priority":"medium","status":"completed"},{"content":"Fix it","priority":"high","status":"completed"}]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTerminalCardsReplayed: a replayed command card is one tool_call with
// its terminal announced, its output and its exit.
func TestTerminalCardsReplayed(t *testing.T) {
	r := newOwn("Agent", cwdRoots(), Draws{Terminals: true})
	outs := r.Tools.pastTool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhaseFailed, Args: `{"command":"make"}`, Result: "exit status 3"},
		func(id string) string { return "r-" + id })
	if len(outs) != 1 {
		t.Fatalf("%d updates", len(outs))
	}
	b, _ := json.Marshal(outs[0].Update())
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	if got, want := string(m["content"]), `[{"type":"terminal","terminalId":"r-c1"}]`; got != want {
		t.Errorf("content %s, want %s", got, want)
	}
	if got, want := string(m["_meta"]), `{"terminal_info":{"terminal_id":"r-c1"},"terminal_output":{"terminal_id":"r-c1","data":"exit status 3"},"terminal_exit":{"terminal_id":"r-c1","exit_code":3,"signal":null}}`; got != want {
		t.Errorf("_meta %s\nwant %s", got, want)
	}
	if raw, ok := m["rawOutput"]; ok {
		t.Errorf("the output again as rawOutput: %s", raw)
	}
}
