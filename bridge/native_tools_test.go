package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
)

// runToolsCaps runs one turn of frames for a client of the given
// capabilities and returns the session's updates.
func runToolsCaps(t *testing.T, caps map[string]any, frames func(w *sseWriter)) []acptest.Update {
	t.Helper()
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		frames(w)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.initWith(t, caps)
	id := s.newSession(t, t.TempDir())
	if got := stopReason(t, s.prompt(t, id, "go")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	return s.Updates(id)
}

// shape is an update reduced to what a test compares: its kind, and for
// tool updates the card id, with the JSON of the fields asked.
func shape(t *testing.T, u acptest.Update, fields ...string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(u.Update, &m); err != nil {
		t.Fatal(err)
	}
	s := u.Kind()
	if id, ok := m["toolCallId"]; ok {
		s += " " + string(id)
	}
	for _, f := range fields {
		if v, ok := m[f]; ok {
			s += " " + f + "=" + string(v)
		}
	}
	return s
}

const todos1 = `{"todos": [{"content": "Read the code", "status": "completed"}, {"content": "Fix it", "status": "in_progress", "priority": "high"}, {"content": "Old idea", "status": "cancelled"}]}`
const todos2 = `{"todos": [{"content": "Read the code", "status": "completed"}, {"content": "Fix it", "status": "done", "priority": "high"}]}`

// TestPlanFromTodoTool: a todo tool's card stays (think, "Update plan");
// the plan follows the update that carried its complete args, a later
// event of the same call with the same list sends no second plan, and a
// later call sends the plan again (SPEC §11.5).
func TestPlanFromTodoTool(t *testing.T) {
	ups := runToolsCaps(t, map[string]any{}, func(w *sseWriter) {
		toolFrame(w, map[string]any{"toolCallId": "p1", "name": "write_todos", "phase": "started", "args": ""})
		toolFrame(w, map[string]any{"toolCallId": "p1", "name": "write_todos", "phase": "started", "args": todos1})
		toolFrame(w, map[string]any{"toolCallId": "p1", "name": "write_todos", "phase": "completed", "args": todos1, "result": "ok"})
		toolFrame(w, map[string]any{"toolCallId": "p2", "name": "update_plan", "phase": "started",
			"args": `{"plan": [{"step": "One", "status": "completed"}, {"step": "Two", "status": "pending"}]}`})
		toolFrame(w, map[string]any{"toolCallId": "p3", "name": "TodoWrite", "phase": "completed", "args": todos2, "result": "ok"})
		toolFrame(w, map[string]any{"toolCallId": "p4", "name": "todo_write", "phase": "started", "args": `{"todos": [{"content": "cut sh`})
	})
	var got []string
	for _, u := range ups {
		switch u.Kind() {
		case "tool_call", "tool_call_update":
			got = append(got, shape(t, u, "title", "kind", "status"))
		case "plan":
			got = append(got, shape(t, u, "entries"))
		}
	}
	want := []string{
		`tool_call "p1" title="Update plan" kind="think" status="in_progress"`,
		`tool_call_update "p1" title="Update plan" kind="think"`,
		`plan entries=[{"content":"Read the code","priority":"medium","status":"completed"},{"content":"Fix it","priority":"high","status":"in_progress"}]`,
		`tool_call_update "p1" status="completed"`,
		`tool_call "p2" title="Update plan" kind="think" status="in_progress"`,
		`plan entries=[{"content":"One","priority":"medium","status":"completed"},{"content":"Two","priority":"medium","status":"pending"}]`,
		`tool_call "p3" title="Update plan" kind="think" status="in_progress"`,
		`plan entries=[{"content":"Read the code","priority":"medium","status":"completed"},{"content":"Fix it","priority":"high","status":"completed"}]`,
		`tool_call_update "p3" status="completed"`,
		`tool_call "p4" title="Update plan" kind="think" status="in_progress"`,
		`tool_call_update "p2" status="completed"`,
		`tool_call_update "p4" status="completed"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var terminalCaps = map[string]any{"_meta": map[string]any{"terminal_output": true}}

// TestTerminalCards: for a client that draws terminals, a command card
// embeds its terminal and announces it; its completion carries the output
// and the exit code (stated by the result, else 0 completed, 1 failed) and
// keeps the one terminal block; other cards are unchanged. Without the
// capability a command card shows its result as text (SPEC §11.6). A
// command's output goes out once: never again as rawOutput (SPEC §13
// amended); other cards keep theirs.
func TestTerminalCards(t *testing.T) {
	frames := func(w *sseWriter) {
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "started", "args": `{"command": "go test ./..."}`})
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "completed", "result": "FAIL x\nexit code 2"})
		toolFrame(w, map[string]any{"toolCallId": "c2", "name": "bash", "phase": "completed", "args": `{"command": "ls"}`, "result": "a\nb"})
		toolFrame(w, map[string]any{"toolCallId": "c3", "name": "shell", "phase": "failed", "args": `{"command": "nope"}`, "error": "not found"})
		toolFrame(w, map[string]any{"toolCallId": "c4", "name": "read_file", "phase": "completed", "args": `{"path": "a"}`, "result": "text"})
		toolFrame(w, map[string]any{"toolCallId": "c5", "name": "run_command", "phase": "started", "args": `{"command": "sleep 9"}`})
	}
	var got []string
	for _, u := range runToolsCaps(t, terminalCaps, frames) {
		if k := u.Kind(); k == "tool_call" || k == "tool_call_update" {
			got = append(got, shape(t, u, "status", "content", "_meta", "rawOutput"))
		}
	}
	want := []string{
		`tool_call "c1" status="in_progress" content=[{"type":"terminal","terminalId":"c1"}] _meta={"terminal_info":{"terminal_id":"c1"}}`,
		`tool_call_update "c1" status="completed" content=[{"type":"terminal","terminalId":"c1"}] _meta={"terminal_output":{"terminal_id":"c1","data":"FAIL x\nexit code 2"},"terminal_exit":{"terminal_id":"c1","exit_code":2,"signal":null}}`,
		`tool_call "c2" status="in_progress" content=[{"type":"terminal","terminalId":"c2"}] _meta={"terminal_info":{"terminal_id":"c2"}}`,
		`tool_call_update "c2" status="completed" content=[{"type":"terminal","terminalId":"c2"}] _meta={"terminal_output":{"terminal_id":"c2","data":"a\nb"},"terminal_exit":{"terminal_id":"c2","exit_code":0,"signal":null}}`,
		`tool_call "c3" status="in_progress" content=[{"type":"terminal","terminalId":"c3"}] _meta={"terminal_info":{"terminal_id":"c3"}}`,
		`tool_call_update "c3" status="failed" content=[{"type":"terminal","terminalId":"c3"}] _meta={"terminal_output":{"terminal_id":"c3","data":"not found"},"terminal_exit":{"terminal_id":"c3","exit_code":1,"signal":null}}`,
		`tool_call "c4" status="in_progress"`,
		`tool_call_update "c4" status="completed" content=[{"type":"content","content":{"type":"text","text":"text"}}] rawOutput="text"`,
		`tool_call "c5" status="in_progress" content=[{"type":"terminal","terminalId":"c5"}] _meta={"terminal_info":{"terminal_id":"c5"}}`,
		`tool_call_update "c5" status="completed" _meta={"terminal_exit":{"terminal_id":"c5","exit_code":0,"signal":null}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("with terminal_output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	got = nil
	for _, u := range runToolsCaps(t, map[string]any{"_meta": map[string]any{"terminal_output": false}}, frames) {
		if k := u.Kind(); k == "tool_call_update" && strings.Contains(string(u.Update), `"c1"`) {
			got = append(got, shape(t, u, "status", "content", "_meta", "rawOutput"))
		}
	}
	if want := `tool_call_update "c1" status="completed" content=[{"type":"content","content":{"type":"text","text":"FAIL x\nexit code 2"}}]`; len(got) != 1 || got[0] != want {
		t.Errorf("without the capability: %q\nwant %q", got, want)
	}
}
