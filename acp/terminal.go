package acp

// A command's output shown as a terminal the client draws from the tool
// call's updates (the terminal_output _meta extension Zed reads): the
// call embeds a terminal block named by an id shim picks, and its _meta
// says that the terminal exists, what it printed and how it exited. No
// terminal/create is sent: nothing runs on the editor's machine.

// Terminal embeds a terminal in a tool call's content.
type Terminal struct {
	Type       tagTerminal `json:"type"`
	TerminalID string      `json:"terminalId"`
}

func (Terminal) isToolCallContent() {}

type tagTerminal struct{}

func (tagTerminal) MarshalJSON() ([]byte, error) { return []byte(`"terminal"`), nil }

// ToolMeta is a tool call's _meta: the terminal extension's parts, each
// only when set.
type ToolMeta struct {
	TerminalInfo   *TerminalInfo   `json:"terminal_info,omitempty"`
	TerminalOutput *TerminalOutput `json:"terminal_output,omitempty"`
	TerminalExit   *TerminalExit   `json:"terminal_exit,omitempty"`
}

// TerminalInfo announces the terminal of a tool call.
type TerminalInfo struct {
	TerminalID string `json:"terminal_id"`
}

// TerminalOutput is what the terminal printed.
type TerminalOutput struct {
	TerminalID string `json:"terminal_id"`
	Data       string `json:"data"`
}

// TerminalExit is how the terminal's command ended; Signal is always
// null (a remote command's signal is not known).
type TerminalExit struct {
	TerminalID string  `json:"terminal_id"`
	ExitCode   int     `json:"exit_code"`
	Signal     *string `json:"signal"`
}
