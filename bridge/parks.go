package bridge

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/randid"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/render"
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
	// A park that names its call is asked on that call's own view, which
	// the agent's own updates settle.
	own, ownCall := t.r.Open(h.ToolCallID)
	if ownCall {
		if kind = own.Kind; kind == acp.ToolKindDelete {
			sub = subjectDelete
		}
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
	if ownCall {
		cardID, rawIn = h.ToolCallID, own.RawInput
	} else {
		t.emit(render.ApprovalView(cardID, cardTitle, kind, rawIn))
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
	if !ownCall {
		t.emit(render.ApprovalEnd(cardID, approved))
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
func (t *turn) showNote(s string) { t.show(t.r.Note(s)) }

// question asks a question or a form as the editor's forms when it shows
// them (forms.go), answered in this prompt; otherwise, or when they are
// not accepted, it shows the park as text and ends the turn: the next
// prompt answers it.
func (t *turn) question(m *a2a.Message) outcome {
	callID := ""
	if m.Hitl() == nil {
		t.needRootsFor(m.ParkData())
		var outs []render.Out
		callID, outs = t.r.ParkTool(m.ParkData())
		t.show(outs)
	}
	if out, ok := t.askForms(m, callID); ok {
		return out
	}
	t.show(t.r.Question(m))
	t.sess.mu.Lock()
	t.sess.parkedTask = t.task()
	t.sess.mu.Unlock()
	return outcome{stop: acp.StopEndTurn}
}
