package bridge

// session/prompt: the prompt's content as an A2A message (package
// message), then a turn of its own (package turn), or a steer folded into
// the session's detached turn (steering.go); /status answered here;
// session/cancel.

import (
	"context"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/message"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/remote"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/bridge/slash"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/threads"
)

// prompts runs session/prompt and session/cancel: a prompt's turn (package
// turn), or its steer of the session's detached turn; /status.
type prompts struct {
	out      *out
	agent    *remote.Agent
	editor   *editor.Editor
	store    *sessions.Store
	commands *commands
	modes    *modes
	archive  *archive
	steering *steering
	log      *slog.Logger
	// opts are the server's: the steer window, the preamble, the context
	// window and the busy chat's bounds.
	opts Options
}

// prompt answers session/prompt: a turn of its own, or a steer of the
// session's detached turn. ctx is its request's: its trace context goes on
// every A2A request of the turn; cancelled by the client
// ($/cancel_request) before the turn sent its message, the prompt answers
// -32800 and nothing is sent; after, the turn is given up (turn.Withdraw).
func (s *prompts) prompt(ctx context.Context, req *acp.Request, p *acp.PromptParams) {
	if ctx.Err() != nil {
		// Cancelled while it waited behind the session's earlier calls.
		s.out.reply(req, nil, acp.Cancelled())
		return
	}
	call := callContext(ctx)
	sess := s.store.Session(p.SessionID)
	if sess == nil {
		s.out.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	if message.Empty(p.Prompt) {
		// Nothing to say: not sent, not a steer, no answer to a park.
		s.out.reply(req, nil, acp.NewError(acp.CodeInvalidParams, "the prompt is empty", nil))
		return
	}
	cmd := slash.Command(p.Prompt)
	if cmd == slash.Status {
		s.commands.status(req, sess)
		return
	}
	parts, userText, err := message.Parts(p.Prompt)
	p.Prompt = nil // a big prompt's blocks are not kept for the turn
	if err != nil {
		s.out.reply(req, nil, acp.InvalidParams(err.Error()))
		return
	}
	client, err := s.agent.Client()
	if err != nil {
		s.out.reply(req, nil, err)
		return
	}
	if s.steering.fold(call, req, sess, parts) {
		withdrawOnCancel(ctx, req, sess.Current())
		return
	}
	msg := a2a.OutMessage{ContextID: sess.ID(), Parts: parts, SkillHint: s.commands.skillHint(cmd)}
	first, parked := sess.TakePrompt()
	// No lock is held from here to the turn's start: the preamble may load
	// the project roots over the network.
	switch {
	case parked != "":
		msg.TaskID = parked
		msg.Resume = true
	case first && sess.Minted() && !s.opts.NoPreamble:
		if pre := s.preamble(sess.CWD(), sess.Dirs()); pre != "" {
			msg.Parts = message.WithPreamble(msg.Parts, pre)
		}
	}
	msg.Workspace = sess.CWD()
	sess.Intents(&msg)
	var title string
	if first {
		title = past.TitleOf(userText)
	}
	withdrawOnCancel(ctx, req, turn.Start(s.turnContext(ctx), s.turnEnv(client, sess), sess, req, msg, title))
}

// turnContext is the context of the turn a prompt starts: the
// connection's (a turn outlives its prompt), with the prompt's trace
// context.
func (s *prompts) turnContext(req context.Context) context.Context {
	tr := acp.TraceOf(req)
	return a2a.WithTrace(s.out.ctx, tr.Parent, tr.State)
}

// withdrawOnCancel gives the prompt req of t up when the client cancels
// its request (ctx, the request's, also ends once it is answered: that
// changes nothing).
func withdrawOnCancel(ctx context.Context, req *acp.Request, t *turn.Turn) {
	if t == nil {
		return
	}
	context.AfterFunc(ctx, func() {
		if stdio.RequestCancelled(ctx) {
			t.Withdraw(req)
		}
	})
}

// turnEnv is what a turn of sess needs of the server.
func (s *prompts) turnEnv(c *a2aclient.Client, sess *turn.Session) turn.Env {
	return turn.Env{Conn: s.out.conn, Client: c, Agent: s.agent.Name(), Roots: s.store.Roots(), Shown: s.store.Shown().Of(sess.ID()), Log: s.log,
		Grace: s.opts.SteerGrace, ContextWindow: s.opts.ContextWindow, BusyTimeout: s.opts.BusyTimeout, BusyPoll: s.opts.busyPoll,
		Draws: s.editor.Draws(), Replies: turnHost{s}, Thread: turnHost{s}, Modes: turnHost{s}}
}

// turnHost is the prompts as their turns see them: what answers their
// prompts (turn.Replies), the session's thread (turn.Thread), the modes
// (turn.Modes).
type turnHost struct{ *prompts }

func (h turnHost) Reply(req *acp.Request, result any, err error) { h.out.reply(req, result, err) }

func (h turnHost) CallError(err error, taskID string) *acp.Error {
	return h.agent.CallError(err, taskID)
}

func (h turnHost) Open(sess *turn.Session) bool { return h.store.Session(sess.ID()) == sess }

// Meanwhile shows the turns that finished while a turn waited for a busy
// chat.
func (h turnHost) Meanwhile(ctx context.Context, sess *turn.Session, emit func(acp.Update)) {
	h.archive.meanwhile(ctx, sess, emit)
}

// Record writes what a turn taught the thread index (title, cwd and
// additional directories, task id, how it failed, time) in one write, once the turn's
// stream is over (a minted session enters the index here, with its first
// prompt: SPEC §18): never between
// the prompt and its first chunk (SPEC §8).
func (h turnHost) Record(sess *turn.Session, title, taskID, failed string) {
	if _, _, ok := h.store.ThreadIndex(); !ok {
		return
	}
	h.store.Update(sess.ID(), func(e *threads.Entry) {
		if title != "" && e.Title == "" {
			e.Title = title
		}
		if e.CWD == "" {
			e.CWD = sess.CWD()
		}
		if len(e.AdditionalDirectories) == 0 {
			e.AdditionalDirectories = sess.Dirs()
		}
		e.AddTask(taskID)
		e.SetFailure(taskID, failed)
		e.UpdatedAt = time.Now()
	})
}

func (h turnHost) ModeChanged(sess *turn.Session, emit func(acp.Update)) { h.modes.changed(sess, emit) }

// preamble is the editor-context line for a cwd inside a known root; it
// names the session's additional directories too (SPEC §14).
func (s *prompts) preamble(cwd string, dirs []string) string {
	if cwd == "" {
		return ""
	}
	// Read while session/new ran; when they are not known by now, the
	// message goes without the preamble and the roots are asked beside it
	// (they are needed only to show locations; SPEC §19).
	go func() {
		if err := s.store.Roots().Load(s.out.ctx); err != nil {
			s.log.Debug("project roots not loaded", "err", err)
		}
	}()
	r, ok := s.store.Roots().Containing(cwd)
	if !ok {
		return ""
	}
	client := s.editor.Called()
	return past.PreambleStart + client + " opened on your project `" + r.Name + "` (" + r.Path + ")" + s.moreFolders(dirs) +
		". Paths you read or search there are shown to them in the editor.]"
}

// moreFolders names the additional directories in the preamble: a known
// project by its name, any other by its path (one with a control
// character, which would break the one-line preamble, is left out).
func (s *prompts) moreFolders(dirs []string) string {
	var named []string
	for _, d := range dirs {
		if strings.ContainsFunc(d, unicode.IsControl) {
			continue
		}
		if r, ok := s.store.Roots().Containing(d); ok && r.Path == d {
			named = append(named, "`"+r.Name+"` ("+d+")")
		} else {
			named = append(named, d)
		}
	}
	switch len(named) {
	case 0:
		return ""
	case 1:
		return " and the folder " + named[0]
	}
	return " and the folders " + strings.Join(named[:len(named)-1], ", ") + " and " + named[len(named)-1]
}

// cancel handles session/cancel: the running prompt answers cancelled at
// once and the task is cancelled.
func (s *prompts) cancel(sessionID string) {
	sess := s.store.Session(sessionID)
	if sess == nil {
		return
	}
	if t := sess.Current(); t != nil {
		t.Cancel()
	}
}
