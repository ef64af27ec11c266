package bridge

import (
	"github.com/shimdev/shim/a2a"
)

// toolCards follows the tool calls of one turn and keeps the editor's
// cards in step: one tool_call when a call first appears, then updates.
type toolCards struct {
	t    *turn
	open map[string]*toolCard
}

type toolCard struct {
	name   string
	parent string
	ended  bool
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
	case "completed", "failed":
		if card == nil {
			card = c.start(tc)
		}
		status := "completed"
		result := tc.Result
		if tc.Phase == "failed" {
			status = "failed"
			if result == "" {
				result = tc.Error
			}
		}
		u := toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: tc.ID, Status: status}
		if result != "" {
			u.Content = []any{toolContent{Type: "content", Content: text(cutResult(result))}}
			u.RawOutput = result
		}
		card.ended = true
		c.t.emit(u)
	default:
		if card == nil {
			c.start(tc)
			return
		}
		c.t.emit(toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: tc.ID, Title: tc.Name})
	}
}

func (c *toolCards) start(tc a2a.ToolCall) *toolCard {
	card := &toolCard{name: tc.Name, parent: tc.ParentID}
	c.open[tc.ID] = card
	title := tc.Name
	if title == "" {
		title = "tool"
	}
	c.t.emit(toolCallUpdate{SessionUpdate: uToolCall, ToolCallID: tc.ID, Title: title, Kind: "other", Status: "in_progress"})
	return card
}

// cutResult keeps the first 4000 characters of a tool result.
func cutResult(s string) string {
	r := []rune(s)
	if len(r) <= 4000 {
		return s
	}
	return string(r[:4000]) + "\n…"
}
