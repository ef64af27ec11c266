package bridge

import "encoding/json"

// ACP wire types: only what shim reads and writes. Field names follow the
// official ACP v1 schema; every value shim writes is validated against it
// in the tests.

// ACP method names.
const (
	mInitialize        = "initialize"
	mAuthenticate      = "authenticate"
	mLogout            = "logout"
	mSessionNew        = "session/new"
	mSessionLoad       = "session/load"
	mSessionResume     = "session/resume"
	mSessionClose      = "session/close"
	mSessionList       = "session/list"
	mSessionPrompt     = "session/prompt"
	mSessionCancel     = "session/cancel"
	mSessionUpdate     = "session/update"
	mRequestPermission = "session/request_permission"
)

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

type initializeParams struct {
	ProtocolVersion    json.RawMessage `json:"protocolVersion"`
	ClientInfo         *implementation `json:"clientInfo"`
	ClientCapabilities struct {
		Auth struct {
			Terminal bool `json:"terminal"`
		} `json:"auth"`
	} `json:"clientCapabilities"`
}

type initializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AuthMethods       []any             `json:"authMethods"`
	AgentInfo         implementation    `json:"agentInfo"`
}

type empty struct{}

type agentCapabilities struct {
	LoadSession        bool `json:"loadSession"`
	PromptCapabilities struct {
		Image           bool `json:"image"`
		Audio           bool `json:"audio"`
		EmbeddedContext bool `json:"embeddedContext"`
	} `json:"promptCapabilities"`
	SessionCapabilities struct {
		List   empty `json:"list"`
		Resume empty `json:"resume"`
		Close  empty `json:"close"`
	} `json:"sessionCapabilities"`
	Auth struct {
		Logout empty `json:"logout"`
	} `json:"auth"`
}

type authMethodAgent struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type authMethodTerminal struct {
	Type        string   `json:"type"`
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Args        []string `json:"args"`
}

type authenticateParams struct {
	MethodID string `json:"methodId"`
}

type newSessionParams struct {
	CWD        string            `json:"cwd"`
	MCPServers []json.RawMessage `json:"mcpServers"`
}

type newSessionResult struct {
	SessionID string `json:"sessionId"`
}

type sessionParams struct {
	SessionID string `json:"sessionId"`
	CWD       string `json:"cwd"`
}

type listParams struct {
	CWD    string `json:"cwd"`
	Cursor string `json:"cursor"`
}

type sessionInfo struct {
	SessionID string `json:"sessionId"`
	CWD       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

type listResult struct {
	Sessions []sessionInfo `json:"sessions"`
}

type promptParams struct {
	SessionID string        `json:"sessionId"`
	Prompt    []promptBlock `json:"prompt"`
}

// contentIn is a prompt content block as the client sends it.
type contentIn struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Resource *struct {
		URI      string  `json:"uri"`
		Text     *string `json:"text"`
		Blob     string  `json:"blob"`
		MimeType string  `json:"mimeType"`
	} `json:"resource"`
}

type promptResult struct {
	StopReason string      `json:"stopReason"`
	Usage      *usageTotal `json:"usage,omitempty"`
}

// usageTotal is the (unstable) PromptResponse.usage.
type usageTotal struct {
	TotalTokens      int64 `json:"totalTokens"`
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CachedReadTokens int64 `json:"cachedReadTokens,omitempty"`
}

// Stop reasons.
const (
	stopEndTurn   = "end_turn"
	stopCancelled = "cancelled"
	stopRefusal   = "refusal"
)

type notification struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

// Content blocks shim writes.
type textContent struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imageContent struct {
	Type     string `json:"type"` // "image"
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

type resourceLink struct {
	Type     string `json:"type"` // "resource_link"
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"`
}

func text(s string) textContent { return textContent{Type: "text", Text: s} }

// Session updates.
const (
	uAgentMessage = "agent_message_chunk"
	uAgentThought = "agent_thought_chunk"
	uUserMessage  = "user_message_chunk"
	uToolCall     = "tool_call"
	uToolUpdate   = "tool_call_update"
	uUsage        = "usage_update"
	uSessionInfo  = "session_info_update"
)

type chunkUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Content       any    `json:"content"`
}

// toolCallUpdate serves both tool_call (Title required) and
// tool_call_update.
type toolCallUpdate struct {
	SessionUpdate string     `json:"sessionUpdate"`
	ToolCallID    string     `json:"toolCallId"`
	Title         string     `json:"title,omitempty"`
	Kind          string     `json:"kind,omitempty"`
	Status        string     `json:"status,omitempty"`
	Content       []any      `json:"content,omitempty"`
	Locations     []location `json:"locations,omitempty"`
	RawInput      any        `json:"rawInput,omitempty"`
	RawOutput     any        `json:"rawOutput,omitempty"`
}

type location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// toolContent wraps a content block in a tool call's content list.
type toolContent struct {
	Type    string `json:"type"` // "content"
	Content any    `json:"content"`
}

type diffContent struct {
	Type    string  `json:"type"` // "diff"
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

type usageUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Used          int64  `json:"used"`
	Size          int64  `json:"size"`
	Cost          *cost  `json:"cost,omitempty"`
}

type cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type sessionInfoUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Title         string `json:"title,omitempty"`
	UpdatedAt     string `json:"updatedAt,omitempty"`
}

// Permission requests.
type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type permissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  permissionToolCall `json:"toolCall"`
	Options   []permissionOption `json:"options"`
}

// permissionToolCall is the ToolCallUpdate a permission request names.
type permissionToolCall struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title,omitempty"`
	RawInput   any    `json:"rawInput,omitempty"`
}

type permissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}
