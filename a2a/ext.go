package a2a

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Extension identifiers shim understands.
const (
	ExtToolCall       = "https://proto-labs.ai/a2a/ext/tool-call-v1"
	ExtCost           = "https://proto-labs.ai/a2a/ext/cost-v1"
	MimeToolCall      = "application/vnd.protolabs.tool-call-v1+json"
	MimeCost          = "application/vnd.protolabs.cost-v1+json"
	MimeReasoning     = "application/vnd.protolabs.reasoning-v1+json"
	MimeHitl          = "application/vnd.protolabs.hitl-v1+json"
	MimeSteerConsumed = "application/vnd.protolabs.steer-consumed-v1+json"
	MimeContext       = "application/vnd.protolabs.context-v1+json"
	mimeVendorPrefix  = "application/vnd.protolabs."
)

// Extensions are the extension URIs shim announces in A2A-Extensions.
var Extensions = []string{ExtToolCall, ExtCost}

// Phase is a tool call's phase, lowercased.
type Phase string

// The tool call phases shim acts on (any other is treated as started).
const (
	PhaseStarted   Phase = "started"
	PhaseCompleted Phase = "completed"
	PhaseFailed    Phase = "failed"
	// PhasePending is a call not yet running (validated, scheduled, or
	// waiting for approval).
	PhasePending Phase = "pending"
	// PhaseOutput carries the call's live output in Output, replacing what
	// was shown; the call's phase does not change.
	PhaseOutput Phase = "output"
)

// ToolCodeExecution is the tool name of Google ADK code execution: an
// executable_code part starts the call (its Args the code and language),
// a code_execution_result part ends it (its Result the output).
const ToolCodeExecution = "code_execution"

// ToolCall is one tool-call-v1 event (or a Google ADK function or code
// execution part).
type ToolCall struct {
	// ID is empty for a call the server names no id for (ADK code
	// execution): its start is a new call, its end ends the latest call
	// of its Name not ended.
	ID    string
	Name  string
	Phase Phase
	// Args is the tool's arguments as JSON text. Servers send a JSON string
	// cut at a few hundred characters, so it may not parse.
	Args     string
	Result   string
	Error    string
	ParentID string
	// Kind is the ACP tool kind the agent gives the call; empty: shim
	// derives it from Name.
	Kind string
	// Title is the agent's own label for the call, used when shim knows no
	// better title for Name.
	Title string
	// Output is the live output of a PhaseOutput event.
	Output string
	// Diff is the change an edit made, when the agent reports it.
	Diff *ToolDiff
	// Paths are the files and folders the call touches as an agent
	// profile read them from the call's own args (an absolute path, or one
	// relative to the session's workspace), for agents whose arg names
	// shim's generic reading does not know.
	Paths []ToolPath
}

// ToolPath is a place a tool call touches: a path and, when the call names
// one, a 1-based line (0: none).
type ToolPath struct {
	Path string
	Line int
}

// ToolDiff is a file change: the whole old and new text of Path.
type ToolDiff struct {
	Path    string
	OldText string
	NewText string
}

// Usage is a cost-v1 payload.
type Usage struct {
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostUSD             float64
}

// ContextInfo is a context-v1 payload.
type ContextInfo struct {
	Tokens int64
	Window int64
}

// HitlKind is what a hitl-v1 park asks for.
type HitlKind string

// The park kinds; a park of any other kind is read as a question.
const (
	HitlApproval HitlKind = "approval"
	HitlQuestion HitlKind = "question"
	HitlForm     HitlKind = "form"
)

// Answer is the text of the message that answers an approval park.
type Answer string

// The answers to an approval.
const (
	AnswerApproved Answer = "approved"
	AnswerDenied   Answer = "denied"
)

// Hitl is a hitl-v1 park: an approval, a question or a form.
type Hitl struct {
	Kind     HitlKind
	Title    string
	Detail   string
	Project  string
	Question string
	// Description is a form's description.
	Description string
	Fields      []FormField
	// ToolCallID is the tool call an approval is about, when the agent
	// names it: the answer refers to it and its card is the approval's.
	ToolCallID string
	// Always is set when the agent itself can remember an "always allow"
	// answer for this call (ApprovalAnswer.Always).
	Always bool
	// Steps are a form's steps, in order.
	Steps []FormStep
}

// FormStep is one step of a hitl-v1 form: its title and description (each
// may be empty) and its JSON Schema as sent (an object of fields).
type FormStep struct {
	Title       string
	Description string
	Schema      json.RawMessage
}

// FormField is one field of a hitl-v1 form.
type FormField struct {
	Name        string
	Title       string
	Type        string
	Description string
	Required    bool
	Options     []string
	Multiple    bool
}

