package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MethodElicitationCreate asks the person to fill in a form.
const MethodElicitationCreate = "elicitation/create"

// ElicitationFormMode is the mode of a form elicitation;
// ElicitationURLMode the mode of one that sends the person to a URL.
const (
	ElicitationFormMode = "form"
	ElicitationURLMode  = "url"
)

// MethodElicitationComplete tells the client that what a URL elicitation
// sent the person to do is done.
const MethodElicitationComplete = "elicitation/complete"

// The answers to an elicitation.
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)

// CreateElicitationParams is elicitation/create's params for a form tied
// to a session (and, optionally, to one of its tool calls).
type CreateElicitationParams struct {
	SessionID       string     `json:"sessionId"`
	ToolCallID      string     `json:"toolCallId,omitempty"`
	Mode            string     `json:"mode"`
	Message         string     `json:"message"`
	RequestedSchema FormSchema `json:"requestedSchema"`
}

// URLElicitationParams is elicitation/create's params for a page the
// person opens (a sign-in), tied to a request of the client's outside any
// session. A URL never carries a secret.
type URLElicitationParams struct {
	Mode          string `json:"mode"`
	Message       string `json:"message"`
	ElicitationID string `json:"elicitationId"`
	URL           string `json:"url"`
	RequestID     ID     `json:"requestId"`
}

// CompleteElicitationParams is elicitation/complete's params.
type CompleteElicitationParams struct {
	ElicitationID string `json:"elicitationId"`
}

// CreateElicitationResponse is the client's answer: the action, and the
// values of an accepted form by field name.
type CreateElicitationResponse struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content"`
}

// FormSchema is a form's requested schema: an object of flat fields, in
// the order they are shown.
type FormSchema struct {
	Properties []FormField
	Required   []string
}

// FormField is one field of a form: string (a single choice with Enum),
// number, integer, boolean, or array (a multiple choice of ItemsEnum).
type FormField struct {
	Name        string
	Type        string
	Title       string
	Description string
	Enum        []string
	ItemsEnum   []string
}

// MarshalJSON writes the schema as ACP's ElicitationSchema, the fields
// in their order.
func (s FormSchema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, f := range s.Properties {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.property())
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	if len(s.Required) > 0 {
		r, err := json.Marshal(s.Required)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type formProperty struct {
	Type        string     `json:"type"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`
	Enum        []string   `json:"enum,omitempty"`
	Items       *formItems `json:"items,omitempty"`
}

type formItems struct {
	Type string   `json:"type"`
	Enum []string `json:"enum"`
}

func (f FormField) property() formProperty {
	p := formProperty{Type: f.Type, Title: f.Title, Description: f.Description, Enum: f.Enum}
	if f.Type == "array" {
		p.Enum = nil
		p.Items = &formItems{Type: "string", Enum: f.ItemsEnum}
	}
	return p
}

// AnswerForm is the one-field form of a question: a required string
// "answer" titled "Answer".
func AnswerForm() FormSchema {
	return FormSchema{Properties: []FormField{{Name: "answer", Type: "string", Title: "Answer"}}, Required: []string{"answer"}}
}

// ReduceSchema reduces a JSON Schema object (of a form's step) to what an
// ACP form carries: string fields (with enum; oneOf [{const, title}]
// becomes enum), number, integer and boolean fields, and arrays of string
// choices (items.enum or items.oneOf / anyOf: a multiple choice); any
// other field becomes a string field with its title and description.
// The fields keep the schema's order; required keeps the names of fields
// it has. A schema that does not parse gives a form with no field.
func ReduceSchema(raw json.RawMessage) FormSchema {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []any           `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return FormSchema{}
	}
	var out FormSchema
	names, props := orderedObject(s.Properties)
	for _, name := range names {
		out.Properties = append(out.Properties, reduceField(name, props[name]))
	}
	for _, r := range s.Required {
		if n, ok := r.(string); ok {
			if _, known := props[n]; known {
				out.Required = append(out.Required, n)
			}
		}
	}
	return out
}

type jsonField struct {
	Type        any               `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Enum        []any             `json:"enum"`
	OneOf       []json.RawMessage `json:"oneOf"`
	AnyOf       []json.RawMessage `json:"anyOf"`
	Items       *jsonField        `json:"items"`
}

func reduceField(name string, raw json.RawMessage) FormField {
	var p jsonField
	_ = json.Unmarshal(raw, &p)
	f := FormField{Name: name, Title: p.Title, Description: p.Description, Type: "string"}
	switch typeOf(p.Type) {
	case "number", "integer", "boolean":
		f.Type = typeOf(p.Type)
	case "array":
		if p.Items != nil {
			if choices := choicesOf(*p.Items); len(choices) > 0 {
				f.Type, f.ItemsEnum = "array", choices
			}
		}
	case "string", "":
		f.Enum = choicesOf(p)
	}
	return f
}

// typeOf reads a JSON Schema type: a name, or the first of a list that is
// not "null".
func typeOf(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

// choicesOf is a field's choices: its enum, else the consts of its oneOf
// (or anyOf), as text.
func choicesOf(p jsonField) []string {
	var out []string
	for _, v := range p.Enum {
		out = append(out, choiceText(v))
	}
	if len(out) > 0 {
		return out
	}
	opts := p.OneOf
	if len(opts) == 0 {
		opts = p.AnyOf
	}
	for _, o := range opts {
		var c struct {
			Const any `json:"const"`
		}
		if json.Unmarshal(o, &c) == nil && c.Const != nil {
			out = append(out, choiceText(c.Const))
		}
	}
	return out
}

func choiceText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// orderedObject reads a JSON object's members in their order; a later
// duplicate key replaces the earlier value.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	vals := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, vals
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, vals
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if _, seen := vals[k]; !seen {
			names = append(names, k)
		}
		vals[k] = v
	}
	return names, vals
}

// FormMessage is an elicitation's message: a title, then after a blank
// line a description when there is one.
func FormMessage(title, description string) string {
	title, description = strings.TrimSpace(title), strings.TrimSpace(description)
	switch {
	case description == "":
		return title
	case title == "":
		return description
	}
	return title + "\n\n" + description
}
