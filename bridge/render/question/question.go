package question

// What a park says beside its question (SPEC §12.8): the content of the
// data parts of its status message, shown with the question as short
// key: value lines; the JSON Schema of the answer, as the form asked
// (forms.go) or its fields listed. The tool call they name is shown as a
// pending view the question is about (render's Tools.ParkTool).

import (
	"strings"
	"unicode/utf8"

	"github.com/shimdev/shim/internal/textcut"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// Most characters of a park's data shown with its question, and of one
// value there (ValueMax, also what a past park's lines cut a value at).
const (
	parkLinesMax = 2000
	ValueMax     = 200
)

// Lines is the content of a park's data as key: value lines, at most
// 2,000 characters (a cut ends with "…"); "" when there is none.
func Lines(d *a2a.ParkData) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	n := 0
	cut := d.More
	for _, f := range d.Fields {
		line := OneLine(f.Value, ValueMax)
		if f.Key != "" {
			line = OneLine(f.Key, ValueMax) + ": " + line
		}
		if b.Len() > 0 {
			line = "\n" + line
		}
		if ln := utf8.RuneCountInString(line); n+ln > parkLinesMax {
			b.WriteString(textcut.FirstChars(line, parkLinesMax-n))
			cut = true
			break
		} else {
			n += ln
		}
		b.WriteString(line)
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// OneLine is s on one line (line breaks and tabs as spaces), cut at max
// characters with "…".
func OneLine(s string, max int) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t':
			return ' '
		}
		return r
	}, s))
	if utf8.RuneCountInString(s) > max {
		return textcut.FirstChars(s, max-1) + "…"
	}
	return s
}

// schemaFields are the fields of a park's answer schema, as a form lists
// them in text.
func schemaFields(d *a2a.ParkData) []a2a.FormField {
	if d == nil || d.Schema == nil {
		return nil
	}
	s := acp.ReduceSchema(d.Schema)
	out := make([]a2a.FormField, 0, len(s.Properties))
	for _, f := range s.Properties {
		ff := a2a.FormField{Name: f.Name, Title: f.Title, Type: f.Type, Description: f.Description, Options: f.Enum}
		if f.Type == "array" {
			ff.Options, ff.Multiple = f.ItemsEnum, true
		}
		for _, r := range s.Required {
			ff.Required = ff.Required || r == f.Name
		}
		out = append(out, ff)
	}
	return out
}

// withData is a park's question followed by its data lines, as the
// message of a form (plain text).
func withData(q string, d *a2a.ParkData) string {
	if lines := Lines(d); lines != "" {
		return q + "\n\n" + lines
	}
	return q
}

// dataBlock is a park's data lines as a block of answer text (fenced, so
// that the editor shows them as they are); "" when there are none.
func dataBlock(d *a2a.ParkData) string {
	lines := Lines(d)
	if lines == "" {
		return ""
	}
	return "\n\n```\n" + lines + "\n```"
}

// Of is the text of a park shown as a question (SPEC §6), live or
// replayed: a form lists its fields; an approval shows its title and
// detail; a park's plain data shows as key: value lines, and the fields of
// the answer's schema it gives are listed (§12.8).
func Of(m *a2a.Message) string { return text(m, false) }

// Answered is Of a park already answered (replayed): it does not say
// where a form can be answered.
func Answered(m *a2a.Message) string { return text(m, true) }

// text is Of, or Answered.
func text(m *a2a.Message, answered bool) string {
	q := m.Text()
	var form []a2a.FormField
	isForm := false
	data := ""
	if h := m.Hitl(); h == nil {
		d := m.ParkData()
		data, form = dataBlock(d), schemaFields(d)
	} else {
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
	b.WriteString("**Input needed:** " + strings.TrimSpace(q) + data)
	if data != "" && len(form) > 0 {
		b.WriteString("\n")
	}
	for _, f := range form {
		b.WriteString("\n- " + formLine(f))
	}
	if isForm && !answered {
		b.WriteString("\n\n(This is a form in the agent's console; reply here in words, or answer it there.)")
	}
	return b.String()
}

// AuthText is what an auth-required status shows: its text (a default
// when it has none) and its data lines.
func AuthText(m *a2a.Message) string {
	text := m.Text()
	if text == "" {
		text = "The agent needs you to authenticate with it before it can go on."
	}
	if m.Hitl() == nil {
		text += dataBlock(m.ParkData())
	}
	return text
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