// SteerItem is one steer the agent read (steer-consumed-v1).
type SteerItem struct {
	ID   string
	Text string
}

// IsData reports whether p is a data part of the given mime type.
func (p *Part) IsData(mime string) bool { return p.Kind == PartData && p.MimeType == mime }

// Known reports whether p is a part shim interprets or deliberately
// ignores (a vendor extension or an ADK part) rather than shows as is.
func (p *Part) Known() bool {
	if strings.HasPrefix(p.MimeType, mimeVendorPrefix) {
		return true
	}
	_, adk := p.Metadata["adk_type"]
	return adk
}

// Thought reports whether p is a Google ADK thought text.
func (p *Part) Thought() bool {
	b, _ := p.Metadata["adk_thought"].(bool)
	return p.Kind == PartText && b
}

// DataJSON returns the data of a data part as indented-free JSON text.
func (p *Part) DataJSON() string { return string(p.Data) }

func (p *Part) object() map[string]any {
	if p.Kind != PartData || len(p.Data) == 0 || p.Data[0] != '{' {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(p.Data, &m) != nil {
		return nil
	}
	return m
}

// Text returns the message's text parts joined, ADK thoughts excluded.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind == PartText && !p.Thought() {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Thoughts returns the reasoning in the message: reasoning-v1 parts and
// ADK thought texts, in order.
func (m *Message) Thoughts() []string {
	if m == nil {
		return nil
	}
	var out []string
	for i := range m.Parts {
		p := &m.Parts[i]
		switch {
		case p.Thought():
			out = append(out, p.Text)
		case p.IsData(MimeReasoning):
			if s := str(p.object(), "text"); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// ToolCalls returns the tool events the message carries: tool-call-v1 in
// the message metadata (one object or a list), the older tool-call-v1
// data parts, ADK function_call / function_response parts and ADK
// executable_code / code_execution_result parts.
func (m *Message) ToolCalls() []ToolCall {
	if m == nil {
		return nil
	}
	out := append([]ToolCall(nil), m.Tools...)
	switch v := m.Metadata[ExtToolCall].(type) {
	case map[string]any:
		out = append(out, toolCall(v))
	case []any:
		for _, e := range v {
			if o, ok := e.(map[string]any); ok {
				out = append(out, toolCall(o))
			}
		}
	}
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.IsData(MimeToolCall) {
			if o := p.object(); o != nil {
				out = append(out, toolCall(o))
			}
			continue
		}
		if p.Kind != PartData {
			continue
		}
		switch p.Metadata["adk_type"] {
		case "function_call":
			o := p.object()
			out = append(out, ToolCall{ID: str(o, "id"), Name: str(o, "name"), Phase: PhaseStarted, Args: jsonText(o["args"])})
		case "function_response":
			o := p.object()
			tc := ToolCall{ID: str(o, "id"), Name: str(o, "name"), Phase: PhaseCompleted}
			resp := o["response"]
			if r, ok := resp.(map[string]any); ok {
				if e, ok := r["error"]; ok && e != nil {
					tc.Phase, tc.Error = PhaseFailed, jsonText(e)
				}
				if res, ok := r["result"]; ok && len(r) == 1 {
					resp = res
				}
			}
			tc.Result = jsonText(resp)
			out = append(out, tc)
		case "executable_code":
			o := p.object()
			out = append(out, ToolCall{ID: str(o, "id"), Name: ToolCodeExecution, Phase: PhaseStarted, Args: jsonText(o)})
		case "code_execution_result":
			o := p.object()
			tc := ToolCall{ID: str(o, "id"), Name: ToolCodeExecution, Phase: PhaseCompleted, Result: str(o, "output")}
			switch strings.ToUpper(str(o, "outcome")) {
			case "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED":
				tc.Phase, tc.Error = PhaseFailed, str(o, "outcome")
			}
			out = append(out, tc)
		}
	}
	return out
}

func toolCall(o map[string]any) ToolCall {
	tc := ToolCall{
		ID:       cmp.Or(str(o, "toolCallId"), str(o, "tool_call_id")),
		Name:     str(o, "name"),
		Phase:    Phase(strings.ToLower(str(o, "phase"))),
		Args:     jsonText(o["args"]),
		Result:   jsonText(o["result"]),
		Error:    jsonText(o["error"]),
		ParentID: cmp.Or(str(o, "parentToolCallId"), str(o, "parent_tool_call_id")),
	}
	return tc
}

// Hitl returns the message's hitl-v1 park, if any.
func (m *Message) Hitl() *Hitl {
	if m == nil {
		return nil
	}
	if m.Park != nil {
		return m.Park
	}
	for i := range m.Parts {
		p := &m.Parts[i]
		if !p.IsData(MimeHitl) {
			continue
		}
		o := p.object()
		if o == nil {
			continue
		}
		h := &Hitl{
			Kind:        HitlKind(strings.ToLower(str(o, "kind"))),
			Title:       str(o, "title"),
			Detail:      str(o, "detail"),
			Project:     str(o, "project"),
			Question:    str(o, "question"),
			Description: str(o, "description"),
		}
		if h.Kind != HitlApproval && h.Kind != HitlForm {
			if h.Question == "" {
				h.Question = cmp.Or(h.Title, m.Text())
			}
			h.Kind = HitlQuestion
		}
		if h.Kind == HitlForm {
			h.Fields = formFields(o["steps"])
			h.Steps = formSteps(p.Data)
		}
		return h
	}
	return nil
}

// formSteps reads a form's steps from its data, each schema kept as its
// raw JSON (the order of its fields included).
func formSteps(data []byte) []FormStep {
	var f struct {
		Steps []json.RawMessage `json:"steps"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil
	}
	out := make([]FormStep, 0, len(f.Steps))
	for _, raw := range f.Steps {
		var st struct {
			Title       any             `json:"title"`
			Description any             `json:"description"`
			Schema      json.RawMessage `json:"schema"`
		}
		if json.Unmarshal(raw, &st) != nil {
			continue
		}
		t, _ := st.Title.(string)
		d, _ := st.Description.(string)
		out = append(out, FormStep{Title: t, Description: d, Schema: st.Schema})
	}
	return out
}

func formFields(steps any) []FormField {
	var out []FormField
	list, _ := steps.([]any)
	for _, s := range list {
		step, _ := s.(map[string]any)
		schema, _ := step["schema"].(map[string]any)
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
		for _, name := range names {
			p, _ := props[name].(map[string]any)
			f := FormField{Name: name, Title: str(p, "title"), Type: str(p, "type"),
				Description: str(p, "description"), Required: required[name]}
			f.Options = options(p)
			if items, ok := p["items"].(map[string]any); ok && f.Type == "array" {
				f.Multiple = true
				f.Options = options(items)
			}
			out = append(out, f)
		}
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

// SteersConsumed returns the steers the agent reports having read.
func (m *Message) SteersConsumed() []SteerItem {
	if m == nil {
		return nil
	}
	var out []SteerItem
	for i := range m.Parts {
		p := &m.Parts[i]
		if !p.IsData(MimeSteerConsumed) {
			continue
		}
		items, _ := p.object()["items"].([]any)
		for _, it := range items {
			o, _ := it.(map[string]any)
			out = append(out, SteerItem{ID: str(o, "id"), Text: str(o, "text")})
		}
	}
	return out
}

// metaResume is the message metadata key of OutMessage.Resume.
const metaResume = "hitl_resume"

// HitlResume reports whether the message answers a park (its metadata
// carries hitl_resume: true).
func (m *Message) HitlResume() bool {
	if m == nil {
		return false
	}
	b, _ := m.Metadata[metaResume].(bool)
	return b
}

// Usage returns the artifact's cost-v1 usage, from its metadata or an
// older cost-v1 data part.
func (a *Artifact) Usage() (Usage, bool) {
	if a == nil {
		return Usage{}, false
	}
	if o, ok := a.Metadata[ExtCost].(map[string]any); ok {
		return usage(o), true
	}
	for i := range a.Parts {
		if p := &a.Parts[i]; p.IsData(MimeCost) {
			if o := p.object(); o != nil {
				return usage(o), true
			}
		}
	}
	return Usage{}, false
}

func usage(o map[string]any) Usage {
	u, _ := o["usage"].(map[string]any)
	if u == nil {
		u = o
	}
	return Usage{
		InputTokens:         num(u, "input_tokens", "inputTokens"),
		OutputTokens:        num(u, "output_tokens", "outputTokens"),
		CacheReadTokens:     num(u, "cache_read_input_tokens", "cacheReadInputTokens"),
		CacheCreationTokens: num(u, "cache_creation_input_tokens", "cacheCreationInputTokens"),
		CostUSD:             float(o, "costUsd", "cost_usd"),
	}
}

// Context returns the artifact's context-v1 payload.
func (a *Artifact) Context() (ContextInfo, bool) {
	if a == nil {
		return ContextInfo{}, false
	}
	for i := range a.Parts {
		if p := &a.Parts[i]; p.IsData(MimeContext) {
			o := p.object()
			return ContextInfo{
				Tokens: num(o, "contextTokens", "context_tokens"),
				Window: num(o, "contextWindow", "context_window", "maxContextTokens"),
			}, o != nil
		}
	}
	return ContextInfo{}, false
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
