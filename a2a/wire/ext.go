package wire

// The extensions shim understands, read once as a message or an artifact
// is decoded (SPEC §3.3): tool-call-v1 in the message metadata or in data
// parts, tool-event parts (a server's function and code parts:
// departures.go), reasoning-v1 and thought texts, hitl-v1 parks,
// steer-consumed-v1, the hitl_resume flag, cost-v1 and context-v1; and the
// plain data parts of a park (park.go).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/jsontext"
)

// readMessageExt fills in what m's extensions say; md is its metadata
// object.
func readMessageExt(m *a2a.Message, md json.RawMessage) {
	if md != nil { // (keys is allocated here only: it escapes)
		var keys messageMeta
		readKeys(md, &keys)
		m.Tools = metadataToolCalls(keys.ToolCall)
		m.Resume = isTrue(keys.Resume)
	}
	events := false              // a tool-event part was read as a call
	var parkTools []a2a.ToolCall // the calls but those of tool-event parts, once events
	plain := false               // a data part of no extension shim knows
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.Thought() {
			m.Reasoning = append(m.Reasoning, p.Text)
		}
		if p.Kind != a2a.PartData {
			continue
		}
		n := len(m.Tools)
		switch event := readDataPart(m, p); {
		case event && !events:
			events, parkTools = true, append(parkTools, m.Tools[:n]...)
		case !event && events:
			parkTools = append(parkTools, m.Tools[n:]...)
		}
		plain = plain || !p.Vendor()
	}
	m.ParkTools = m.Tools
	if events {
		// In a park, a tool-event part is the park's data
		// (Status.ToolCalls).
		m.ParkTools = parkTools
	}
	if plain {
		m.Data = parkData(m.Parts)
	}
}

// readDataPart reads what one data part of m says; event reports a
// tool-event part read as a call.
func readDataPart(m *a2a.Message, p *a2a.Part) (event bool) {
	switch p.MimeType {
	case a2a.MimeToolCall:
		var o toolCallPayload
		if p.Kind == a2a.PartData && readKeys(p.Data, &o) {
			m.Tools = append(m.Tools, o.call())
		}
		return false
	case a2a.MimeReasoning:
		if s := str(dataObject(p), "text"); s != "" {
			m.Reasoning = append(m.Reasoning, s)
		}
	case a2a.MimeHitl:
		if m.Park == nil {
			m.Park = hitl(p, m)
		}
	case a2a.MimeSteerConsumed:
		m.Steers = append(m.Steers, steers(p)...)
	}
	tc, ok := toolEvent(p)
	if ok {
		m.Tools = append(m.Tools, tc)
	}
	return ok
}

// readArtifactExt fills in what a's extensions say; md is its metadata
// object (read whatever its size: a.Metadata keeps a small one only).
func readArtifactExt(a *a2a.Artifact, md json.RawMessage) {
	if md != nil { // (keys is allocated here only: it escapes)
		var keys artifactMeta
		readKeys(md, &keys)
		if o := object(keys.Cost); o != nil {
			u := usage(o)
			a.Cost = &u
		}
	}
	window := false // a context-v1 part was read
	for i := range a.Parts {
		p := &a.Parts[i]
		switch {
		case p.Kind != a2a.PartData:
		case p.MimeType == a2a.MimeCost && a.Cost == nil:
			if o := dataObject(p); o != nil {
				u := usage(o)
				a.Cost = &u
			}
		case p.MimeType == a2a.MimeContext && !window:
			window = true
			if o := dataObject(p); o != nil {
				a.Window = &a2a.ContextInfo{
					Tokens: num(o, "contextTokens", "context_tokens"),
					Window: num(o, "contextWindow", "context_window", "maxContextTokens"),
				}
			}
		}
	}
}

// dataObject is a data part's object; nil for anything else.
func dataObject(p *a2a.Part) map[string]any {
	if p.Kind != a2a.PartData || len(p.Data) == 0 || p.Data[0] != '{' {
		return nil
	}
	var m map[string]any
	if fastjson.Unmarshal(p.Data, &m) != nil {
		return nil
	}
	return m
}

