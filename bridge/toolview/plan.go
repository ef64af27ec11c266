package toolview

import (
	"encoding/json"
	"strconv"
	"strings"
)

// PlanItem is one entry of a plan: Status is "pending", "in_progress" or
// "completed"; Priority "high", "medium" or "low".
type PlanItem struct {
	Content  string
	Priority string
	Status   string
}

// PlanMax is the most entries a plan shows; past it, one more entry says
// how many were left out (SPEC §13 amended).
const PlanMax = 1000

// Plan returns the plan a plan tool's args write: the items under
// "todos" (their text in content, description, title or task) or "plan"
// (in step), in order. An item's status maps pending, todo and
// not_started to pending; in_progress, in-progress and active to
// in_progress; completed and done to completed (any other to pending); a
// cancelled item is left out, as is one with no text. Its priority is
// its own high, medium or low, else medium. Past PlanMax items, one
// pending item "… N more" stands for the N others. false when the tool
// writes no plan or its args are not complete.
func Plan(name string, a Args) ([]PlanItem, bool) {
	if !tools[name].plan || !a.Complete {
		return nil, false
	}
	list, ok := a.Fields["todos"]
	if !ok {
		list = a.Fields["plan"]
	}
	var items []PlanItem
	more := 0
	add := func(e any) {
		text, status, priority := planFields(e)
		st, keep := planStatus(status)
		if !keep || strings.TrimSpace(text) == "" {
			return
		}
		if len(items) == PlanMax {
			more++
			return
		}
		items = append(items, PlanItem{Content: text, Priority: planPriority(priority), Status: st})
	}
	switch list := list.(type) {
	case []any:
		items = make([]PlanItem, 0, min(len(list), PlanMax+1))
		for _, e := range list {
			add(e)
		}
	case RawValue:
		// A big list is read one item at a time.
		dec := json.NewDecoder(strings.NewReader(string(list)))
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, false
		}
		items = []PlanItem{}
		for dec.More() {
			var e any
			if dec.Decode(&e) != nil {
				break
			}
			add(e)
		}
	default:
		return nil, false
	}
	if more > 0 {
		items = append(items, PlanItem{Content: "… " + strconv.Itoa(more) + " more", Priority: "medium", Status: "pending"})
	}
	return items, true
}

// planFields reads an item's text, status and priority.
func planFields(e any) (text, status, priority string) {
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
	return text, status, priority
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
