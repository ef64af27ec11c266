package extension

// tool-call-v1, reasoning-v1, steer-consumed-v1, cost-v1 and context-v1
// payloads, and the generic readers of a payload's members.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/jsontext"
)

// toolCallPayload is a tool-call-v1 payload, each member kept as its raw
// JSON (matched exactly, as a map's keys would be).
type toolCallPayload struct {
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

// ToolCall reads a tool-call-v1 data part (the older servers' spelling).
func ToolCall(p *a2a.Part) (a2a.ToolCall, bool) {
	var o toolCallPayload
	if p.Kind != a2a.PartData || !readKeys(p.Data, &o) {
		return a2a.ToolCall{}, false
	}
	return o.call(), true
}

// ToolCalls reads tool-call-v1 in message metadata (the raw value of its
// key): one object or a list.
func ToolCalls(v json.RawMessage) []a2a.ToolCall {
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
		if parse(v, &list, fastjson.DontCopyRawMessage) != nil {
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
// as their JSON text whatever their form (jsontext.Text).
func (o *toolCallPayload) call() a2a.ToolCall {
	return a2a.ToolCall{
		ID:       first(rawStr(o.ID), rawStr(o.ID2)),
		Name:     rawStr(o.Name),
		Phase:    a2a.Phase(strings.ToLower(rawStr(o.Phase))),
		Args:     jsontext.Text(o.Args),
		Result:   jsontext.Text(o.Result),
		Error:    jsontext.Text(o.Error),
		ParentID: first(rawStr(o.Parent), rawStr(o.Parent2)),
	}
}

// Reasoning reads a reasoning-v1 data part's text.
func Reasoning(p *a2a.Part) string { return str(dataObject(p), "text") }

// Cost reads cost-v1 in artifact metadata (the raw value of its key); nil
// for anything but an object.
func Cost(v json.RawMessage) *a2a.Usage {
	o := object(v)
	if o == nil {
		return nil
	}
	u := usage(o)
	return &u
}

// CostPart reads a cost-v1 data part (the older servers' spelling); nil
// for a part that is no object.
func CostPart(p *a2a.Part) *a2a.Usage {
	o := dataObject(p)
	if o == nil {
		return nil
	}
	u := usage(o)
	return &u
}

// Context reads a context-v1 data part; nil for a part that is no object.
func Context(p *a2a.Part) *a2a.ContextInfo {
	o := dataObject(p)
	if o == nil {
		return nil
	}
	return &a2a.ContextInfo{
		Tokens: num(o, "contextTokens", "context_tokens"),
		Window: num(o, "contextWindow", "context_window", "maxContextTokens"),
	}
}

// Steers reads a steer-consumed-v1 part.
func Steers(p *a2a.Part) []a2a.SteerItem {
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

// readKeys reads the members of the JSON object raw that v names into v,
// each value sharing raw, with the decoder of every A2A body (package
// wire reads its keys so too); it reports whether raw is an object (else
// v is left empty).
func readKeys(raw json.RawMessage, v any) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	return parse(raw, v, fastjson.DontCopyRawMessage|fastjson.DontMatchCaseInsensitiveStructFields) == nil
}

// parse decodes b into v; a value is the whole of b, as encoding/json
// reads it.
func parse(b []byte, v any, flags fastjson.ParseFlags) error {
	rest, err := fastjson.Parse(b, v, flags)
	if err == nil && len(rest) > 0 {
		return fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	return err
}

// rawStr is a raw value as a string: empty for anything but a string.
func rawStr(raw json.RawMessage) string {
	s, _ := jsontext.String(raw)
	return s
}

// first is a, else b.
func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
