package extension

// hitl-v1 parks: an approval, a question or a form with its steps and
// fields.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
)

// Park reads a hitl-v1 park; m is its message, whose text is a question's
// when the park names none. Nil for a part that is no object.
func Park(p *a2a.Part, m *a2a.Message) *a2a.Hitl {
	o := dataObject(p)
	if o == nil {
		return nil
	}
	h := &a2a.Hitl{
		Kind:        a2a.HitlKind(strings.ToLower(str(o, "kind"))),
		Title:       str(o, "title"),
		Detail:      str(o, "detail"),
		Project:     str(o, "project"),
		Question:    str(o, "question"),
		Description: str(o, "description"),
	}
	switch h.Kind {
	case a2a.HitlApproval:
	case a2a.HitlForm:
		h.Fields = formFields(o["steps"])
		h.Steps = formSteps(p.Data)
	default:
		if h.Question == "" {
			h.Question = first(h.Title, m.Text())
		}
		h.Kind = a2a.HitlQuestion
	}
	return h
}

// formSteps reads a form's steps from its data, each schema kept as its
// raw JSON (the order of its fields included).
func formSteps(data []byte) []a2a.FormStep {
	var f struct {
		Steps []json.RawMessage `json:"steps"`
	}
	if fastjson.Unmarshal(data, &f) != nil {
		return nil
	}
	out := make([]a2a.FormStep, 0, len(f.Steps))
	for _, raw := range f.Steps {
		var st struct {
			Title       any             `json:"title"`
			Description any             `json:"description"`
			Schema      json.RawMessage `json:"schema"`
		}
		if fastjson.Unmarshal(raw, &st) != nil {
			continue
		}
		t, _ := st.Title.(string)
		d, _ := st.Description.(string)
		out = append(out, a2a.FormStep{Title: t, Description: d, Schema: st.Schema})
	}
	return out
}

func formFields(steps any) []a2a.FormField {
	var out []a2a.FormField
	list, _ := steps.([]any)
	for _, s := range list {
		step, _ := s.(map[string]any)
		schema, _ := step["schema"].(map[string]any)
		out = append(out, schemaFields(schema)...)
	}
	return out
}

// schemaFields are the fields of one step's schema, in name order.
func schemaFields(schema map[string]any) []a2a.FormField {
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := schema["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]a2a.FormField, 0, len(names))
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		f := a2a.FormField{Name: name, Title: str(p, "title"), Type: str(p, "type"),
			Description: str(p, "description"), Required: required[name]}
		f.Options = options(p)
		if items, ok := p["items"].(map[string]any); ok && f.Type == "array" {
			f.Multiple = true
			f.Options = options(items)
		}
		out = append(out, f)
	}
	return out
}

func options(p map[string]any) []string {
	var out []string
	if e, ok := p["enum"].([]any); ok {
		for _, v := range e {
			out = append(out, fmt.Sprint(v))
		}
	}
	if one, ok := p["oneOf"].([]any); ok {
		for _, v := range one {
			o, _ := v.(map[string]any)
			if t := str(o, "title"); t != "" {
				out = append(out, t)
			} else if c, ok := o["const"]; ok {
				out = append(out, fmt.Sprint(c))
			}
		}
	}
	return out
}
