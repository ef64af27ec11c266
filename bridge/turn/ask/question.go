package ask

// Questions and forms: a park that is not an approval is asked as the
// editor's own forms when it shows them (SPEC §11.3), answered in this
// prompt; else shown as text and answered by the next prompt.

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/bridge/render/question"
)

// Question asks a question or a form of the task taskID as the editor's
// forms when it shows them, answered in this prompt; otherwise, or when
// they are not accepted, it shows the park as text and ends the turn
// (AsText): the next prompt answers it. A park with no hitl data shows
// the call its data names first (the caller has made sure the roots know
// its project).
func (a *Asker) Question(ctx context.Context, taskID string, m *a2a.Message) Result {
	callID := ""
	if m.Hitl() == nil {
		var outs []render.Out
		callID, outs = a.R.Tools.ParkTool(m.ParkData())
		a.Out.Show(outs)
	}
	if res, ok := a.forms(ctx, taskID, m, callID); ok {
		return res
	}
	a.Out.Show(a.R.Answer.Question(taskID, m))
	return Result{AsText: true}
}

// forms asks the park as forms (about the call callID, when the park
// opened one); false when the client cannot show them, or the person did
// not accept every one (the park is then shown as text). Every step
// accepted resumes the task: with the answer's text, or the JSON object
// of every step's values merged.
func (a *Asker) forms(ctx context.Context, taskID string, m *a2a.Message, callID string) (Result, bool) {
	if !a.Forms {
		return Result{}, false
	}
	steps, how := question.Forms(m)
	if len(steps) == 0 {
		return Result{}, false
	}
	merged := map[string]json.RawMessage{}
	var answer string
	for _, st := range steps {
		content, ok, elsewhere := a.elicit(ctx, st, callID)
		if elsewhere {
			a.Out.Show(a.R.Notices.Say(notice.ElsewhereNotice()))
			return Result{Elsewhere: true}, true
		}
		if !ok {
			return Result{}, false
		}
		if how == question.AnswerText {
			if json.Unmarshal(content["answer"], &answer) != nil {
				a.Log.Info("the form's answer is not text; asking in words", "session", a.Session)
				return Result{}, false
			}
			break
		}
		for k, v := range content {
			merged[k] = v
		}
	}
	if a.Prompt.GivenUp() {
		return Result{}, false
	}
	msg := a2a.OutMessage{ContextID: a.Session, TaskID: taskID, Resume: true}
	if how == question.AnswerText {
		msg.Parts = []a2a.Part{{Kind: a2a.PartText, Text: answer}}
	} else {
		b, err := json.Marshal(merged)
		if err != nil {
			return Result{}, false
		}
		if how == question.AnswerValues {
			msg.Values = b
		} else {
			msg.Parts = []a2a.Part{{Kind: a2a.PartText, Text: string(b)}}
		}
	}
	return Result{Resume: &msg}, true
}

// elicit asks one form of the editor and returns the accepted values. It
// waits until the person answers, the prompt is cancelled, the park is
// answered elsewhere (elsewhere) or the editor is gone; the form is
// withdrawn when it is no longer needed (dialog); any answer but accept
// (decline, cancel, an error) is false.
func (a *Asker) elicit(ctx context.Context, st question.FormStep, callID string) (content map[string]json.RawMessage, ok, elsewhere bool) {
	left, attended := a.Prompt.Wait()
	if !attended {
		return nil, false, false
	}
	req := acp.CreateElicitationParams{SessionID: a.Session, ToolCallID: callID, Mode: acp.ElicitationFormMode, Message: st.Message, RequestedSchema: st.Schema}
	var resp acp.CreateElicitationResponse
	withdrawn, err := a.dialog(ctx, left, acp.MethodElicitationCreate, req, &resp)
	switch {
	case errors.Is(withdrawn, errElsewhere):
		return nil, false, true
	case err != nil:
		a.Log.Info("the form was not answered; asking in words", "session", a.Session, "err", err)
		return nil, false, false
	case resp.Action != acp.ElicitationAccept:
		a.Log.Info("the form was not accepted; asking in words", "session", a.Session, "action", resp.Action)
		return nil, false, false
	}
	if resp.Content == nil {
		resp.Content = map[string]json.RawMessage{}
	}
	return resp.Content, true, false
}
