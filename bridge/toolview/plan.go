package toolview

import "strings"

// The tools that write a to-do list or a plan (SPEC §11.5): their call is
// "Update plan" of kind think, and their list becomes the editor's plan.
var planTools = map[string]bool{
	"write_todos":      true,
	"todo_write":       true,
	"TodoWrite":        true,
	"update_plan":      true,
	"update_todos":     true,
	"manage_todo_list": true,
}

// planTitle is the title of a plan tool's call.
const planTitle = "Update plan"

// PlanItem is one entry of a plan: Status is "pending", "in_progress" or
// "completed"; Priority "high", "medium" or "low".
type PlanItem struct {
	Content  string
	Priority string
	Status   string
}

// Plan returns the plan a plan tool's args write: the items under
// "todos" (their text in content, description, title or task) or "plan"
// (in step), in order. An item's status maps pending, todo and
// not_started to pending; in_progress, in-progress and active to
// in_progress; completed and done to completed (any other to pending); a
// cancelled item is left out, as is one with no text. Its priority is
// its own high, medium or low, else medium. false when the tool writes no
// plan or its args are not complete.
func Plan(name string, a Args) ([]PlanItem, bool) {
	if !planTools[name] || !a.Complete {
		return nil, false
	}
	list, ok := a.Fields["todos"].([]any)
	if !ok {
		if list, ok = a.Fields["plan"].([]any); !ok {
			return nil, false
		}
	}
	items := make([]PlanItem, 0, len(list))
	for _, e := range list {
		var text, status, priority string
		switch e := e.(type) {
		case string:
			text = e
		case map[string]any:
			for _, k := range []string{"content", "description", "title", "task", "step"} {
				if s, _ := e[k].(string); strings.TrimSpace(s) != "" {
					text = s
					break
				}
			}
			status, _ = e["status"].(string)
			priority, _ = e["priority"].(string)
		}
		st, keep := planStatus(status)
		if !keep || strings.TrimSpace(text) == "" {
			continue
		}
		items = append(items, PlanItem{Content: text, Priority: planPriority(priority), Status: st})
	}
	return items, true
}

func planStatus(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "cancelled", "canceled":
		return "", false
	case "in_progress", "in-progress", "active":
		return "in_progress", true
	case "completed", "done":
		return "completed", true
	}
	return "pending", true
}

func planPriority(s string) string {
	switch p := strings.ToLower(strings.TrimSpace(s)); p {
	case "high", "medium", "low":
		return p
	}
	return "medium"
}
