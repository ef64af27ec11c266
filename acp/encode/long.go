package encode

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/jsontext"
	"github.com/shimdev/shim/internal/randid"
)

// Long fields of a tool call's update: a command's output, a tool's raw
// input or output, a diff's text may be tens of MiB. Through
// encoding/json each would be held twice more (its encoder's buffer grows
// by doubling, then the queue copies it); instead the update is encoded
// with a short marker in the place of each long field, and the queue
// writes the field itself into the line where its marker stands, once:
// a string escaped as encoding/json escapes it, a JSON value compacted as
// encoding/json compacts it. The line is byte for byte the one
// encoding/json writes (TestLongFieldsLikeEncodingJSON).

// longMin is the size from which a field is written in place.
const longMin = 64 << 10

// longNonce makes the markers of this process ones no server text holds.
// It is drawn on first use: crypto/rand's first read costs a cold start
// ~90 µs (its first use, the page faults of its code).
var longNonce = sync.OnceValue(func() string { return randid.Hex(8) })

// longField is one field taken out of an update: a string, or a JSON
// value (raw).
type longField struct {
	marker string // how the marker reads in the encoded update
	text   string
	raw    json.RawMessage
	isRaw  bool
}

// spiller takes the long fields out of an update.
type spiller struct{ fields []longField }

func (sp *spiller) next() (plain, encoded string) {
	plain = "\x00shim-long-" + longNonce() + "-" + strconv.Itoa(len(sp.fields))
	return plain, `"\u0000` + plain[1:] + `"`
}

func (sp *spiller) str(s string) string {
	if len(s) < longMin {
		return s
	}
	plain, encoded := sp.next()
	sp.fields = append(sp.fields, longField{marker: encoded, text: s})
	return plain
}

func (sp *spiller) json(r json.RawMessage) json.RawMessage {
	if len(r) < longMin {
		return r
	}
	_, encoded := sp.next()
	sp.fields = append(sp.fields, longField{marker: encoded, raw: r, isRaw: true})
	return json.RawMessage(encoded)
}

func (sp *spiller) meta(m *acp.ToolMeta) *acp.ToolMeta {
	if m == nil || m.TerminalOutput == nil || len(m.TerminalOutput.Data) < longMin {
		return m
	}
	c, out := *m, *m.TerminalOutput
	out.Data = sp.str(out.Data)
	c.TerminalOutput = &out
	return &c
}

func (sp *spiller) content(cs []acp.ToolCallContent) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	for i, c := range cs {
		d, ok := c.(acp.Diff)
		if !ok || (len(d.NewText) < longMin && (d.OldText == nil || len(*d.OldText) < longMin)) {
			continue
		}
		if out == nil {
			out = slices.Clone(cs)
		}
		if d.OldText != nil {
			old := sp.str(*d.OldText)
			d.OldText = &old
		}
		d.NewText = sp.str(d.NewText)
		out[i] = d
	}
	if out == nil {
		return cs
	}
	return out
}

// spill returns u with its long fields taken out (u itself is not
// changed).
func (sp *spiller) spill(u acp.Update) acp.Update {
	switch u := u.(type) {
	case acp.ToolCall:
		u.Content, u.RawInput, u.RawOutput, u.Meta = sp.content(u.Content), sp.json(u.RawInput), sp.json(u.RawOutput), sp.meta(u.Meta)
		return u
	case acp.ToolCallUpdate:
		u.Content, u.RawInput, u.RawOutput, u.Meta = sp.content(u.Content), sp.json(u.RawInput), sp.json(u.RawOutput), sp.meta(u.Meta)
		return u
	}
	return u
}

// appendLong appends the encoded line skel to b with each long field
// written where its marker stands.
func appendLong(b, skel []byte, fields []longField) ([]byte, error) {
	type at struct {
		pos int
		f   *longField
	}
	places := make([]at, 0, len(fields))
	for i := range fields {
		pos := bytes.Index(skel, []byte(fields[i].marker))
		if pos < 0 {
			continue // not encoded (cannot happen: every field is set)
		}
		places = append(places, at{pos, &fields[i]})
	}
	slices.SortFunc(places, func(x, y at) int { return x.pos - y.pos })
	prev := 0
	for _, p := range places {
		b = append(b, skel[prev:p.pos]...)
		if p.f.isRaw {
			buf := bytes.NewBuffer(b)
			if err := json.Compact(buf, p.f.raw); err != nil {
				return nil, err
			}
			b = buf.Bytes()
		} else {
			// Room for the text and some escapes at once: appended in
			// pieces, the line would be copied at every growth.
			b = jsontext.AppendString(slices.Grow(b, len(p.f.text)+len(p.f.text)/16+2), p.f.text)
		}
		prev = p.pos + len(p.f.marker)
	}
	return append(b, skel[prev:]...), nil
}
