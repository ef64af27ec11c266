package encode

import (
	"maps"
	"slices"
	"strconv"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/jsontext"
)

// appendInitializeResult appends r as encoding/json encodes it with
// SetEscapeHTML(false), as acp writes its lines: field order, omitempty, a
// nil list or map as null, map keys sorted. initialize is answered as shim starts, before
// anything else has had encoding/json build its codecs; writing the
// answer by hand takes ~0.1 ms off a cold start (bench/analysis.md).
// TestInitializeResultJSON and FuzzInitializeResultJSON hold it to the
// encoder; TestInitializeFieldsWritten fails when a field is added that
// it does not write.
func appendInitializeResult(b []byte, r *acp.InitializeResult) []byte {
	c := &r.AgentCapabilities
	b = strconv.AppendInt(append(b, `{"protocolVersion":`...), int64(r.ProtocolVersion), 10)
	b = strconv.AppendBool(append(b, `,"agentCapabilities":{"loadSession":`...), c.LoadSession)
	b = strconv.AppendBool(append(b, `,"promptCapabilities":{"image":`...), c.PromptCapabilities.Image)
	b = strconv.AppendBool(append(b, `,"audio":`...), c.PromptCapabilities.Audio)
	b = strconv.AppendBool(append(b, `,"embeddedContext":`...), c.PromptCapabilities.EmbeddedContext)
	b = append(b, `},"sessionCapabilities":{"list":{},"resume":{},"close":{},"delete":{},"additionalDirectories":{}},"auth":{"logout":{}}},"authMethods":`...)
	if r.AuthMethods == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range r.AuthMethods {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAuthMethod(b, m)
		}
		b = append(b, ']')
	}
	b = appendImplementation(append(b, `,"agentInfo":`...), r.AgentInfo)
	if r.Meta != nil {
		b = strconv.AppendBool(append(b, `,"_meta":{"steering":{"supported":`...), r.Meta.Steering.Supported)
		b = append(b, "}}"...)
	}
	return append(b, '}')
}

// appendAuthMethod appends m as encoding/json encodes it (in
// initialize's result).
func appendAuthMethod(b []byte, m acp.AuthMethod) []byte {
	b = append(b, '{')
	if m.Type != "" {
		b = append(jsontext.AppendString(append(b, `"type":`...), m.Type), ',')
	}
	b = jsontext.AppendString(append(b, `"id":`...), m.ID)
	b = jsontext.AppendString(append(b, `,"name":`...), m.Name)
	if m.Description != "" {
		b = jsontext.AppendString(append(b, `,"description":`...), m.Description)
	}
	if len(m.Args) > 0 {
		b = appendJSONStrings(append(b, `,"args":`...), m.Args)
	}
	if m.Meta != nil {
		t := &m.Meta.TerminalAuth
		b = jsontext.AppendString(append(b, `,"_meta":{"terminal-auth":{"label":`...), t.Label)
		b = jsontext.AppendString(append(b, `,"command":`...), t.Command)
		b = appendJSONStrings(append(b, `,"args":`...), t.Args)
		b = append(appendJSONStringMap(append(b, `,"env":`...), t.Env), "}}"...)
	}
	return append(b, '}')
}

// appendImplementation appends i as encoding/json encodes it (in
// initialize's result).
func appendImplementation(b []byte, i acp.Implementation) []byte {
	b = jsontext.AppendString(append(b, `{"name":`...), i.Name)
	if i.Title != "" {
		b = jsontext.AppendString(append(b, `,"title":`...), i.Title)
	}
	if i.Version != "" {
		b = jsontext.AppendString(append(b, `,"version":`...), i.Version)
	}
	return append(b, '}')
}

// appendJSONStrings appends a list of strings (null when nil).
func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, s)
	}
	return append(b, ']')
}

// appendJSONStringMap appends a map of strings, its keys sorted as
// encoding/json sorts them (null when nil).
func appendJSONStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(append(jsontext.AppendString(b, k), ':'), m[k])
	}
	return append(b, '}')
}
