package acp

import "encoding/json"

// NewSessionParams is session/new's params.
type NewSessionParams struct {
	CWD string `json:"cwd"`
	// AdditionalDirectories are more workspace roots beside the cwd
	// (SPEC §14); each must be absolute.
	AdditionalDirectories []string          `json:"additionalDirectories"`
	MCPServers            []json.RawMessage `json:"mcpServers"`
	RequestMeta
}

// NewSessionResult answers session/new.
type NewSessionResult struct {
	SessionID     string                `json:"sessionId"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
}

// LoadSessionResult answers session/load and session/resume.
type LoadSessionResult struct {
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
}

// SessionParams is the params of the methods that name a session and
// little else: session/cancel, load, resume, close and delete.
type SessionParams struct {
	SessionID string `json:"sessionId"`
	CWD       string `json:"cwd"`
	// AdditionalDirectories (load and resume): when not empty, the
	// complete list of the session's other roots (SPEC §14).
	AdditionalDirectories []string          `json:"additionalDirectories"`
	MCPServers            []json.RawMessage `json:"mcpServers"`
	RequestMeta
}

func (p *SessionParams) session() string { return p.SessionID }

// ListParams is session/list's params.
type ListParams struct {
	CWD    string `json:"cwd"`
	Cursor string `json:"cursor"`
	RequestMeta
}

// SessionInfo is one row of session/list.
type SessionInfo struct {
	SessionID             string   `json:"sessionId"`
	CWD                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	Title                 string   `json:"title,omitempty"`
	UpdatedAt             string   `json:"updatedAt,omitempty"`
}

// ListResult answers session/list.
type ListResult struct {
	Sessions []SessionInfo `json:"sessions"`
}
