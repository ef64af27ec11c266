package render

// Past turns (SPEC §4.5): a thread's turn as read back, shown in the
// order it happened through the same mapping as a live turn.

import (
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/render/question"
	"github.com/shimdev/shim/bridge/render/shown"
)

// A Walk is what one replay remembers across the turns it shows: the
// messages it went through (Repeated records m and reports whether its id
// was gone through before) and the view ids of replayed tool calls.
// Package history's Replay is one.
type Walk interface {
	Repeated(m *a2a.Message) bool
	ToolID(taskID, id string) string
}

// Past is a past turn shown as it happened, through the same mapping as
// a live turn (the answer's and the tool calls').
type Past struct {
	out    *sink
	ids    *msgIDs
	answer *Answer
	tools  *Tools
	// list is the list Show returned last (its room kept by Renew).
	list []Out
}

// Show shows one past turn of the replay rp in the order it happened,
// as the live turn showed it (SPEC §18): the user's text, steers, tool
// calls and the agent's thoughts where they happened, each park's
// question and the user's answer (an approval as its call's card with
// its outcome), the calls that never ended, the answer and how the turn
// ended.
//
// As what each rendering method returns, the slice is valid until the
// next call of one (the list is kept for the next turn of a replay).
func (r *Past) Show(p *past.Turn, rp Walk) []Out {
	callID := func(id string) string { return rp.ToolID(p.TaskID, id) }
	outs := r.list[:0]
	defer func() { r.list = outs }()
	add := func(o []Out) { outs = append(outs, o...) }
	var park *a2a.Message // the park the next resume answers
	for i := range p.History {
		m := &p.History[i]
		if rp.Repeated(m) {
			continue // kept twice in a task (SPEC §12.4), or an earlier task's
		}
		if m.FromUser() {
			switch {
			case !m.HitlResume():
				add(r.userMessage(p.TaskID, i, m))
			case park != nil:
				add(r.answered(p.TaskID, i, park, m, callID))
			}
			// A resume whose park the history does not hold is skipped
			// (an operator API's turns list no parks).
			park = nil
			continue
		}
		park = nil
		add(r.steersRead(m.SteersConsumed()))
		switch {
		case isStatus(p, m):
			// The turn's last status: its text is shown as the turn
			// ends (end).
			for _, tc := range p.ToolCalls(m) {
				add(r.tools.pastTool(tc, callID))
			}
		case parkAt(p.History, i):
			park = m
			for _, tc := range m.ParkTools { // a park's data parts are its own
				add(r.tools.pastTool(tc, callID))
			}
			add(r.asked(p.TaskID, i, m))
		default:
			add(r.thoughts(p.TaskID, i, m, false))
			for _, tc := range m.ToolCalls() {
				add(r.tools.pastTool(tc, callID))
			}
			add(r.thoughts(p.TaskID, i, m, true))
		}
	}
	if m := p.Status.Message; m != nil && !rp.Repeated(m) {
		for _, tc := range p.Status.ToolCalls() { // a park's data parts are its own
			add(r.tools.pastTool(tc, callID))
		}
	}
	add(r.tools.pastOpen(p.State, callID))
	add(r.end(p))
	return outs
}

// userMessage shows a past user message, the n-th of its task's history:
// its text (preamble stripped) and its images, as chunks of its
// messageId (one its place names when it has none).
func (r *Past) userMessage(taskID string, n int, m *a2a.Message) []Out {
	id := m.ID
	if id == "" {
		id = taskID + "/user-" + strconv.Itoa(n)
	}
	if s := past.StripPreamble(m.Text()); strings.TrimSpace(s) != "" {
		r.out.push(acp.UserMessageChunk{MessageID: id, Content: acp.Text(s)})
	}
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind == a2a.PartFile && isImage(p) {
			r.out.push(acp.UserMessageChunk{MessageID: id, Content: imageOf(p)})
		}
	}
	return r.out.take()
}

// steersRead shows the steers a past turn's agent read, as the user's
// words: each a message of the steer's id (its marker's, live).
func (r *Past) steersRead(items []a2a.SteerItem) []Out {
	for _, st := range items {
		if strings.TrimSpace(st.Text) != "" {
			id := st.ID
			if id == "" {
				id = r.ids.next()
			}
			r.out.push(acp.UserMessageChunk{MessageID: id, Content: acp.Text(st.Text)})
		}
	}
	return r.out.take()
}

// end shows a past turn's answer and how it ended: its artifacts'
// text, one chunk each with the message id a live turn gives it (else the
// operator API's text, else a completed turn's status text, of the
// status message), then the closing line a live turn ending so shows
// (closing).
func (r *Past) end(p *past.Turn) []Out {
	var b blocks
	for i := range p.Artifacts {
		if s := artifactAnswer(&p.Artifacts[i]); strings.TrimSpace(s) != "" {
			r.out.push(AnswerChunk(ArtifactMessageID(p.TaskID, p.Artifacts[i].ID), b.start(s)))
			b.shown()
		}
	}
	statusID := r.ids.of(p.TaskID, p.Status.Message)
	statusText := strings.TrimSpace(p.Status.Message.Text())
	if !b.any && p.Text != "" && (p.State != a2a.StateFailed || strings.TrimSpace(p.Text) != statusText) {
		if s := trimLeadingBlankLines(p.Text); s != "" {
			r.out.push(AnswerChunk(p.TaskID+"/answer", s))
			b.shown()
		}
	}
	if !b.any && (p.State == a2a.StateCompleted || p.State == a2a.StateRejected) && p.Status.Message.Hitl() == nil {
		if s := trimLeadingBlankLines(p.Status.Message.Text()); s != "" {
			r.out.push(AnswerChunk(statusID, s))
			b.shown()
		}
	}
	if end := r.closing(p.State, p.Status.Message); end != "" {
		r.out.push(AnswerChunk(statusID, b.start(end)))
	}
	return r.out.take()
}

// closing is the line a replayed turn ending in state shows after its
// answer: the failure line (live, the prompt's error says it), the
// question of a park, what an authentication asks, or that the task still
// runs; "" for the others.
func (r *Past) closing(state a2a.State, m *a2a.Message) string {
	switch state {
	case a2a.StateFailed:
		line, _ := r.answer.failureLine(m.Text())
		return line
	case a2a.StateInputRequired:
		return question.Of(m)
	case a2a.StateAuthRequired:
		return question.AuthText(m)
	case a2a.StateWorking, a2a.StateSubmitted:
		return "(still running elsewhere…)"
	}
	return ""
}

// artifactAnswer is the answer text of a stored artifact, without its
// leading blank lines.
func artifactAnswer(a *a2a.Artifact) string {
	var b strings.Builder
	one, n := "", 0 // the text of the only text part is not copied
	for j := range a.Parts {
		if p := &a.Parts[j]; p.Kind == a2a.PartText && !p.Thought() {
			if n++; n == 1 {
				one = p.Text
				continue
			}
			if n == 2 {
				b.WriteString(one)
			}
			b.WriteString(p.Text)
		}
	}
	if n > 1 {
		one = b.String()
	}
	return trimLeadingBlankLines(one)
}

func trimLeadingBlankLines(s string) string {
	var st shown.Text // TrimLead reads no hash: none is seeded
	return st.TrimLead(s)
}
