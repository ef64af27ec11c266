package toolview

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name, raw string
		ok        bool
		want      []PlanItem
	}{
		{"write_todos", `{"todos": [
			{"content": "Read the code", "status": "completed"},
			{"description": "Fix the bug", "status": "in_progress", "priority": "high"},
			{"title": "Test it", "status": "todo", "priority": "LOW"},
			{"task": "Ship", "status": "not_started", "priority": "urgent"},
			{"content": "Dropped", "status": "cancelled"},
			{"content": "Also dropped", "status": "canceled"},
			{"content": "", "status": "pending"},
			{"content": "Review", "status": "done"},
			{"content": "Watch", "status": "active"},
			{"content": "Wait", "status": "in-progress"},
			{"content": "Plain", "status": "pending"}]}`, true, []PlanItem{
			{"Read the code", "medium", "completed"},
			{"Fix the bug", "high", "in_progress"},
			{"Test it", "low", "pending"},
			{"Ship", "medium", "pending"},
			{"Review", "medium", "completed"},
			{"Watch", "medium", "in_progress"},
			{"Wait", "medium", "in_progress"},
			{"Plain", "medium", "pending"},
		}},
		{"update_plan", `{"explanation": "x", "plan": [{"step": "One", "status": "in_progress"}, {"step": "Two", "status": "pending"}]}`, true,
			[]PlanItem{{"One", "medium", "in_progress"}, {"Two", "medium", "pending"}}},
		{"TodoWrite", `{"todos": []}`, true, []PlanItem{}},
		{"todo_write", `{"todos": [{"content": "cut`, false, nil},
		{"write_todos", `{"items": []}`, false, nil},
		{"write_todos", `{"todos": "a list"}`, false, nil},
		{"run_command", `{"todos": []}`, false, nil},
	}
	for _, tt := range tests {
		got, ok := Plan(tt.name, ParseArgs(tt.raw))
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Plan(%s, %s) = %v %v, want %v %v", tt.name, tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPlanCapped: a plan shows at most PlanMax entries, then one pending
// entry "… N more" counting the items left out (cancelled and empty ones
// not counted), whether the list is small enough to be decoded whole or
// kept as its JSON text and read item by item (SPEC §13 amended).
func TestPlanCapped(t *testing.T) {
	list := func(n, pad int) string {
		var b strings.Builder
		b.WriteString(`{"todos": [`)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			status := "pending"
			if i%10 == 9 {
				status = "cancelled"
			}
			fmt.Fprintf(&b, `{"content": "task %d%s", "status": %q}`, i, strings.Repeat(" ", pad), status)
		}
		b.WriteString(`, ""]}`)
		return b.String()
	}
	for _, tc := range []struct {
		name string
		raw  string
		big  bool
		more string
	}{
		// 1,200 items, 120 cancelled: 1,080 kept, 1,000 shown.
		{"decoded", list(1200, 0), false, "… 80 more"},
		// 1,500 items, 150 cancelled: 1,350 kept, 1,000 shown.
		{"item by item", list(1500, 100), true, "… 350 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ParseArgs(tc.raw)
			if _, isRaw := a.Fields["todos"].(RawValue); isRaw != tc.big {
				t.Fatalf("list kept as its text: %v, want %v (%d bytes)", isRaw, tc.big, len(tc.raw))
			}
			got, ok := Plan("write_todos", a)
			if !ok || len(got) != PlanMax+1 {
				t.Fatalf("%d entries (ok %v), want %d", len(got), ok, PlanMax+1)
			}
			want := PlanItem{Content: tc.more, Priority: "medium", Status: "pending"}
			if got[PlanMax] != want || got[PlanMax-1].Content != "task 1110"+strings.Repeat(" ", len(got[PlanMax-1].Content)-len("task 1110")) {
				t.Errorf("last entries %v, %v", got[PlanMax-1], got[PlanMax])
			}
		})
	}
}

// TestParseArgsBigList: a list past bigValue is kept as its JSON text,
// checked valid: whole args with one are Complete; a broken one is not.
func TestParseArgsBigList(t *testing.T) {
	items := strings.Repeat(`{"content": "x", "status": "pending"}, `, 4000)
	whole := ParseArgs(`{"path": "a.go", "todos": [` + items + `{}]}`)
	if !whole.Complete || whole.String("path") != "a.go" {
		t.Fatalf("whole args: complete %v, fields %v", whole.Complete, whole.Fields["path"])
	}
	if v, ok := whole.Fields["todos"].(RawValue); !ok || !json.Valid([]byte(v)) || len(v) < bigValue {
		t.Errorf("the list: %T", whole.Fields["todos"])
	}
	if b := whole.JSON(); string(b) != whole.Raw {
		t.Error("JSON is not the raw text")
	}
	broken := ParseArgs(`{"path": "a.go", "todos": [` + items + `{,}]}`)
	if broken.Complete || broken.String("path") != "a.go" || broken.Fields["todos"] != nil || broken.JSON() != nil {
		t.Errorf("broken args: complete %v, fields %v", broken.Complete, broken.Fields)
	}
}
