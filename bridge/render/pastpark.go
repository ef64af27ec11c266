package render

// What a past turn's history says besides the user's words, the calls and
// the answer (SPEC §18, amending §4.5): the agent's thoughts (working
// status messages, reasoning parts), each park's question and the user's
// answer to it, an approval as its call's card with its outcome.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/render/question"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/internal/textcut"
)

// isStatus reports whether m, an agent message of p's history, is p's
// last status message (servers keep it in the history too): the same
// message id, or, with no ids, the same text.
func isStatus(p *past.Turn, m *a2a.Message) bool {
	st := p.Status.Message
	switch {
	case st == nil:
		return false
	case st.ID != "" || m.ID != "":
		return st.ID == m.ID
	}
	return m.Text() != "" && m.Text() == st.Text()
}

// parkAt reports whether the agent message h[i] is a park: a hitl park,
// or a message with something to ask (text or data) that the user's
// answer to a park (a resume) follows.
func parkAt(h []a2a.Message, i int) bool {
	m := &h[i]
	if m.Hitl() != nil {
		return true
	}
	if i+1 >= len(h) || !h[i+1].FromUser() || !h[i+1].HitlResume() {
		return false
	}
	return strings.TrimSpace(m.Text()) != "" || m.ParkData() != nil
}

// pastMessageID is the message id of the chunks of a past message, the
// n-th of its task's history: its own, else one its place names (kind:
// what it is shown as).
func pastMessageID(taskID string, n int, m *a2a.Message, kind string) string {
	if m.ID != "" {
		return m.ID
	}
	return taskID + "/" + kind + "-" + strconv.Itoa(n)
}

// thoughts shows what an agent message of the history thought, as the
// live turn did: its reasoning parts, or (text) its text, a working
// status message's.
func (r *Past) thoughts(taskID string, n int, m *a2a.Message, text bool) []Out {
	id := pastMessageID(taskID, n, m, "thought")
	if !text {
		for _, s := range m.Thoughts() {
			r.answer.thought(id, s)
		}
	} else if s := m.Text(); strings.TrimSpace(s) != "" {
		r.answer.thought(id, s)
	}
	return r.out.take()
}

// asked shows the question of a park of the history, the n-th message of
// its task's, as the live turn did (SPEC §6): "**Input needed:** …", or a
// form's title and fields. An approval shows as its call's card, with the
// answer (answered).
func (r *Past) asked(taskID string, n int, m *a2a.Message) []Out {
	if h := m.Hitl(); h != nil && h.Kind == a2a.HitlApproval {
		return nil
	}
	r.out.push(AnswerChunk(pastMessageID(taskID, n, m, "park"), question.Answered(m)))
	return r.out.take()
}

// answered shows the user's answer (resume, the n-th message of its
// task's history) to the park: an approval's outcome on its call's card,
// else the answer as the user's words (a form's values as field: value
// lines).
func (r *Past) answered(taskID string, n int, park, resume *a2a.Message, newID func(string) string) []Out {
	if h := park.Hitl(); h != nil && h.Kind == a2a.HitlApproval {
		approved := strings.EqualFold(strings.TrimSpace(resume.Text()), string(a2a.AnswerApproved))
		r.tools.pastApproval(h, approved, newID)
		return r.out.take()
	}
	s := formValues(park, resume)
	if s == "" {
		s = resume.Text()
	}
	if strings.TrimSpace(s) != "" {
		r.out.push(acp.UserMessageChunk{MessageID: pastMessageID(taskID, n, resume, "user"), Content: acp.Text(s)})
	}
	return r.out.take()
}

// formValues is the answer to a form (a hitl form, or a park whose data
// gave the answer's schema) as field: value lines: the values of the
// answer's data part, else of its text when that is a JSON object (the
// values of a form answered in the editor); "" for any other answer.
func formValues(park, resume *a2a.Message) string {
	h := park.Hitl()
	form := (h != nil && h.Kind == a2a.HitlForm) || (park.ParkData() != nil && park.ParkData().Schema != nil)
	if !form {
		return ""
	}
	if d := resume.ParkData(); d != nil && len(d.Fields) > 0 {
		return question.Lines(d)
	}
	return jsonLines(resume.Text())
}

