package turn

// Parks: a task in input-required waits for the person at the editor. An
// approval is asked in a permission dialog (approval.go) whose answer
// resumes the task in the same turn; a question or a form is asked as the
// editor's own forms when it shows them (SPEC §11.3), else shown as text
// and answered by the next prompt.

import (
	"encoding/json"
	"errors"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// park handles input-required.
func (t *Turn) park(m *a2a.Message) outcome {
	if h := m.Hitl(); h != nil && h.Kind == a2a.HitlApproval {
		return t.approval(h)
	}
	return t.question(m)
}

// question asks a question or a form as the editor's forms when it shows
// them, answered in this prompt; otherwise, or when they are not
// accepted, it shows the park as text and ends the turn: the next prompt
// answers it.
func (t *Turn) question(m *a2a.Message) outcome {
	callID := ""
	if m.Hitl() == nil {
		t.needRootsFor(m.ParkData())
		var outs []render.Out
		callID, outs = t.r.Tools.ParkTool(m.ParkData())
		t.show(outs)
	}
	if out, ok := t.askForms(m, callID); ok {
		return out
	}
	t.show(t.r.Answer.Question(t.task(), m))
	t.sess.SetPark(t.task())
	return outcome{stop: acp.StopEndTurn}
}

// askForms asks the park as forms (about the call callID, when the park
// opened one); false when the client cannot show them, or the person did
// not accept every one (the park is then shown as text). Every step
// accepted resumes the task: with the answer's text, or the JSON object
// of every step's values merged.
func (t *Turn) askForms(m *a2a.Message, callID string) (outcome, bool) {
	if !t.env.Draws.Forms {
		return outcome{}, false
	}
	steps, how := render.ParkForms(m)
	if len(steps) == 0 {
		return outcome{}, false
	}
	merged := map[string]json.RawMessage{}
	var answer string
	for _, st := range steps {
		content, ok, elsewhere := t.elicit(st, callID)
		if elsewhere {
			t.show(t.r.Notices.Say(render.ElsewhereNotice()))
			return outcome{elsewhere: true}, true
		}
		if !ok {
			return outcome{}, false
		}
		if how == render.AnswerText {
			if json.Unmarshal(content["answer"], &answer) != nil {
				t.env.Log.Info("the form's answer is not text; asking in words", "session", t.sess.id)
				return outcome{}, false
			}
			break
		}
		for k, v := range content {
			merged[k] = v
		}
	}
	if t.isCancelled() {
		return outcome{}, false
	}
	msg := a2a.OutMessage{ContextID: t.sess.id, TaskID: t.task(), Resume: true}
	if how == render.AnswerText {
		msg.Parts = []a2a.Part{{Kind: a2a.PartText, Text: answer}}
	} else {
		b, err := json.Marshal(merged)
		if err != nil {
			return outcome{}, false
		}
		if how == render.AnswerValues {
			msg.Values = b
		} else {
			msg.Parts = []a2a.Part{{Kind: a2a.PartText, Text: string(b)}}
		}
	}
	return outcome{resume: t.sess.Intents(&msg)}, true
}

// elicit asks one form of the editor and returns the accepted values. It
// waits until the person answers, the prompt is cancelled, the park is
// answered elsewhere (elsewhere) or the editor is gone; the form is
// withdrawn when it is no longer needed (dialog); any answer but accept
// (decline, cancel, an error) is false.
func (t *Turn) elicit(st render.FormStep, callID string) (content map[string]json.RawMessage, ok, elsewhere bool) {
	if !t.waitPhase() {
		return nil, false, false
	}
	req := acp.CreateElicitationParams{SessionID: t.sess.id, ToolCallID: callID, Mode: acp.ElicitationFormMode, Message: st.Message, RequestedSchema: st.Schema}
	var resp acp.CreateElicitationResponse
	withdrawn, err := t.dialog(acp.MethodElicitationCreate, req, &resp)
	switch {
	case errors.Is(withdrawn, errElsewhere):
		return nil, false, true
	case err != nil:
		t.env.Log.Info("the form was not answered; asking in words", "session", t.sess.id, "err", err)
		return nil, false, false
	case resp.Action != acp.ElicitationAccept:
		t.env.Log.Info("the form was not accepted; asking in words", "session", t.sess.id, "action", resp.Action)
		return nil, false, false
	}
	if resp.Content == nil {
		resp.Content = map[string]json.RawMessage{}
	}
	return resp.Content, true, false
}
