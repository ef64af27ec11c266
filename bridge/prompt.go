package bridge

// session/prompt: the prompt's content as an A2A message, then a turn of
// its own (package turn), or a steer folded into the session's detached
// turn (steering.go); /status answered here; session/cancel.

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/shimdev/shim/a2a/a2aclient"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/threads"
)

// prompt answers session/prompt: a turn of its own, or a steer of the
// session's detached turn. ctx is its request's: its trace context goes on
// every A2A request of the turn; cancelled by the client
// ($/cancel_request) before the turn sent its message, the prompt answers
// -32800 and nothing is sent; after, the turn is given up (turn.Withdraw).
func (s *Server) prompt(ctx context.Context, req *acp.Request, p *acp.PromptParams) {
	if ctx.Err() != nil {
		// Cancelled while it waited behind the session's earlier calls.
		s.reply(req, nil, acp.Cancelled())
		return
	}
	call := callContext(ctx)
	sess := s.session(p.SessionID)
	if sess == nil {
		s.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	cmd := slashCommand(p.Prompt)
	if cmd == statusCommand {
		s.showStatus(req, sess)
		return
	}
	parts, userText, err := promptMessage(p.Prompt)
	p.Prompt = nil // a big prompt's blocks are not kept for the turn
	if err != nil {
		s.reply(req, nil, acp.InvalidParams(err.Error()))
		return
	}
	client, err := s.remote()
	if err != nil {
		s.reply(req, nil, err)
		return
	}
	if s.trySteer(call, req, sess, parts) {
		withdrawOnCancel(ctx, req, sess.Current())
		return
	}
	msg := a2a.OutMessage{ContextID: sess.ID(), Parts: parts, SkillHint: s.skillHint(cmd)}
	first, parked := sess.TakePrompt()
	// No lock is held from here to the turn's start: the preamble may load
	// the project roots over the network.
	switch {
	case parked != "":
		msg.TaskID = parked
		msg.Resume = true
	case first && sess.Minted() && !s.opts.NoPreamble:
		if pre := s.preamble(call, sess.CWD(), sess.Dirs()); pre != "" {
			msg.Parts = addPreamble(msg.Parts, pre)
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
func (s *Server) turnEnv(c *a2aclient.Client, sess *turn.Session) turn.Env {
	return turn.Env{Conn: s.conn, Client: c, Agent: s.agentName(), Roots: s.roots(), Shown: s.shown.Of(sess.ID()), Log: s.log,
		Grace: s.opts.SteerGrace, ContextWindow: s.opts.ContextWindow, BusyTimeout: s.opts.BusyTimeout, BusyPoll: s.opts.BusyPoll,
		Draws: s.clientDraws(), Host: turnHost{s}}
}

// turnHost is the server as its turns see it (turn.Host).
type turnHost struct{ *Server }

func (h turnHost) Reply(req *acp.Request, result any, err error) { h.reply(req, result, err) }

func (h turnHost) CallError(err error, taskID string) *acp.Error { return h.callError(err, taskID) }

func (h turnHost) Open(sess *turn.Session) bool { return h.session(sess.ID()) == sess }

// Meanwhile shows the turns that finished while a turn waited for a busy
// chat.
func (h turnHost) Meanwhile(ctx context.Context, sess *turn.Session, emit func(acp.Update)) {
	c, err := h.remote()
	if err != nil {
		return
	}
	turns, cut, err := h.readTurns(ctx, c, sess.ID())
	if err != nil {
		h.log.Debug("turns finished meanwhile not read", "session", sess.ID(), "err", err)
		return
	}
	h.replay(ctx, sess, turns, cut, false, emit)
}

// Record writes what a turn taught the thread index (title, cwd, task
// id, time) in one write, once the turn's stream is over: never between
// the prompt and its first chunk (SPEC §8).
func (h turnHost) Record(sess *turn.Session, title, taskID string) {
	if _, _, ok := h.threadIndex(); !ok {
		return
	}
	h.index(sess.ID(), func(e *threads.Entry) {
		if title != "" && e.Title == "" {
			e.Title = title
		}
		if e.CWD == "" {
			e.CWD = sess.CWD()
		}
		e.AddTask(taskID)
		e.UpdatedAt = time.Now()
	})
}

func (h turnHost) ModeChanged(sess *turn.Session, emit func(acp.Update)) { h.modeChanged(sess, emit) }

// preamble is the editor-context line for a cwd inside a known root; it
// names the session's additional directories too (SPEC §14).
func (s *Server) preamble(ctx context.Context, cwd string, dirs []string) string {
	if cwd == "" {
		return ""
	}
	if err := s.roots().Load(ctx); err != nil {
		s.log.Debug("project roots not loaded", "err", err)
	}
	r, ok := s.roots().Containing(cwd)
	if !ok {
		return ""
	}
	s.infoMu.Lock()
	client := s.clientTitle
	if client == "" {
		client = s.clientName
	}
	s.infoMu.Unlock()
	if client == "" {
		client = "an ACP editor"
	}
	return past.PreambleStart + client + " opened on your project `" + r.Name + "` (" + r.Path + ")" + s.moreFolders(dirs) +
		". Paths you read or search there are shown to them in the editor.]"
}

// moreFolders names the additional directories in the preamble: a known
// project by its name, any other by its path (one with a control
// character, which would break the one-line preamble, is left out).
func (s *Server) moreFolders(dirs []string) string {
	var named []string
	for _, d := range dirs {
		if strings.ContainsFunc(d, unicode.IsControl) {
			continue
		}
		if r, ok := s.roots().Containing(d); ok && r.Path == d {
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
func (s *Server) cancel(sessionID string) {
	sess := s.session(sessionID)
	if sess == nil {
		return
	}
	if t := sess.Current(); t != nil {
		t.Cancel()
	}
}

// clientSlug is clientInfo.name lowercased with every character outside
// [a-z0-9] dropped, cut to 16, else "acp".
func clientSlug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > 16 {
		s = s[:16]
	}
	if s == "" {
		return "acp"
	}
	return s
}

// mintContextID returns <prefix>-<epoch ms>-<6 hex>.
func mintContextID(prefix string, now time.Time) string {
	return prefix + "-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + randid.Hex(3)
}

// userTextMax bounds the user's text kept for the title.
const userTextMax = 4 << 10

// promptMessage turns ACP prompt content into the parts of one A2A user
// message, and returns the start of the user's own text (for the title).
// A lone text block becomes its part without a copy: a prompt of S bytes
// is not held twice here.
func promptMessage(blocks []acp.PromptBlock) (parts []a2a.Part, userText string, err error) {
	var pending []string // text for the next text part, joined once
	var user strings.Builder
	flush := func() {
		if len(pending) > 0 {
			parts = append(parts, a2a.Part{Kind: a2a.PartText, Text: strings.Join(pending, "")})
			pending = nil
		}
	}
	addUser := func(s string) {
		if n := userTextMax - user.Len(); n > 0 {
			user.WriteString(s[:min(len(s), n)])
		}
	}
	endsInNewline := func() bool {
		for i := len(pending) - 1; i >= 0; i-- {
			if p := pending[i]; p != "" {
				return strings.HasSuffix(p, "\n")
			}
		}
		return true
	}
	for i := range blocks {
		if blocks[i].Err != nil {
			return nil, "", fmt.Errorf("prompt content: %v", blocks[i].Err)
		}
		c := &blocks[i].C
		switch c.Type {
		case "text":
			pending = append(pending, c.Text)
			addUser(c.Text)
		case "resource_link":
			name := c.Name
			if name == "" {
				name = c.URI
			}
			pending = append(pending, "[@"+name+"]("+c.URI+")")
			addUser("@" + name)
		case "resource":
			if c.Resource == nil {
				continue
			}
			if c.Resource.Text != nil {
				if !endsInNewline() {
					pending = append(pending, "\n")
				}
				pending = append(pending, fmt.Sprintf("<file uri=%q>\n", c.Resource.URI), *c.Resource.Text, "\n</file>\n")
			} else {
				pending = append(pending, fmt.Sprintf("\n[attached binary resource %s (%s) not forwarded]\n", c.Resource.URI, orUnknown(c.Resource.MimeType)))
			}
		case "image":
			data, derr := base64.StdEncoding.DecodeString(c.Data)
			if derr != nil {
				return nil, "", fmt.Errorf("image content: invalid base64 data")
			}
			flush()
			parts = append(parts, a2a.Part{Kind: a2a.PartFile, Raw: data, MediaType: c.MimeType})
		default:
			pending = append(pending, fmt.Sprintf("\n[%s content not forwarded: the remote agent does not accept it]\n", orUnknown(c.Type)))
		}
	}
	flush()
	if len(parts) == 0 {
		parts = []a2a.Part{{Kind: a2a.PartText, Text: ""}}
	}
	return parts, user.String(), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// addPreamble puts the editor-context line before the first text part.
func addPreamble(parts []a2a.Part, preamble string) []a2a.Part {
	for i := range parts {
		if parts[i].Kind == a2a.PartText {
			parts[i].Text = preamble + "\n\n" + parts[i].Text
			return parts
		}
	}
	return append([]a2a.Part{{Kind: a2a.PartText, Text: preamble}}, parts...)
}
