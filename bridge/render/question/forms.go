package question

// A park asked as the editor's own forms (SPEC §11.3): a question is one
// form with one answer field, a form park one form per step, a park whose
// data gives the answer's schema one form of that schema.

import (
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/termsafe"
)

// FormStep is one elicitation of a park.
type FormStep struct {
	Message string
	Schema  acp.FormSchema
}

// FormAnswer is how a park's accepted forms answer it.
type FormAnswer uint8

// How the accepted forms answer a park.
const (
	AnswerText   FormAnswer = iota // a question: the answer's text
	AnswerJSON                     // a form park: the JSON of the values, as text
	AnswerValues                   // a park's schema (§12.8): the values as data
)

// Forms is what a question or form park asks, as forms, and how their
// values answer it. A park whose data gives the answer's schema is one form
// of that schema; the question's form and the schema's carry the park's
// data lines. The forms are shim's dialogs holding the server's text: their
// messages and their fields' titles and descriptions have no control
// characters or bidirectional overrides, a title is one line, and a
// field's key (data the answer names) and choices are kept as sent (SPEC
// §15).
func Forms(m *a2a.Message) (steps []FormStep, how FormAnswer) {
	steps, how = parkForms(m)
	for i := range steps {
		steps[i] = steps[i].cleaned()
	}
	return steps, how
}

// cleaned is st with its server text made shim's (Forms).
func (st FormStep) cleaned() FormStep {
	st.Message = termsafe.Text(st.Message)
	if len(st.Schema.Properties) == 0 {
		return st
	}
	fields := make([]acp.FormField, len(st.Schema.Properties))
	for i, f := range st.Schema.Properties {
		f.Title, f.Description = termsafe.Line(f.Title), termsafe.Text(f.Description)
		fields[i] = f
	}
	st.Schema.Properties = fields
	return st
}

// parkForms is Forms before its text is cleaned.
func parkForms(m *a2a.Message) (steps []FormStep, how FormAnswer) {
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
			return []FormStep{{Message: q, Schema: acp.AnswerForm()}}, AnswerText
		}
		d := m.ParkData()
		if d != nil && d.Schema != nil {
			if schema := acp.ReduceSchema(d.Schema); len(schema.Properties) > 0 {
				return []FormStep{{Message: withData(q, d), Schema: schema}}, AnswerValues
			}
		}
		return []FormStep{{Message: withData(q, d), Schema: acp.AnswerForm()}}, AnswerText
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
		steps = append(steps, FormStep{Message: msg, Schema: acp.ReduceSchema(st.Schema)})
	}
	return steps, AnswerJSON
}