// The members of the objects shim reads a few keys of (metadata and
// extension payloads), each value kept as its raw JSON, decoded by what
// reads it. The keys are matched exactly, as a map's would be.
type (
	messageMeta struct {
		ToolCall json.RawMessage `json:"https://proto-labs.ai/a2a/ext/tool-call-v1"` // a2a.ExtToolCall
		Resume   json.RawMessage `json:"hitl_resume"`                                // metaResume
	}
	artifactMeta struct {
		Cost json.RawMessage `json:"https://proto-labs.ai/a2a/ext/cost-v1"` // a2a.ExtCost
	}
	partMeta struct {
		MimeType  json.RawMessage `json:"mimeType"`
		MimeType2 json.RawMessage `json:"mime_type"`
		adkMarks                  // departures.go
	}
	// toolCallPayload is a tool-call-v1 payload.
	toolCallPayload struct {
		ID      json.RawMessage `json:"toolCallId"`
		ID2     json.RawMessage `json:"tool_call_id"`
		Name    json.RawMessage `json:"name"`
		Phase   json.RawMessage `json:"phase"`
		Args    json.RawMessage `json:"args"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
		Parent  json.RawMessage `json:"parentToolCallId"`
		Parent2 json.RawMessage `json:"parent_tool_call_id"`
	}
)

// readKeys reads the members of the JSON object raw that v (one of the
// types above) names into v, each value sharing raw; it reports whether
// raw is an object (else v is left empty).
func readKeys(raw json.RawMessage, v any) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	return parse(raw, v, fastjson.DontCopyRawMessage|fastjson.DontMatchCaseInsensitiveStructFields) == nil
}

// metadataToolCalls reads tool-call-v1 in message metadata (the raw value
// of its key): one object or a list.
func metadataToolCalls(v json.RawMessage) []a2a.ToolCall {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0:
	case v[0] == '{':
		var o toolCallPayload
		if readKeys(v, &o) {
			return []a2a.ToolCall{o.call()}
		}
	case v[0] == '[':
		var list []json.RawMessage
		if parseRaw(v, &list) != nil {
			return nil
		}
		var out []a2a.ToolCall
		for _, e := range list {
			var o toolCallPayload
			if readKeys(e, &o) {
				out = append(out, o.call())
			}
		}
		return out
	}
	return nil
}

// call reads a tool-call-v1 payload; its args, result and error are kept
// as their JSON text whatever their form (rawText).
func (o *toolCallPayload) call() a2a.ToolCall {
	return a2a.ToolCall{
		ID:       first(rawStr(o.ID), rawStr(o.ID2)),
		Name:     rawStr(o.Name),
		Phase:    a2a.Phase(strings.ToLower(rawStr(o.Phase))),
		Args:     rawText(o.Args),
		Result:   rawText(o.Result),
		Error:    rawText(o.Error),
		ParentID: first(rawStr(o.Parent), rawStr(o.Parent2)),
	}
}

// hitl reads a hitl-v1 park; m is its message, whose text is a question's
// when the park names none. Nil for a part that is no object.
func hitl(p *a2a.Part, m *a2a.Message) *a2a.Hitl {
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

// steers reads a steer-consumed-v1 part.
func steers(p *a2a.Part) []a2a.SteerItem {
	var out []a2a.SteerItem
	items, _ := dataObject(p)["items"].([]any)
	for _, it := range items {
		o, _ := it.(map[string]any)
		out = append(out, a2a.SteerItem{ID: str(o, "id"), Text: str(o, "text")})
	}
	return out
}

func usage(o map[string]any) a2a.Usage {
	u, _ := o["usage"].(map[string]any)
	if u == nil {
		u = o
	}
	return a2a.Usage{
		InputTokens:         num(u, "input_tokens", "inputTokens"),
		OutputTokens:        num(u, "output_tokens", "outputTokens"),
		CacheReadTokens:     num(u, "cache_read_input_tokens", "cacheReadInputTokens"),
		CacheCreationTokens: num(u, "cache_creation_input_tokens", "cacheCreationInputTokens"),
		CostUSD:             float(o, "costUsd", "cost_usd"),
	}
}

func str(o map[string]any, key string) string {
	s, _ := o[key].(string)
	return s
}

func float(o map[string]any, keys ...string) float64 {
	for _, k := range keys {
		switch v := o[k].(type) {
		case float64:
			return v
		case json.Number:
			f, _ := v.Float64()
			return f
		case string:
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return 0
}

func num(o map[string]any, keys ...string) int64 { return int64(float(o, keys...)) }

// readPartMeta reads what shim reads of a part's metadata object m: its
// mime type, and whether it is a tool event or a thought.
func readPartMeta(out *a2a.Part, m json.RawMessage) {
	var keys partMeta
	readKeys(m, &keys)
	if s, ok := rawString(keys.MimeType); ok {
		out.MimeType = s
	} else if s, ok := rawString(keys.MimeType2); ok {
		out.MimeType = s
	}
	keys.mark(out)
}

// ownMeta is a wire value's metadata as the model keeps it: nil when it
// is no object, or larger than keptMetaMax.
func ownMeta(m wireMeta, big int) json.RawMessage {
	if m = meta(m); m == nil || len(m) > keptMetaMax {
		return nil
	}
	return own(m, big)
}

// keptMetaMax is the largest metadata object a message, an artifact or a
// part keeps as its raw JSON (Metadata) once decoded: what shim reads of a
// larger one is read as it is decoded, and the object is not kept, so that
// no model value holds on to a big frame (a tool call's 40 MiB args in a
// message's metadata: the frame is let go once the args are read).
const keptMetaMax = 64 << 10

// keysOf are the members of a JSON object, each value kept as its raw
// JSON (sharing raw): nil for anything but an object. A key given twice
// reads as its last value, as encoding/json reads it into a map.
func keysOf(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if parseRaw(raw, &m) != nil {
		return nil
	}
	return m
}

// Member is the raw value of key in the JSON object raw: nil when raw is
// no object or has no such key (an agent profile reads its own metadata
// keys with it).
func Member(raw json.RawMessage, key string) json.RawMessage { return keysOf(raw)[key] }

// String is a raw value as a string: empty for anything but a string.
func String(raw json.RawMessage) string { return rawStr(raw) }

// object is a raw value decoded generically when it is an object (a small
// payload of its own: cost-v1's); nil otherwise.
func object(raw json.RawMessage) map[string]any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]any
	if fastjson.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// parseRaw decodes raw into v, the raw values v holds sharing raw.
func parseRaw(raw []byte, v any) error {
	return parse(raw, v, fastjson.DontCopyRawMessage)
}

// rawString is a raw value as a string when it is one.
func rawString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	n := len(raw)
	if n < 2 || raw[n-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && plain(raw[1:n-1]) {
		// No escape: the text between the quotes (a copy).
		return string(raw[1 : n-1]), true
	}
	// Unescaped as encoding/json does (no decoder run: a tool call's
	// args and result are such strings).
	return jsontext.Unquote(raw[1 : n-1])
}

// plain reports whether s may be read as a JSON string's text as it is:
// no quote, no control character and valid UTF-8 (the decoder replaces an
// invalid sequence with U+FFFD).
func plain(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '"' {
			return false
		}
	}
	return utf8.Valid(s)
}

// rawStr is rawString's string: empty for anything but a string.
func rawStr(raw json.RawMessage) string {
	s, _ := rawString(raw)
	return s
}

// isTrue reports whether a raw value is the JSON literal true.
func isTrue(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "true" }

// isNull reports whether a raw value is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// rawText is a raw value as text: a string as is, null or nothing as "",
// any other value as its JSON text without the whitespace between its
// tokens (one copy, none made to find out whether it has any).
func rawText(raw json.RawMessage) string {
	if isNull(raw) {
		return ""
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] == '"' {
		if s, ok := rawString(raw); ok {
			return s
		}
	}
	return compactText(raw)
}

// compactText is the JSON value raw (valid JSON: it was decoded) as text
// with the whitespace outside its strings dropped.
func compactText(raw []byte) string {
	if !spaced(raw) {
		return string(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in:
			esc, in = c == '\\', c != '"'
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// spaced reports whether the JSON value raw has whitespace outside its
// strings.
func spaced(raw []byte) bool {
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in:
			esc, in = c == '\\', c != '"'
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return true
		}
	}
	return false
}
