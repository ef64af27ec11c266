package acp

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Implementation names a client or an agent.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// InitializeParams is what shim reads of initialize.
type InitializeParams struct {
	ProtocolVersion    json.RawMessage    `json:"protocolVersion"`
	ClientInfo         *Implementation    `json:"clientInfo"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	RequestMeta
}

// ClientCapabilities is what shim reads of the client's capabilities.
// The optional parts are kept raw, so that a value of an unexpected shape
// reads as not advertised rather than failing initialize.
type ClientCapabilities struct {
	Auth struct {
		Terminal bool `json:"terminal"`
	} `json:"auth"`
	Elicitation json.RawMessage `json:"elicitation"`
	Session     json.RawMessage `json:"session"`
	Meta        json.RawMessage `json:"_meta"`
}

// Notices reports whether the client advertised session.notices (an
// object): it shows notice updates apart from the conversation.
func (c ClientCapabilities) Notices() bool {
	var s struct {
		Notices json.RawMessage `json:"notices"`
	}
	if json.Unmarshal(c.Session, &s) != nil {
		return false
	}
	var obj map[string]json.RawMessage
	return len(s.Notices) > 0 && s.Notices[0] == '{' && json.Unmarshal(s.Notices, &obj) == nil
}

// FormElicitation reports whether the client advertised
// elicitation.form (any value but null).
func (c ClientCapabilities) FormElicitation() bool {
	var e struct {
		Form json.RawMessage `json:"form"`
	}
	if json.Unmarshal(c.Elicitation, &e) != nil {
		return false
	}
	return len(e.Form) > 0 && string(e.Form) != "null"
}

// URLElicitation reports whether the client advertised elicitation.url
// (any value but null): it can send the person to a page.
func (c ClientCapabilities) URLElicitation() bool {
	var e struct {
		URL json.RawMessage `json:"url"`
	}
	if json.Unmarshal(c.Elicitation, &e) != nil {
		return false
	}
	return len(e.URL) > 0 && string(e.URL) != "null"
}

// TerminalOutput reports whether the client sent
// _meta.terminal_output: true (it shows a tool call's terminal block from the
// _meta of its updates, with no terminal/create).
func (c ClientCapabilities) TerminalOutput() bool {
	var m struct {
		TerminalOutput json.RawMessage `json:"terminal_output"`
	}
	if json.Unmarshal(c.Meta, &m) != nil {
		return false
	}
	return string(m.TerminalOutput) == "true"
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	AgentInfo         Implementation    `json:"agentInfo"`
	Meta              *InitializeMeta   `json:"_meta,omitempty"`
}

// InitializeMeta is initialize's _meta: the extensions shim speaks.
type InitializeMeta struct {
	Steering struct {
		Supported bool `json:"supported"`
	} `json:"steering"`
}

// Empty is a capability with no options ({}).
type Empty struct{}

// AgentCapabilities is what shim supports.
type AgentCapabilities struct {
	LoadSession        bool `json:"loadSession"`
	PromptCapabilities struct {
		Image           bool `json:"image"`
		Audio           bool `json:"audio"`
		EmbeddedContext bool `json:"embeddedContext"`
	} `json:"promptCapabilities"`
	SessionCapabilities struct {
		List                  Empty `json:"list"`
		Resume                Empty `json:"resume"`
		Close                 Empty `json:"close"`
		Delete                Empty `json:"delete"`
		AdditionalDirectories Empty `json:"additionalDirectories"`
	} `json:"sessionCapabilities"`
	Auth struct {
		Logout Empty `json:"logout"`
	} `json:"auth"`
}

// AuthMethod is one way to sign in: the agent kind (no Type), or the
// terminal kind (Type "terminal" with Args). Meta carries the legacy
// terminal-auth form older clients read.
type AuthMethod struct {
	Type        string    `json:"type,omitempty"`
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Args        []string  `json:"args,omitempty"`
	Meta        *AuthMeta `json:"_meta,omitempty"`
}

// AuthMeta is an auth method's _meta.
type AuthMeta struct {
	TerminalAuth TerminalAuth `json:"terminal-auth"`
}

// TerminalAuth is the legacy `_meta["terminal-auth"]` command.
type TerminalAuth struct {
	Label   string            `json:"label"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// AuthenticateParams is authenticate's params.
type AuthenticateParams struct {
	MethodID string `json:"methodId"`
	RequestMeta
}

// appendJSON appends r as encoding/json encodes it with SetEscapeHTML(false),
// as acp writes its lines: field order, omitempty, a nil list or map as
// null, map keys sorted. initialize is answered as shim starts, before
// anything else has had encoding/json build its codecs; writing the
// answer by hand takes ~0.1 ms off a cold start (bench/analysis.md).
// TestInitializeResultJSON and FuzzInitializeResultJSON hold it to the
// encoder; TestInitializeFieldsWritten fails when a field is added that
// it does not write.
func (r InitializeResult) appendJSON(b []byte) []byte {
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
			b = m.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = r.AgentInfo.appendJSON(append(b, `,"agentInfo":`...))
	if r.Meta != nil {
		b = strconv.AppendBool(append(b, `,"_meta":{"steering":{"supported":`...), r.Meta.Steering.Supported)
		b = append(b, "}}"...)
	}
	return append(b, '}')
}

// appendJSON appends m as encoding/json encodes it (InitializeResult's).
func (m AuthMethod) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if m.Type != "" {
		b = append(appendJSONString(append(b, `"type":`...), m.Type), ',')
	}
	b = appendJSONString(append(b, `"id":`...), m.ID)
	b = appendJSONString(append(b, `,"name":`...), m.Name)
	if m.Description != "" {
		b = appendJSONString(append(b, `,"description":`...), m.Description)
	}
	if len(m.Args) > 0 {
		b = appendJSONStrings(append(b, `,"args":`...), m.Args)
	}
	if m.Meta != nil {
		t := &m.Meta.TerminalAuth
		b = appendJSONString(append(b, `,"_meta":{"terminal-auth":{"label":`...), t.Label)
		b = appendJSONString(append(b, `,"command":`...), t.Command)
		b = appendJSONStrings(append(b, `,"args":`...), t.Args)
		b = append(appendJSONStringMap(append(b, `,"env":`...), t.Env), "}}"...)
	}
	return append(b, '}')
}

// appendJSON appends i as encoding/json encodes it (InitializeResult's).
func (i Implementation) appendJSON(b []byte) []byte {
	b = appendJSONString(append(b, `{"name":`...), i.Name)
	if i.Title != "" {
		b = appendJSONString(append(b, `,"title":`...), i.Title)
	}
	if i.Version != "" {
		b = appendJSONString(append(b, `,"version":`...), i.Version)
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
		b = appendJSONString(b, s)
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
		b = appendJSONString(append(appendJSONString(b, k), ':'), m[k])
	}
	return append(b, '}')
}
