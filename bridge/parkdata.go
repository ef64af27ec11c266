package bridge

// What a park says beside its question (SPEC §12.8): the content of the
// data parts of its status message, shown with the question as short
// key: value lines; the tool call they name, as a pending card the
// question is about; the JSON Schema of the answer, as the form asked
// (forms.go) or its fields listed.

import (
	"strings"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// Most characters of a park's data shown with its question, and of one
// value there.
const (
	parkLinesMax = 2000
	parkValueMax = 200
)

// parkLines is the content of a park's data as key: value lines, at most
// 2,000 characters (a cut ends with "…"); "" when there is none.
func parkLines(d *a2a.ParkData) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	n := 0
	cut := d.More
	for _, f := range d.Fields {
		line := oneLine(f.Value, parkValueMax)
		if f.Key != "" {
			line = oneLine(f.Key, parkValueMax) + ": " + line
		}
		if b.Len() > 0 {
			line = "\n" + line
		}
		if ln := utf8.RuneCountInString(line); n+ln > parkLinesMax {
			b.WriteString(cutRunes(line, parkLinesMax-n))
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

// oneLine is s on one line (line breaks and tabs as spaces), cut at max
// characters with "…".
func oneLine(s string, max int) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t':
			return ' '
		}
		return r
	}, s))
	if utf8.RuneCountInString(s) > max {
		return cutRunes(s, max-1) + "…"
	}
	return s
}

// cutRunes is the first n characters of s.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
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
	if lines := parkLines(d); lines != "" {
		return q + "\n\n" + lines
	}
	return q
}

// dataBlock is a park's data lines as a block of answer text (fenced, so
// that the editor shows them as they are); "" when there are none.
func dataBlock(d *a2a.ParkData) string {
	lines := parkLines(d)
	if lines == "" {
		return ""
	}
	return "\n\n```\n" + lines + "\n```"
}

// parkTool opens the pending card of the tool call a park's data names
// and returns its id; a call already on an open card keeps that card. ""
// when the data names none.
func (r *renderer) parkTool(d *a2a.ParkData) (string, []out) {
	if d == nil || d.Tool == nil {
		return "", nil
	}
	tc := *d.Tool
	if c := r.cards.open[tc.ID]; tc.ID != "" && c != nil && !c.ended {
		return tc.ID, nil
	}
	if r.cards.open[tc.ID] != nil {
		tc.ID = ""
	}
	if tc.ID = r.cards.callID(tc); tc.ID == "" {
		return "", nil
	}
	r.openCard(tc)
	return tc.ID, r.take()
}

// parkCard shows the pending card a park is about (parkTool) and returns
// its id.
func (t *turn) parkCard(d *a2a.ParkData) string {
	id, outs := t.r.parkTool(d)
	t.show(outs)
	return id
}
