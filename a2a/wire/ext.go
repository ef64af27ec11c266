package wire

// The extensions shim understands, read once as a message or an artifact
// is decoded (SPEC §3.3): tool-call-v1 in the message metadata or in data
// parts, Google ADK's function and code parts, reasoning-v1 and ADK
// thoughts, hitl-v1 parks, steer-consumed-v1, the hitl_resume flag,
// cost-v1 and context-v1; and the plain data parts of a park (park.go).

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
)

// readMessageExt fills in what m's extensions say.
func readMessageExt(m *a2a.Message) {
	m.Tools = metadataToolCalls(m.Metadata)
	adk := false // an ADK part was read as a call
	m.Resume, _ = m.Metadata[metaResume].(bool)
	plain := false // a data part of no extension shim knows
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.Thought() {
			m.Reasoning = append(m.Reasoning, p.Text)
		}
		if p.Kind != a2a.PartData {
			continue
		}
		adk = readDataPart(m, p) || adk
		plain = plain || !p.Vendor()
	}
	m.NoADKTools = m.Tools
	if adk {
		m.NoADKTools = noADKTools(m)
	}
	if plain {
		m.Data = parkData(m.Parts)
	}
}

// noADKTools are m's tool events but those of its ADK parts: its metadata's
// and its tool-call-v1 data parts'.
func noADKTools(m *a2a.Message) []a2a.ToolCall {
	out := metadataToolCalls(m.Metadata)
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind == a2a.PartData && p.MimeType == a2a.MimeToolCall {
			if o := dataObject(p); o != nil {
				out = append(out, toolCall(o))
			}
		}
	}
	return out
}

// readDataPart reads what one data part of m says; adk reports an ADK
// part read as a call.
func readDataPart(m *a2a.Message, p *a2a.Part) (adk bool) {
	switch p.MimeType {
	case a2a.MimeToolCall:
		if o := dataObject(p); o != nil {
			m.Tools = append(m.Tools, toolCall(o))
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
	tc, ok := adkToolCall(p)
	if ok {
		m.Tools = append(m.Tools, tc)
	}
	return ok
}

// readArtifactExt fills in what a's extensions say.
func readArtifactExt(a *a2a.Artifact) {
	if o, ok := a.Metadata[a2a.ExtCost].(map[string]any); ok {
		u := usage(o)
		a.Cost = &u
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

// metadataToolCalls reads tool-call-v1 in message metadata: one object or
// a list.
func metadataToolCalls(meta map[string]any) []a2a.ToolCall {
	switch v := meta[a2a.ExtToolCall].(type) {
	case map[string]any:
		return []a2a.ToolCall{toolCall(v)}
	case []any:
		var out []a2a.ToolCall
		for _, e := range v {
			if o, ok := e.(map[string]any); ok {
				out = append(out, toolCall(o))
			}
		}
		return out
	}
	return nil
}

func toolCall(o map[string]any) a2a.ToolCall {
	return a2a.ToolCall{
		ID:       first(str(o, "toolCallId"), str(o, "tool_call_id")),
		Name:     str(o, "name"),
		Phase:    a2a.Phase(strings.ToLower(str(o, "phase"))),
		Args:     jsonText(o["args"]),
		Result:   jsonText(o["result"]),
		Error:    jsonText(o["error"]),
		ParentID: first(str(o, "parentToolCallId"), str(o, "parent_tool_call_id")),
	}
}

// adkToolCall reads a Google ADK part: function_call,
// function_response, executable_code or code_execution_result.
func adkToolCall(p *a2a.Part) (a2a.ToolCall, bool) {
	kind, _ := p.Metadata["adk_type"].(string)
	read, ok := adkParts[kind]
	if !ok {
		return a2a.ToolCall{}, false
	}
	return read(dataObject(p)), true
}

var adkParts = map[string]func(o map[string]any) a2a.ToolCall{
	"function_call": func(o map[string]any) a2a.ToolCall {
		return a2a.ToolCall{ID: str(o, "id"), Name: str(o, "name"), Phase: a2a.PhaseStarted, Args: jsonText(o["args"])}
	},
	"function_response": func(o map[string]any) a2a.ToolCall {
		tc := a2a.ToolCall{ID: str(o, "id"), Name: str(o, "name"), Phase: a2a.PhaseCompleted}
		resp := o["response"]
		if r, ok := resp.(map[string]any); ok {
			if e, ok := r["error"]; ok && e != nil {
				tc.Phase, tc.Error = a2a.PhaseFailed, jsonText(e)
			}
			if res, ok := r["result"]; ok && len(r) == 1 {
				resp = res
			}
		}
		tc.Result = jsonText(resp)
		return tc
	},
	"executable_code": func(o map[string]any) a2a.ToolCall {
		return a2a.ToolCall{ID: str(o, "id"), Name: a2a.ToolCodeExecution, Phase: a2a.PhaseStarted, Args: jsonText(o)}
	},
	"code_execution_result": func(o map[string]any) a2a.ToolCall {
		tc := a2a.ToolCall{ID: str(o, "id"), Name: a2a.ToolCodeExecution, Phase: a2a.PhaseCompleted, Result: str(o, "output")}
		switch strings.ToUpper(str(o, "outcome")) {
		case "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED":
			tc.Phase, tc.Error = a2a.PhaseFailed, str(o, "outcome")
		}
		return tc
	},
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

// jsonText returns a string as is and any other value as JSON text.
func jsonText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
