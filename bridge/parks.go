package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/toolview"
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

// parkedTool finds the open tool card the park is about: the most recent
// card not ended whose kind matches the subject; nil when none does.
func (c *toolCards) parkedTool(sub subject) (string, *toolCard) {
	want := ""
	switch sub {
	case subjectCommand:
		want = toolview.KindExecute
	case subjectDelete:
		want = toolview.KindDelete
	default:
		return "", nil
	}
	for i := len(c.order) - 1; i >= 0; i-- {
		id := c.order[i]
		if card := c.open[id]; !card.ended && card.kind == want {
			return id, card
		}
	}
	return "", nil
}

// approval asks the person and resumes the task with the answer.
func (t *turn) approval(h *a2a.Hitl) outcome {
	taskID := t.task()
	sub := approvalSubject(h)
	kind := toolview.KindOther
	switch sub {
	case subjectCommand:
		kind = toolview.KindExecute
	case subjectDelete:
		kind = toolview.KindDelete
	}
	if _, card := t.tools.parkedTool(sub); card != nil {
		kind = card.kind
	}
	// A park that names its call is asked on that call's own card, which
	// the agent's own updates settle.
	ownCard := t.tools.open[h.ToolCallID]
	if h.ToolCallID == "" || ownCard == nil || ownCard.ended {
		ownCard = nil
	} else {
		kind = ownCard.kind
		if kind == toolview.KindDelete {
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
	cardID := "approval-" + taskID + "-" + randHex(3)
	var rawIn any
	if h.Detail != "" {
		rawIn = map[string]any{"detail": h.Detail}
	}
	if ownCard != nil {
		cardID, rawIn = h.ToolCallID, rawInput(ownCard.args)
	} else {
		t.emit(toolCallUpdate{SessionUpdate: uToolCall, ToolCallID: cardID, Title: cardTitle, Kind: kind,
			Status: "pending", RawInput: rawIn})
	}

	t.sess.mu.Lock()
	bypassSent := t.sess.bypass
	t.sess.mu.Unlock()
	approved, always := false, false
	// An agent that remembers "always" itself is offered it for any call
	// but a delete, and shim skips nothing on its own.
	agentAlways := h.Always && sub != subjectDelete
	switch {
	case sub == subjectCommand && t.allowSession:
		// "Allow for this session" was chosen earlier in this turn.
		approved = true
		t.srv.log.Info("auto-approved a command for this session", "task", taskID)
	default:
		if sub == subjectCommand && bypassSent {
			t.tellNoSkipOnce()
		}
		choice := t.askPermission(cardID, title, rawIn, sub == subjectCommand || agentAlways)
		switch choice {
		case optApprove:
			approved = true
		case optApproveSession:
			approved = true
			if agentAlways {
				always = true
			} else if sub == subjectCommand {
				t.allowSession = true
				t.sess.mu.Lock()
				t.sess.bypass = true
				t.sess.mu.Unlock()
			}
		}
	}
	status := "failed"
	if approved {
		status = "completed"
	}
	if ownCard == nil {
		t.emit(toolCallUpdate{SessionUpdate: uToolUpdate, ToolCallID: cardID, Status: status})
	}
	if t.isCancelled() {
		return outcome{stop: stopCancelled}
	}
	return outcome{resume: &a2a.OutMessage{ContextID: t.sess.id, TaskID: taskID, Resume: true, Bypass: t.sess.bypassing(),
		Approval: &a2a.ApprovalAnswer{ToolCallID: h.ToolCallID, Allow: approved, Always: always}}}
}

// askPermission shows the editor's permission dialog and returns the
// chosen option; any failure, dismissal or unknown answer is a denial.
func (t *turn) askPermission(cardID, title string, rawIn any, offerSession bool) string {
	opts := []permissionOption{{OptionID: optApprove, Name: "Allow once", Kind: "allow_once"}}
	if offerSession {
		opts = append(opts, permissionOption{OptionID: optApproveSession, Name: "Allow for this session", Kind: "allow_always"})
	}
	opts = append(opts, permissionOption{OptionID: optDeny, Name: "Deny", Kind: "reject_once"})
	req := permissionRequest{SessionID: t.sess.id,
		ToolCall: permissionToolCall{ToolCallID: cardID, Title: title, RawInput: rawIn}, Options: opts}
	conn := t.srv.conn.Load()
	if conn == nil || !t.waitForPrompt() {
		return optDeny
	}
	var resp permissionResponse
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	if err := t.srv.call(ctx, conn, mRequestPermission, req, &resp); err != nil {
		t.srv.log.Info("permission request failed; denying", "err", err)
		return optDeny
	}
	if resp.Outcome.Outcome != "selected" {
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
	t.showNote("The agent asks again although you allowed commands for this session: this server does not let approvals be skipped.")
}

// showNote shows a line of shim's own in the answer.
func (t *turn) showNote(s string) {
	if t.anyText {
		s = "\n\n" + s
	}
	t.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(s + "\n\n")})
	t.anyText = true
}

// question shows a question or a form and ends the turn; the next prompt
// answers it.
func (t *turn) question(m *a2a.Message) outcome {
	q := parkQuestion(m)
	if t.anyText {
		q = "\n\n" + q
	}
	t.emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(q)})
	t.anyText = true
	t.sess.mu.Lock()
	t.sess.parkedTask = t.task()
	t.sess.mu.Unlock()
	return outcome{stop: stopEndTurn}
}

// parkQuestion is the text of a park shown as a question (SPEC §6), live or
// replayed: a form lists its fields; an approval shows its title and detail.
func parkQuestion(m *a2a.Message) string {
	q := m.Text()
	var form []a2a.FormField
	isForm := false
	if h := m.Hitl(); h != nil {
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
	b.WriteString("**Input needed:** " + strings.TrimSpace(q))
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

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// call sends a request to the client with an id of shim's own counter,
// starting at 1: jsonrpc2.Conn numbers from 0, and some clients take id 0
// for a missing id.
func (s *Server) call(ctx context.Context, conn *jsonrpc2.Conn, method string, params, result any) error {
	return conn.Call(ctx, method, params, result, jsonrpc2.PickID(jsonrpc2.ID{Num: s.callID.Add(1)}))
}
