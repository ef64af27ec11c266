package wire

// What a park says in data parts beside its text (SPEC §12.8): agent
// frameworks put the tool call a park is about, and a JSON Schema of the
// answer they want, in plain data parts of the input-required status
// message.

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
)

// The keys a tool call is named under, its args under, and its id under;
// the keys an answer's schema is under.
var (
	parkToolNameKeys = []string{"toolName", "name", "tool"}
	parkToolArgsKeys = []string{"args", "arguments", "input"}
	parkToolIDKeys   = []string{"toolCallId", "tool_call_id", "callId", "id"}
	parkSchemaKeys   = []string{"resumeSchema", "requestedSchema", "inputSchema", "schema"}
)

// parkData reads the data parts of no extension shim knows (a tool-event
// part is read too, whatever its kind: in a park, a function call is what
// the park asks about); nil when there is none.
func parkData(parts []a2a.Part) *a2a.ParkData {
	var d *parkBuilder
	for i := range parts {
		p := &parts[i]
		if p.Kind != a2a.PartData || p.Vendor() || len(bytes.TrimSpace(p.Data)) == 0 {
			continue
		}
		if d == nil {
			d = &parkBuilder{d: &a2a.ParkData{}}
		}
		d.read(p.Data)
	}
	if d == nil {
		return nil
	}
	return d.d
}

// parkBuilder builds a ParkData.
type parkBuilder struct {
	d    *a2a.ParkData
	used int // bytes of Fields, a byte more for each
}

// parkParseMax is the largest data part read for a tool call and a schema;
// a larger one is shown as its JSON text, cut.
const parkParseMax = 1 << 20

// read takes one data part: its tool call and schema (the first the
// message gives), then its values.
func (d *parkBuilder) read(data []byte) {
	if len(data) > parkParseMax {
		d.add("", string(data[:a2a.ParkFieldsMax+1]))
		return
	}
	top, ok := members(data)
	if !ok {
		d.walk("", data, 0)
		return
	}
	for _, c := range top.wrapped() {
		if d.d.Tool == nil {
			d.d.Tool = c.tool(0)
		}
		if d.d.Schema == nil {
			d.d.Schema = c.schema()
		}
	}
	d.walk("", data, 0)
}

// wrapped is o itself, then each object member of it (one wrapper), in
// the data's order: where a park's data names a tool call or a schema.
func (o jsonObject) wrapped() []jsonObject {
	out := []jsonObject{o}
	for _, v := range o.vals {
		if w, ok := members(v); ok {
			out = append(out, w)
		}
	}
	return out
}

// jsonObject is a JSON object's members, in order, each value as raw JSON.
type jsonObject struct {
	keys []string
	vals []json.RawMessage
}

// get returns the value of the last member named k.
func (o jsonObject) get(k string) (json.RawMessage, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// str returns the string value of the first of keys that has one.
func (o jsonObject) str(keys ...string) string {
	for _, k := range keys {
		if raw, ok := o.get(k); ok {
			var s string
			if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
	}
	return ""
}

// parkWrapsMax is how many tool calls deep a call wrapped in another's
// args is looked for.
const parkWrapsMax = 3

// tool reads a tool call from o: a name under one of the name keys and
// args under one of the args keys. A call whose args hold another call is
// that inner call (confirmationWrapsCall), up to parkWrapsMax deep.
func (o jsonObject) tool(wraps int) *a2a.ToolCall {
	name := o.str(parkToolNameKeys...)
	if name == "" {
		return nil
	}
	for _, k := range parkToolArgsKeys {
		raw, ok := o.get(k)
		if !ok || string(raw) == "null" {
			continue
		}
		if inner := confirmationWrapsCall(raw, wraps); inner != nil {
			return inner
		}
		return &a2a.ToolCall{ID: o.str(parkToolIDKeys...), Name: name, Phase: a2a.PhasePending, Args: argsText(raw)}
	}
	return nil
}

// argsText is a call's args as JSON text: a JSON string's text, else the
// value compacted.
func argsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s // args sent as JSON text
	}
	if c, err := compact(raw); err == nil {
		return c
	}
	return string(raw)
}

// schema returns the answer's schema o gives under one of the schema keys.
func (o jsonObject) schema() json.RawMessage {
	for _, k := range parkSchemaKeys {
		if raw, ok := o.get(k); ok {
			if s := objectSchema(raw); s != nil {
				return s
			}
		}
	}
	return nil
}

// objectSchema returns raw as the JSON text of a schema of type object:
// raw itself, or the JSON a string holds (schemaInString), compacted in
// its own order; nil for anything else.
func objectSchema(raw json.RawMessage) json.RawMessage {
	raw = schemaInString(raw)
	o, ok := members(raw)
	if !ok {
		return nil
	}
	var typ string
	if t, ok := o.get("type"); !ok || json.Unmarshal(t, &typ) != nil || typ != "object" {
		return nil
	}
	c, err := compact(raw)
	if err != nil {
		return nil
	}
	return json.RawMessage(c)
}

func compact(raw []byte) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// isSchema reports whether a member of a data object is an answer's schema.
func isSchema(key string, raw json.RawMessage) bool {
	for _, k := range parkSchemaKeys {
		if k == key {
			return objectSchema(raw) != nil
		}
	}
	return false
}

// The deepest object level flattened; deeper objects are JSON text.
const parkDepthMax = 6

// walk adds the values of raw, in document order, under prefix; members
// that are an answer's schema are left out (they are the form).
func (d *parkBuilder) walk(prefix string, raw json.RawMessage, depth int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || d.d.More {
		return
	}
	switch raw[0] {
	case '{':
		if depth >= parkDepthMax {
			break
		}
		o, ok := members(raw)
		if !ok {
			break
		}
		for i, k := range o.keys {
			if isSchema(k, o.vals[i]) {
				continue
			}
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			d.walk(key, o.vals[i], depth+1)
		}
		return
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			d.add(prefix, s)
			return
		}
	}
	if c, err := compact(raw); err == nil {
		d.add(prefix, c)
		return
	}
	d.add(prefix, string(raw))
}

// add keeps one value while ParkFieldsMax allows, the last one cut.
func (d *parkBuilder) add(key, value string) {
	if d.d.More {
		return
	}
	if d.used+len(key)+len(value)+1 > a2a.ParkFieldsMax {
		if room := a2a.ParkFieldsMax - d.used - len(key) - 1; room > 0 {
			for room > 0 && !utf8.RuneStart(value[room]) {
				room--
			}
			d.d.Fields = append(d.d.Fields, a2a.ParkField{Key: key, Value: value[:room]})
		}
		d.d.More = true
		return
	}
	d.used += len(key) + len(value) + 1
	d.d.Fields = append(d.d.Fields, a2a.ParkField{Key: key, Value: value})
}

// members splits a JSON object into its members, in order; false for
// anything else.
func members(raw []byte) (jsonObject, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return jsonObject{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonObject{}, false
	}
	var o jsonObject
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return jsonObject{}, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return jsonObject{}, false
		}
		o.keys, o.vals = append(o.keys, k), append(o.vals, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return jsonObject{}, false
	}
	return o, true
}
