package ask

// Approvals (SPEC §6): a park that asks to approve a call. What to do is
// a pure decision (decide: from the park, the call it names, the
// session's mode and whether the message asked to bypass approvals);
// Asker.Approval carries it out: it asks the editor's permission dialog when the
// decision says so and resumes the task with the answer. Permissions fail
// closed: anything but an explicit allow is a denial.

import (
	"context"
	"errors"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
)

// Permission option ids.
const (
	optApprove        = "approve"
	optApproveSession = "approve_session"
	optDeny           = "deny"
)

// subject is what an approval is about, read from the park itself.
type subject uint8

const (
	subjectOther   subject = iota // a plugin's approval: no bypass exists
	subjectCommand                // a shell command
	subjectDelete                 // a permanent delete: never bypassed
)

// approvalSubject reads the subject from the park's title, by the
// rule the replay reads it by too (render.ApprovalKind). A park that
// names a delete is a delete whatever else is open.
func approvalSubject(h *a2a.Hitl) subject {
	switch render.ApprovalKind(h) {
	case acp.ToolKindDelete:
		return subjectDelete
	case acp.ToolKindExecute:
		return subjectCommand
	}
	return subjectOther
}

// approvalCase is what an approval is decided on.
type approvalCase struct {
	park *a2a.Hitl
	// kind is the kind of the card the park is about, when a card shows
	// the call ("": none does yet).
	kind acp.ToolKind
	// bypass: the session is in allow-commands; sentBypass: the message
	// the park answers asked to bypass approvals.
	bypass, sentBypass bool
}

// decision is what to do about an approval.
type decision struct {
	// auto: approved at once (allow-commands); tellNoSkip: the server
	// parked although the message asked to bypass, so it does not let
	// approvals be skipped (the person is told once).
	auto, tellNoSkip bool
	// words are the approval's own words, the dialog's content (its title
	// is the call's, SPEC §18).
	words   string
	options []acp.PermissionOption
	// What "Allow for this session" means: the agent remembers it
	// (agentAlways), or the session's mode becomes allow-commands
	// (sessionMode).
	agentAlways, sessionMode bool
}

// parkCall is the call the park h is about, as it says it.
func parkCall(h *a2a.Hitl) render.ParkCall {
	return render.ParkCall{ID: h.ToolCallID, Kind: render.ApprovalKind(h), Detail: h.Detail, Project: h.Project, Words: h.Title}
}

// decide is the approval's decision.
func decide(c approvalCase) decision {
	h := c.park
	sub := approvalSubject(h)
	if c.kind == acp.ToolKindDelete {
		sub = subjectDelete
	}
	d := decision{words: approvalWords(h)}
	if sub == subjectCommand && c.bypass {
		// allow-commands ("Allow for this session"): auto-approval
		// follows the mode at once.
		d.auto, d.tellNoSkip = true, c.sentBypass
		return d
	}
	// An agent that remembers "always" itself is offered it for any call
	// but a delete; choosing it is the agent's to keep, not shim's
	// allow-commands mode.
	d.agentAlways = h.Always && sub != subjectDelete
	d.sessionMode = sub == subjectCommand && !d.agentAlways
	d.options = []acp.PermissionOption{{OptionID: optApprove, Name: "Allow once", Kind: acp.AllowOnce}}
	if sub == subjectCommand || d.agentAlways {
		d.options = append(d.options, acp.PermissionOption{OptionID: optApproveSession, Name: "Allow for this session", Kind: acp.AllowAlways})
	}
	d.options = append(d.options, acp.PermissionOption{OptionID: optDeny, Name: "Deny", Kind: acp.RejectOnce})
	return d
}

// approvalWords are the dialog's content: the server's title (its
// question, on one line) and its detail, without control characters or
// bidirectional overrides (SPEC §15).
func approvalWords(h *a2a.Hitl) string {
	words := strings.TrimSpace(termsafe.Line(h.Title))
	if words == "" {
		words = "Approve?"
	}
	if detail := strings.TrimSpace(termsafe.Text(h.Detail)); detail != "" {
		words += "\n\n" + detail
	}
	return words
}

// answer is what the option chosen means: approved, "always" for the
// agent, and whether the session's mode becomes allow-commands.
func (d decision) answer(choice string) (approved, always, sessionMode bool) {
	switch choice {
	case optApprove:
		return true, false, false
	case optApproveSession:
		return true, d.agentAlways, d.sessionMode
	}
	return false, false, false
}

