package bridge

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/randid"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/steer"
)

// Parks: a task in input-required waits for the person at the editor.
// An approval becomes a pending tool card and a permission dialog, whose
// answer resumes the task in the same turn; a question or a form is shown
// and answered by the next prompt. Permissions fail closed: anything but
// an explicit allow is a denial.

// Permission option ids.
const (
	optApprove        = "approve"
	optApproveSession = "approve_session"
	optDeny           = "deny"
)

// park handles input-required.
func (t *turn) park(m *a2a.Message) outcome {
	if h := m.Hitl(); h != nil && h.Kind == a2a.HitlApproval {
		return t.approval(h)
	}
	return t.question(m)
}

// subject is what an approval is about, read from the park itself.
type subject uint8

const (
	subjectOther   subject = iota // a plugin's approval: no bypass exists
	subjectCommand                // a shell command
	subjectDelete                 // a permanent delete: never bypassed
)

// approvalSubject reads the subject from the park's title and detail. A
// park that names a delete is a delete whatever else is open.
func approvalSubject(h *a2a.Hitl) subject {
	s := strings.ToLower(h.Title)
	switch {
	case strings.Contains(s, "delete"):
		return subjectDelete
	case strings.Contains(s, "command") || strings.Contains(s, "shell"):
		return subjectCommand
	}
	return subjectOther
}

// approval asks the person and resumes the task with the answer.
func (t *turn) approval(h *a2a.Hitl) outcome {
	taskID := t.task()
	sub := approvalSubject(h)
	kind := acp.ToolKindOther
	switch sub {
	case subjectCommand:
		kind = acp.ToolKindExecute
	case subjectDelete:
		kind = acp.ToolKindDelete
	}
	if sub != subjectOther {
		if _, card := t.r.cards.parkedTool(kind); card != nil {
			kind = card.kindOf()
		}
	}
	// A park that names its call is asked on that call's own card, which
	// the agent's own updates settle.
	ownCard := t.r.cards.open[h.ToolCallID]
	if h.ToolCallID == "" || ownCard == nil || ownCard.ended {
		ownCard = nil
	} else if kind = ownCard.kindOf(); kind == acp.ToolKindDelete {
		sub = subjectDelete
	}
	title := strings.TrimSpace(h.Title)
	if title == "" {
		title = "Approve?"
	}
	cardTitle := title
	if first, _, _ := strings.Cut(strings.TrimSpace(h.Detail), "\n"); first != "" {
		cardTitle += " " + first
	}
	cardID := "approval-" + taskID + "-" + randid.Hex(3)
	var rawIn json.RawMessage
	if h.Detail != "" {
		rawIn = acp.RawJSON(map[string]any{"detail": h.Detail})
	}
	if ownCard != nil {
		cardID, rawIn = h.ToolCallID, rawInput(ownCard.args)
	} else {
		t.emit(acp.ToolCall{ToolCallID: cardID, Title: cardTitle, Kind: kind,
			Status: acp.ToolPending, RawInput: rawIn})
	}

	approved, always := false, false
	// An agent that remembers "always" itself is offered it for any call
	// but a delete; choosing it is the agent's to keep, not shim's
	// allow-commands mode.
	agentAlways := h.Always && sub != subjectDelete
	switch {
	case sub == subjectCommand && t.sess.bypassing():
		// allow-commands ("Allow for this session"): auto-approval
		// follows the mode at once. A server that parked although the
		// message asked to bypass is one that does not let approvals be
		// skipped; the person is told once.
		approved = true
		if t.sentBypass {
			t.tellNoSkipOnce()
		}
		t.srv.log.Info("auto-approved a command for this session", "task", taskID)
	default:
		choice := t.askPermission(cardID, title, rawIn, sub == subjectCommand || agentAlways)
		switch choice {
		case optApprove:
			approved = true
		case optApproveSession:
			approved = true
			if agentAlways {
				always = true
			} else if sub == subjectCommand && t.sess.setMode(modeAllow) {
				t.srv.log.Info("session mode set by the permission dialog", "session", t.sess.id, "mode", modeAllow)
				t.srv.modeChanged(t.sess, t.emit)
			}
		}
	}
	status := acp.ToolFailed
	if approved {
		status = acp.ToolCompleted
	}
	if ownCard == nil {
		t.emit(acp.ToolCallUpdate{ToolCallID: cardID, Status: status})
	}
	if t.isCancelled() {
		return outcome{stop: acp.StopCancelled}
	}
	return outcome{resume: t.sess.intents(&a2a.OutMessage{ContextID: t.sess.id, TaskID: taskID, Resume: true,
		Approval: &a2a.ApprovalAnswer{ToolCallID: h.ToolCallID, Allow: approved, Always: always}})}
}

