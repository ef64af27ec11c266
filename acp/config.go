package acp

import "encoding/json"

// Session config options, modes and commands: what the editor shows as
// pickers and as the "/" menu.

// SessionConfigOption is one select option (the only kind shim offers).
type SessionConfigOption struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Category     string         `json:"category,omitempty"`
	Type         tagSelect      `json:"type"`
	CurrentValue string         `json:"currentValue"`
	Options      []SelectOption `json:"options"`
}

// SelectOption is one value of a select option.
type SelectOption struct {
	Value string `json:"value"`
	Name  string `json:"name"`
}

// SessionModeState is the session's modes and the one in use.
type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

// SessionMode is one mode.
type SessionMode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SetModelParams is session/set_model's params (older clients).
type SetModelParams struct {
	SessionID string `json:"sessionId"`
	ModelID   string `json:"modelId"`
	RequestMeta
}

func (p *SetModelParams) session() string { return p.SessionID }

// SetConfigOptionParams is session/set_config_option's params. Value is
// kept raw: shim's options take a string value id only.
type SetConfigOptionParams struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Value     json.RawMessage `json:"value"`
	RequestMeta
}

func (p *SetConfigOptionParams) session() string { return p.SessionID }

// SetConfigOptionResult answers session/set_config_option.
type SetConfigOptionResult struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
}

// SetModeParams is session/set_mode's params.
type SetModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
	RequestMeta
}

func (p *SetModeParams) session() string { return p.SessionID }

// AvailableCommand is one command of the editor's "/" menu.
type AvailableCommand struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Input       *CommandInput `json:"input,omitempty"`
}

// CommandInput is a command's unstructured input: the hint shown until
// the person types it.
type CommandInput struct {
	Hint string `json:"hint"`
}

// AvailableCommandsUpdate is the session's commands.
type AvailableCommandsUpdate struct {
	SessionUpdate     tagAvailableCommands `json:"sessionUpdate"`
	AvailableCommands []AvailableCommand   `json:"availableCommands"`
}

// CurrentModeUpdate says the session's mode changed.
type CurrentModeUpdate struct {
	SessionUpdate tagCurrentMode `json:"sessionUpdate"`
	CurrentModeID string         `json:"currentModeId"`
}

// ConfigOptionUpdate is the complete list of the session's options.
type ConfigOptionUpdate struct {
	SessionUpdate tagConfigOption       `json:"sessionUpdate"`
	ConfigOptions []SessionConfigOption `json:"configOptions"`
}

func (AvailableCommandsUpdate) isUpdate() {}
func (CurrentModeUpdate) isUpdate()       {}
func (ConfigOptionUpdate) isUpdate()      {}

// SteeringParams is _session/steering's params.
type SteeringParams struct {
	SessionID string        `json:"sessionId"`
	Prompt    []PromptBlock `json:"prompt"`
	RequestMeta
}

func (p *SteeringParams) session() string { return p.SessionID }

// Steering outcomes.
const (
	SteerInjected       = "injected"
	SteerPromptRequired = "promptRequired"
	SteerFailed         = "failed"
)

// SteeringResult answers _session/steering.
type SteeringResult struct {
	Outcome string `json:"outcome"`
}
