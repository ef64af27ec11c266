package toolview

import (
	"reflect"
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