// askPermission shows the editor's permission dialog and returns the
// chosen option; any failure, dismissal or unknown answer is a denial.
func (t *turn) askPermission(cardID, title string, rawIn json.RawMessage, offerSession bool) string {
	opts := []acp.PermissionOption{{OptionID: optApprove, Name: "Allow once", Kind: acp.AllowOnce}}
	if offerSession {
		opts = append(opts, acp.PermissionOption{OptionID: optApproveSession, Name: "Allow for this session", Kind: acp.AllowAlways})
	}
	opts = append(opts, acp.PermissionOption{OptionID: optDeny, Name: "Deny", Kind: acp.RejectOnce})
	req := acp.RequestPermissionParams{SessionID: t.sess.id,
		ToolCall: acp.PermissionToolCall{ToolCallID: cardID, Title: title, RawInput: rawIn}, Options: opts}
	if !t.waitForPrompt() {
		return optDeny
	}
	var resp acp.RequestPermissionResponse
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	if err := t.srv.conn.Call(ctx, acp.MethodRequestPermission, req, &resp); err != nil {
		t.srv.log.Info("permission request failed; denying", "err", err)
		return optDeny
	}
	if resp.Outcome.Outcome != acp.OutcomeSelected {
		return optDeny
	}
	for _, o := range opts {
		if o.OptionID == resp.Outcome.OptionID {
			return o.OptionID
		}
	}
	t.srv.log.Warn("the editor chose an option shim did not offer; denying", "option", resp.Outcome.OptionID)
	return optDeny
}

// waitForPrompt waits, when the turn is detached, for a prompt to adopt
// it (an approval that parks inside the grace window is asked of the
// adopting prompt); false when nobody will.
func (t *turn) waitForPrompt() bool {
	if st := t.win.State(); st == steer.Detached || st == steer.Adopting {
		t.srv.log.Debug("the approval waits for a prompt to adopt the turn", "session", t.sess.id, "window", st)
	}
	return t.win.Wait(t.ctx.Done()) == steer.Attached && !t.isCancelled()
}

// tellNoSkipOnce tells the person, once per session, that the server asks
// although "Allow for this session" was chosen.
func (t *turn) tellNoSkipOnce() {
	t.sess.mu.Lock()
	told := t.sess.toldNoSkip
	t.sess.toldNoSkip = true
	t.sess.mu.Unlock()
	if told {
		return
	}
	t.showNote("The agent asked although commands are allowed for this session: this server does not let approvals be skipped, so shim approves its command approvals for you (a delete is still asked).")
}

// showNote shows a line of shim's own in the answer.
func (t *turn) showNote(s string) { t.show(t.r.note(s)) }

// question asks a question or a form as the editor's forms when it shows
// them (forms.go), answered in this prompt; otherwise, or when they are
// not accepted, it shows the park as text and ends the turn: the next
// prompt answers it.
func (t *turn) question(m *a2a.Message) outcome {
	cardID := ""
	if m.Hitl() == nil {
		cardID = t.parkCard(m.ParkData())
	}
	if out, ok := t.askForms(m, cardID); ok {
		return out
	}
	t.show(t.r.question(m))
	t.sess.mu.Lock()
	t.sess.parkedTask = t.task()
	t.sess.mu.Unlock()
	return outcome{stop: acp.StopEndTurn}
}

// parkQuestion is the text of a park shown as a question (SPEC §6), live or
// replayed: a form lists its fields; an approval shows its title and
// detail; a park's plain data shows as key: value lines, and the fields of
// the answer's schema it gives are listed (§12.8).
func parkQuestion(m *a2a.Message) string {
	q := m.Text()
	var form []a2a.FormField
	isForm := false
	data := ""
	if h := m.Hitl(); h == nil {
		d := m.ParkData()
		data, form = dataBlock(d), schemaFields(d)
	} else {
		switch {
		case h.Question != "":
			q = h.Question
		case h.Title != "":
			q = h.Title
			if h.Kind == a2a.HitlApproval && h.Detail != "" {
				q += "\n\n" + h.Detail
			}
		}
		isForm = h.Kind == a2a.HitlForm
		form = h.Fields
		if h.Description != "" {
			q += "\n\n" + h.Description
		}
	}
	if strings.TrimSpace(q) == "" {
		q = "The agent is waiting for your answer."
	}
	var b strings.Builder
	b.WriteString("**Input needed:** " + strings.TrimSpace(q) + data)
	if data != "" && len(form) > 0 {
		b.WriteString("\n")
	}
	for _, f := range form {
		b.WriteString("\n- " + formLine(f))
	}
	if isForm {
		b.WriteString("\n\n(This is a form in the agent's console; reply here in words, or answer it there.)")
	}
	return b.String()
}

func formLine(f a2a.FormField) string {
	name := f.Title
	if name == "" {
		name = f.Name
	}
	s := name
	if f.Required {
		s += " (required)"
	}
	if len(f.Options) > 0 {
		sep := "one of"
		if f.Multiple {
			sep = "any of"
		}
		s += ": " + sep + " " + strings.Join(f.Options, ", ")
	}
	if f.Description != "" {
		s += " — " + f.Description
	}
	return s
}
