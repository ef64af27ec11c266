package turn

// What a turn needs of the server it runs in: the values it is started
// with (Env), and the server's parts it calls as a prompt runs, each a
// small interface named for its role.

import (
	"context"
	"log/slog"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/roots"
)

// Env is what a turn needs of the server it runs in.
type Env struct {
	Conn   *stdio.Conn
	Client *a2aclient.Client
	// Agent is the agent's name, as the editor is shown it.
	Agent string
	// Roots are the project roots; Shown what this process showed of the
	// session's thread (a turn's task is never replayed).
	Roots *roots.Map
	Shown *history.Shown
	Log   *slog.Logger
	// Grace is the window after a cancel in which a prompt steers the
	// turn (0: none).
	Grace time.Duration
	// ContextWindow is the remote model's context window, 0 when unknown.
	ContextWindow int64
	// BusyTimeout bounds the wait for a chat busy elsewhere (0: 120 s);
	// BusyPoll is how often it is polled (0: every 2 s).
	BusyTimeout, BusyPoll time.Duration
	// Draws is what the client draws: elicitation forms, command calls
	// as terminals, notices (SPEC §11.3, §11.6, §14).
	Draws render.Draws

	// Replies answers the turn's prompt; Thread is the session's thread
	// as the server keeps it; Modes tells the editor of a mode change.
	Replies Replies
	Thread  Thread
	Modes   Modes
}

// Replies answers the prompt a turn runs for.
type Replies interface {
	// Reply answers a request (never waiting on the editor).
	Reply(req *acp.Request, result any, err error)
	// CallError maps an A2A client error to the ACP error a request
	// fails with.
	CallError(err error, taskID string) *acp.Error
}

// Thread is the session's thread as the server keeps it.
type Thread interface {
	// Open reports whether the session is still open (not closed).
	Open(s *Session) bool
	// Meanwhile shows the turns of the session's thread that finished
	// while the turn waited for a busy chat.
	Meanwhile(ctx context.Context, s *Session, emit func(acp.Update))
	// Record writes what the turn taught the thread index (its title,
	// its task, and the friendly text of its failure when it failed:
	// failed), once its stream is over (SPEC §8, §16).
	Record(s *Session, title, taskID, failed string)
}

// Modes tells the editor of a mode change a turn made (the permission
// dialog's "Allow for this session").
type Modes interface {
	ModeChanged(s *Session, emit func(acp.Update))
}

// defaultBusyPoll is how often a busy chat is polled: every 2 s, the most
// often SPEC allows.
const defaultBusyPoll = 2 * time.Second

// busyPoll is how often env's busy chat is polled.
func (env *Env) busyPoll() time.Duration {
	if env.BusyPoll <= 0 {
		return defaultBusyPoll
	}
	return env.BusyPoll
}

// cancelTask asks the server to cancel the task. It is not tied to the
// turn's cancellation (cancelled by then), only to ctx's values (the
// trace context); the client bounds each attempt.
func (env *Env) cancelTask(ctx context.Context, taskID string) {
	if err := env.Client.CancelTask(context.WithoutCancel(ctx), taskID); err != nil {
		env.Log.Debug("CancelTask", "task", taskID, "err", err)
	}
}
