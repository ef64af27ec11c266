package a2a

// What a park says in data parts beside its text (SPEC §12.8): agent
// frameworks put the tool call a park is about, and a JSON Schema of the
// answer they want, in plain data parts of the input-required status
// message.

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// ParkData is what the data parts of a park's status message (those of no
// extension shim knows) carry.
type ParkData struct {
	// Fields are their content as keys and values: an object's members
	// under dotted keys ("args.path"), a string as is, any other value as
	// JSON text, in the order the data gave them; a schema taken as
	// Schema is not among them.
	Fields []ParkField
	// More is set when Fields stop short of the content (ParkFieldsMax).
	More bool
	// Tool is the tool call the park is about (in PhasePending), when a
	// data part names one.
	Tool *ToolCall
	// Schema is the JSON Schema (of type object) of the answer, when a
	// data part gives one.
	Schema json.RawMessage

	used int // bytes of Fields, a byte more for each
}

// ParkField is one value of a park's data.
type ParkField struct {
	Key   string
	Value string
}

// ParkFieldsMax is how many bytes of keys and values ParkData keeps (a
// byte more for each value).
const ParkFieldsMax = 4096

// The keys a tool call is named under, its args under, and its id under;
// the keys an answer's schema is under.
var (
	parkToolNameKeys = []string{"toolName", "name", "tool"}
	parkToolArgsKeys = []string{"args", "arguments", "input"}
	parkToolIDKeys   = []string{"toolCallId", "tool_call_id", "callId", "id"}
	parkSchemaKeys   = []string{"resumeSchema", "requestedSchema", "inputSchema", "schema"}
)

// ParkData reads the message's data parts of no extension shim knows
// (an ADK part is read too, whatever its kind: in a park, an ADK function
// call is what the park asks about); nil when it has none.
func (m *Message) ParkData() *ParkData {
	if m == nil {
		return nil
	}
	var d *ParkData
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.Kind != PartData || p.vendor() || len(bytes.TrimSpace(p.Data)) == 0 {
			continue
		}
		if d == nil {
			d = &ParkData{}
		}
		d.read(p.Data)
	}
	return d
}

// parkParseMax is the largest data part read for a tool call and a schema;
// a larger one is shown as its JSON text, cut.
const parkParseMax = 1 << 20

// read takes one data part: its tool call and schema (the first the
// message gives), then its values.
func (d *ParkData) read(data []byte) {
	if len(data) > parkParseMax {
		d.add("", string(data[:ParkFieldsMax+1]))
		return
	}
	top, ok := members(data)
	if !ok {
		d.walk("", data, 0)
		return
	}
	for _, c := range top.wrapped() {
		if d.Tool == nil {
			d.Tool = c.tool(0)
		}
		if d.Schema == nil {
			d.Schema = c.schema()
		}
	}
	d.walk("", data, 0)
}

// wrapped is o itself, then each object member of it (one wrapper), in
// the data's order: where a park's data names a tool call or a schema.
func (o object) wrapped() []object {
	out := []object{o}
	for _, v := range o.vals {
		if w, ok := members(v); ok {
			out = append(out, w)
		}
	}
	return out
}

// object is a JSON object's members, in order, each value as raw JSON.
type object struct {
	keys []string
	vals []json.RawMessage
}

// get returns the value of the last member named k.
func (o object) get(k string) (json.RawMessage, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// str returns the string value of the first of keys that has one.
func (o object) str(keys ...string) string {
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
// args under one of the args keys. A call whose args hold another call
// (themselves or one member: a confirmation request around the call it is
// about, as Google ADK's adk_request_confirmation with its
// originalFunctionCall) is that inner call, up to parkWrapsMax deep.
func (o object) tool(wraps int) *ToolCall {
	name := o.str(parkToolNameKeys...)
	if name == "" {
		return nil
	}
	for _, k := range parkToolArgsKeys {
		raw, ok := o.get(k)
		if !ok || string(raw) == "null" {
			continue
		}
		args := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			args = s // args sent as JSON text
		} else if c, err := compact(raw); err == nil {
			args = c
		}
		if a, ok := members(raw); ok && wraps < parkWrapsMax {
			for _, c := range a.wrapped() {
				if inner := c.tool(wraps + 1); inner != nil {
					return inner
				}
			}
		}
		return &ToolCall{ID: o.str(parkToolIDKeys...), Name: name, Phase: PhasePending, Args: args}
	}
	return nil
}

// schema returns the answer's schema o gives under one of the schema keys.
func (o object) schema() json.RawMessage {
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
// raw itself, or the JSON a string holds, compacted in its own order; nil
// for anything else.
func objectSchema(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
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
func (d *ParkData) walk(prefix string, raw json.RawMessage, depth int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || d.More {
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
func (d *ParkData) add(key, value string) {
	if d.More {
		return
	}
	if d.used+len(key)+len(value)+1 > ParkFieldsMax {
		if room := ParkFieldsMax - d.used - len(key) - 1; room > 0 {
			for room > 0 && !utf8.RuneStart(value[room]) {
				room--
			}
			d.Fields = append(d.Fields, ParkField{Key: key, Value: value[:room]})
		}
		d.More = true
		return
	}
	d.used += len(key) + len(value) + 1
	d.Fields = append(d.Fields, ParkField{Key: key, Value: value})
}

// members splits a JSON object into its members, in order; false for
// anything else.
func members(raw []byte) (object, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return object{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return object{}, false
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return object{}, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return object{}, false
		}
		o.keys, o.vals = append(o.keys, k), append(o.vals, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return object{}, false
	}
	return o, true
}