// jsonLines is a JSON object's members as key: value lines (a string as
// is, any other value as its JSON), in the object's order; "" when s is
// no JSON object.
func jsonLines(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil { // {
		return ""
	}
	var lines []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var str string
		value := string(v)
		if json.Unmarshal(v, &str) == nil {
			value = str
		} else {
			var b bytes.Buffer
			if json.Compact(&b, v) == nil {
				value = b.String()
			}
		}
		k, _ := key.(string)
		lines = append(lines, question.OneLine(k, question.ValueMax)+": "+question.OneLine(value, question.ValueMax))
	}
	return strings.Join(lines, "\n")
}

// pastApproval shows an approval of a past turn as the card of the call
// it is about with its outcome (SPEC §18): denied, the call's card ends
// failed with "Denied" in its content; approved, the call's own events end
// it. An approval about no call shown gets a card of its own, titled from
// its detail (a command's first line), completed or failed.
func (t *Tools) pastApproval(h *a2a.Hitl, approved bool, newID func(string) string) {
	if callID, c := t.approvedCall(h); c != nil {
		if !approved {
			c.denied = true
			t.pastCall(callID, c, acp.ToolFailed, "", newID)
		}
		return
	}
	id := h.ToolCallID
	if id == "" {
		id = "approval"
	}
	status := acp.ToolCompleted
	var content []acp.ToolCallContent
	if !approved {
		status = acp.ToolFailed
		content = denied()
	}
	var raw json.RawMessage
	if h.Detail != "" {
		raw = acp.RawJSON(map[string]any{"detail": h.Detail})
	}
	t.out.push(acp.ToolCall{ToolCallID: newID(id), Title: approvalTitle(h), Kind: ApprovalKind(h), Status: status,
		RawInput: raw, Content: content})
}

// approvedCall is the past call an approval is about, not shown yet: the
// one it names, else the newest of its kind (a command's, a delete's)
// whose command the approval's detail holds, as the live turn asks on the
// open call whose tool the park names (SPEC §6, §18); nil when there is
// none. A delete never rides a command's call.
func (t *Tools) approvedCall(h *a2a.Hitl) (string, *call) {
	if c := t.calls.open[h.ToolCallID]; h.ToolCallID != "" && c != nil {
		if c.emitted {
			return "", nil
		}
		return h.ToolCallID, c
	}
	kind := ApprovalKind(h)
	if kind == acp.ToolKindOther {
		return "", nil
	}
	for i := len(t.calls.order) - 1; i >= 0; i-- {
		id := t.calls.order[i]
		c := t.calls.open[id]
		if c.emitted || c.kindOf() != kind {
			continue
		}
		if cmd := c.args.String("command"); cmd != "" && h.Detail != "" && !strings.Contains(h.Detail, cmd) {
			continue
		}
		return id, c
	}
	return "", nil
}

// denied is the content a denied call's card ends with.
func denied() []acp.ToolCallContent {
	return []acp.ToolCallContent{acp.Content{Content: acp.Text("Denied")}}
}

// approvalTitle is the title of an approval's own card: its detail's
// first line (a command), cut at 80 characters, else its title; one line
// without control characters (SPEC §15).
func approvalTitle(h *a2a.Hitl) string {
	title, _, _ := strings.Cut(strings.TrimSpace(h.Detail), "\n")
	if title = strings.TrimSpace(title); title == "" {
		title = strings.TrimSpace(h.Title)
	}
	if title == "" {
		title = "Approve?"
	}
	return termsafe.Line(textcut.Cut(title, 80))
}

// ApprovalKind is the kind of call an approval asks about, read from its
// title: a delete (whatever else it names), a command, else other. The
// live turn decides and opens its card by it (package ask), the replay
// finds or titles its card by it.
func ApprovalKind(h *a2a.Hitl) acp.ToolKind {
	s := strings.ToLower(h.Title)
	switch {
	case strings.Contains(s, "delete"):
		return acp.ToolKindDelete
	case strings.Contains(s, "command") || strings.Contains(s, "shell"):
		return acp.ToolKindExecute
	}
	return acp.ToolKindOther
}
