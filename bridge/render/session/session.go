package session

// Updates about the session rather than a turn's answer: its title, the
// context used, its commands and modes, an approval's own view, the file
// a console hand-off points at, what a detached turn's buffer dropped.

import (
	"time"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/steer"
)

// A session's title and a view's are one line without control characters
// or bidirectional overrides, whoever wrote them (SPEC §15).

// Title names the thread (a first prompt's title, updated at now).
func Title(title string, now time.Time) acp.Update {
	return acp.SessionInfoUpdate{Title: termsafe.Line(title), UpdatedAt: now.UTC().Format(time.RFC3339)}
}

// Named names the thread as it was named elsewhere (a console hand-off).
func Named(title string) acp.Update { return acp.SessionInfoUpdate{Title: termsafe.Line(title)} }

// Usage is the context used of size tokens, and the session's cost so far
// (none when 0).
func Usage(used, size int64, costUSD float64) acp.Update {
	u := acp.UsageUpdate{Used: used, Size: size}
	if costUSD > 0 {
		u.Cost = &acp.Cost{Amount: costUSD, Currency: "USD"}
	}
	return u
}

// Commands is the session's command list.
func Commands(list []acp.AvailableCommand) acp.Update {
	return acp.AvailableCommandsUpdate{AvailableCommands: list}
}

// CurrentMode says the session's mode changed to mode.
func CurrentMode(mode string) acp.Update { return acp.CurrentModeUpdate{CurrentModeID: mode} }

// ConfigOptions is the complete list of the session's options.
func ConfigOptions(opts []acp.SessionConfigOption) acp.Update {
	return acp.ConfigOptionUpdate{ConfigOptions: opts}
}

// DroppedNote is the answer text (of the message id) that says what a
// detached turn's full buffer dropped.
func DroppedNote(id string, bytes, thoughts int) acp.Update {
	return acp.AgentMessageChunk{MessageID: id, Content: acp.Text(steer.DroppedNote(bytes, thoughts))}
}

// HandoffFile is the completed read the console pointed at (a location
// when its path resolved).
func HandoffFile(id, path string, loc *acp.Location) acp.Update {
	u := acp.ToolCall{ToolCallID: id, Title: termsafe.Line("Open " + path), Kind: acp.ToolKindRead, Status: acp.ToolCompleted}
	if loc != nil {
		u.Locations = []acp.Location{*loc}
	}
	return u
}
