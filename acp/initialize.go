package acp

import "encoding/json"

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