// Case is what an approval is decided on, of what the turn knows: its
// task, the session's mode, and whether the message the park answers
// asked to bypass approvals.
type Case struct {
	TaskID string
	// Bypass: the session is in allow-commands; SentBypass: the message
	// the park answers asked to bypass approvals.
	Bypass, SentBypass bool
}

// Approval carries the decision out on the card of the call the park is
// about (SPEC §18): the card already shown, else one it opens; asks the
// editor (unless approved at once) with the card pending; and resumes the
// task with the answer, the card running again (approved) or ended
// "Denied".
func (a *Asker) Approval(ctx context.Context, h *a2a.Hitl, c Case) Result {
	p := parkCall(h)
	card, shown := a.R.Approvals().Parked(p)
	d := decide(approvalCase{park: h, kind: card.Kind, bypass: c.Bypass, sentBypass: c.SentBypass})
	if !shown {
		status := acp.ToolPending
		if d.auto {
			status = acp.ToolInProgress
		}
		var outs []render.Out
		card, outs = a.R.Approvals().OpenParked("approval-"+c.TaskID+"-"+randid.Hex(3), p, status)
		a.Out.Show(outs)
	}
	approved, always := d.auto, false
	if d.auto {
		if d.tellNoSkip && a.Mode.TellNoSkip() {
			a.Out.Show(a.R.Notices.Say(notice.NoSkipNotice()))
		}
		a.Log.Info("auto-approved a command for this session", "task", c.TaskID)
	} else {
		a.Out.Show(a.R.Approvals().Asking(card.ID))
		choice, elsewhere := a.permission(ctx, card, d)
		if elsewhere {
			a.Out.Show(a.R.Approvals().Resumed(card.ID))
			a.Out.Show(a.R.Notices.Say(notice.ElsewhereNotice()))
			return Result{Elsewhere: true}
		}
		if a.Prompt.GivenUp() {
			// The turn's end settles the card.
			return Result{GivenUp: true}
		}
		var setMode bool
		approved, always, setMode = d.answer(choice)
		if setMode {
			a.Mode.AllowCommands()
		}
		if approved {
			a.Out.Show(a.R.Approvals().Approved(card.ID))
		} else {
			a.Out.Show(a.R.Approvals().Denied(card.ID))
		}
	}
	if a.Prompt.GivenUp() {
		return Result{GivenUp: true}
	}
	return Result{Resume: &a2a.OutMessage{ContextID: a.Session, TaskID: c.TaskID, Resume: true,
		Approval: &a2a.ApprovalAnswer{ToolCallID: h.ToolCallID, Allow: approved, Always: always}}}
}

// permission shows the editor's permission dialog and returns the chosen
// option; any failure, dismissal or unknown answer is a denial. A dialog
// withdrawn because its prompt was cancelled is asked again of the prompt
// that adopts the turn (Send Now), a denial when none does; elsewhere
// reports that it was withdrawn because the park was answered elsewhere.
func (a *Asker) permission(ctx context.Context, card render.Card, d decision) (choice string, elsewhere bool) {
	req := acp.RequestPermissionParams{SessionID: a.Session, ToolCall: permissionCall(card, d), Options: d.options}
	for {
		left, ok := a.Prompt.Wait()
		if !ok {
			return optDeny, false
		}
		var resp acp.RequestPermissionResponse
		withdrawn, err := a.dialog(ctx, left, acp.MethodRequestPermission, req, &resp)
		switch {
		case errors.Is(withdrawn, errPromptLeft):
			continue
		case errors.Is(withdrawn, errElsewhere):
			return "", true
		case err != nil:
			a.Log.Info("permission request failed; denying", "err", err)
			return optDeny, false
		case resp.Outcome.Outcome != acp.OutcomeSelected:
			return optDeny, false
		}
		for _, o := range d.options {
			if o.OptionID == resp.Outcome.OptionID {
				return o.OptionID, false
			}
		}
		a.Log.Warn("the editor chose an option shim did not offer; denying", "option", resp.Outcome.OptionID)
		return optDeny, false
	}
}

// permissionCall is what the dialog shows of the call (SPEC §18): the
// card's id, title, kind, locations and input, and the approval's own
// words as its content.
func permissionCall(card render.Card, d decision) acp.PermissionToolCall {
	return acp.PermissionToolCall{ToolCallID: card.ID, Title: card.Title, Kind: card.Kind, Locations: card.Locations,
		RawInput: card.RawInput, Content: []acp.ToolCallContent{acp.Content{Content: acp.Text(d.words)}}}
}
