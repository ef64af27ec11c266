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
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// formStep is one elicitation of a park.
type formStep struct {
	message string
	schema  acp.FormSchema
}

// formAnswer is how a park's accepted forms answer it.
type formAnswer uint8

const (
	answerText   formAnswer = iota // a question: the answer's text
	answerJSON                     // a form park: the JSON of the values, as text
	answerValues                   // a park's schema (§12.8): the values as data
)

// parkForms is what a question or form park asks, as forms, and how their
// values answer it. A park whose data gives the answer's schema is one form
// of that schema; the question's form and the schema's carry the park's
// data lines.
func parkForms(m *a2a.Message) (steps []formStep, how formAnswer) {
	h := m.Hitl()
	if h == nil || h.Kind != a2a.HitlForm {
		q := m.Text()
		if h != nil && h.Question != "" {
			q = h.Question
		}
		if strings.TrimSpace(q) == "" {
			q = "The agent is waiting for your answer."
		}
		q = strings.TrimSpace(q)
		if h != nil {
			return []formStep{{message: q, schema: acp.AnswerForm()}}, answerText
		}
		d := m.ParkData()
		if d != nil && d.Schema != nil {
			if schema := acp.ReduceSchema(d.Schema); len(schema.Properties) > 0 {
				return []formStep{{message: withData(q, d), schema: schema}}, answerValues
			}
		}
		return []formStep{{message: withData(q, d), schema: acp.AnswerForm()}}, answerText
	}
	for _, st := range h.Steps {
		title, desc := st.Title, st.Description
		if strings.TrimSpace(title) == "" {
			title = h.Title
		}
		if strings.TrimSpace(title) == "" {
			title = h.Question
		}
		if strings.TrimSpace(desc) == "" {
			desc = h.Description
		}
		msg := acp.FormMessage(title, desc)
		if msg == "" {
			msg = "The agent is waiting for your answer."
		}
		steps = append(steps, formStep{message: msg, schema: acp.ReduceSchema(st.Schema)})
	}
	return steps, answerJSON
}

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
	steps, how := parkForms(m)
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
		if how == answerText {
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
	if how == answerText {
		msg.Parts = []a2a.Part{{Kind: a2a.PartText, Text: answer}}
	} else {
		b, err := json.Marshal(merged)
		if err != nil {
			return outcome{}, false
		}
		if how == answerValues {
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
func (t *turn) elicit(st formStep, cardID string) (map[string]json.RawMessage, bool) {
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
	req := acp.CreateElicitationParams{SessionID: t.sess.id, ToolCallID: cardID, Mode: acp.ElicitationFormMode, Message: st.message, RequestedSchema: st.schema}
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
