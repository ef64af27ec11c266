package ask

// The asker and what it needs of the turn it asks for, as interfaces of
// its own: where what it shows goes (Output), the prompt that owns the
// turn (Prompt), the session's permissions mode (Mode).

import (
	"log/slog"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/render"
)

// Output is where what asking shows goes: the turn's output, routed to
// whoever owns it now.
type Output interface {
	// Emit routes one update.
	Emit(u acp.Update)
	// Show routes rendered updates, in order.
	Show(outs []render.Out)
}

// Prompt is the prompt a dialog is asked of: the one that owns the turn
// now.
type Prompt interface {
	// Wait waits while no prompt owns the turn (a cancel detached it, and
	// a prompt may yet adopt it) and returns a channel closed once the
	// prompt that owns it leaves it (it was cancelled); false when none
	// will own it (the turn was given up, or is over).
	Wait() (left <-chan struct{}, ok bool)
	// GivenUp reports that the turn was given up.
	GivenUp() bool
}

// Mode is the session's permissions mode, as an approval changes it.
type Mode interface {
	// AllowCommands puts the session in allow-commands (the dialog's
	// "Allow for this session") and tells the editor when that changed
	// it.
	AllowCommands()
	// TellNoSkip reports whether the person is still to be told that the
	// server does not let approvals be skipped (once per session).
	TellNoSkip() bool
}

// An Asker asks the person at the editor what a turn's parks ask. It is
// used by the turn's goroutine alone (its renderer is that goroutine's).
type Asker struct {
	// Conn is the editor's connection: its dialogs are asked on it.
	Conn *stdio.Conn
	// Client reads the chat's summary (the operator API) while a dialog
	// is open.
	Client *a2aclient.Client
	// Session is the session id (the A2A context id).
	Session string
	// Forms is set when the editor shows forms (SPEC §11.3).
	Forms bool
	// Poll is how often the chat's summary is read while a dialog is
	// open (positive).
	Poll time.Duration
	Log  *slog.Logger
	// R is the turn's renderer.
	R      *render.Renderer
	Out    Output
	Prompt Prompt
	Mode   Mode
}

// Result is how a park asked of the person ended.
type Result struct {
	// Resume is the message that resumes the task with the answer, in
	// the same turn; the session's settings are not on it yet (the
	// turn's Session.Intents puts them on).
	Resume *a2a.OutMessage
	// Elsewhere: the park was answered elsewhere; the turn follows the
	// task from there.
	Elsewhere bool
	// GivenUp: the turn was given up while the person answered.
	GivenUp bool
	// AsText: the park was shown as text and ends the turn; the next
	// prompt answers it.
	AsText bool
}
