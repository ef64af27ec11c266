package bridge

// Questions and forms asked as the editor's own forms (SPEC §11.3): when
// the client shows elicitation forms, a question is one form with one
// answer field and a form park is one form per step, in order. Every
// step accepted resumes the task in the same prompt (the answer's text,
// or the JSON object of every step's values merged); anything else leaves
// the park to the text question of §6.

import (
	"context"
	"encoding/json"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// askForms asks the park as forms (about the card cardID, when the park
// opened one); false when the client cannot show them, or the person did
// not accept every one (the park is then shown as text).
func (t *turn) askForms(m *a2a.Message, cardID string) (outcome, bool) {
	t.srv.infoMu.Lock()
	forms := t.srv.forms
	t.srv.infoMu.Unlock()
	if !forms {
		return outcome{}, false
	}
	steps, how := render.ParkForms(m)
	if len(steps) == 0 {
		return outcome{}, false
	}
	merged := map[string]json.RawMessage{}
	var answer string
	for _, st := range steps {
		content, ok := t.elicit(st, cardID)
		if !ok {
			return outcome{}, false
		}
		if how == render.AnswerText {
			if json.Unmarshal(content["answer"], &answer) != nil {
				t.srv.log.Info("the form's answer is not text; asking in words", "session", t.sess.id)
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
	return outcome{resume: t.sess.intents(&msg)}, true
}

// elicit asks one form of the editor and returns the accepted values. It
// waits until the person answers, the prompt is cancelled or the editor is
// gone; any answer but accept (decline, cancel, an error) is false.
func (t *turn) elicit(st render.FormStep, cardID string) (map[string]json.RawMessage, bool) {
	if !t.waitForPrompt() {
		return nil, false
	}
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	go func() {
		select {
		case <-t.win.Left(): // the prompt was cancelled
			cancel()
		case <-ctx.Done():
		}
	}()
	req := acp.CreateElicitationParams{SessionID: t.sess.id, ToolCallID: cardID, Mode: acp.ElicitationFormMode, Message: st.Message, RequestedSchema: st.Schema}
	var resp acp.CreateElicitationResponse
	if err := t.srv.conn.Call(ctx, acp.MethodElicitationCreate, req, &resp); err != nil {
		t.srv.log.Info("the form was not answered; asking in words", "session", t.sess.id, "err", err)
		return nil, false
	}
	if resp.Action != acp.ElicitationAccept {
		t.srv.log.Info("the form was not accepted; asking in words", "session", t.sess.id, "action", resp.Action)
		return nil, false
	}
	if resp.Content == nil {
		resp.Content = map[string]json.RawMessage{}
	}
	return resp.Content, true
}
