package bridge

// Thread history: session/list, session/load, session/resume,
// session/close and session/delete (the turns read by package history,
// shown by package render); the console hand-off claimed on session/new.

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/threads"
)

// claimTimeout bounds the hand-off claim on session/new.
const claimTimeout = 10 * time.Second

func (s *Server) closeSession(p acp.SessionParams) (any, error) {
	s.sessMu.Lock()
	sess := s.sessions[p.SessionID]
	delete(s.sessions, p.SessionID)
	s.sessMu.Unlock()
	if sess == nil {
		return nil, acp.InvalidParams("unknown session " + p.SessionID)
	}
	s.shown.Forget(p.SessionID)
	if t := sess.Current(); t != nil {
		t.Cancel()
	}
	return struct{}{}, nil
}

// deleteSession handles session/delete: the thread leaves this editor's
// history (marked deleted in the index, never listed again); the remote
// thread stays, and so does a session open in this process. An unknown id
// succeeds.
func (s *Server) deleteSession(p acp.SessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, acp.InvalidParams("session/delete needs {sessionId}")
	}
	if _, _, ok := s.threadIndex(); !ok {
		s.log.Warn("session/delete: there is no thread index to mark the thread in", "session", p.SessionID)
		return struct{}{}, nil
	}
	s.index(p.SessionID, func(e *threads.Entry) { e.Deleted = true })
	s.log.Info("thread deleted from this editor's history (the agent keeps it)", "session", p.SessionID)
	return struct{}{}, nil
}

// listSessions answers session/list; cancelled by the client
// ($/cancel_request) while it reads the threads, it answers -32800 and
// writes nothing to the index.
func (s *Server) listSessions(ctx context.Context, p *acp.ListParams) (any, error) {
	if err := checkCWD(acp.MethodSessionList, p.CWD, false); err != nil {
		return nil, err
	}
	c, err := s.remote()
	if err != nil {
		return nil, err
	}
	l := history.Listing{Client: c, CWD: p.CWD, Log: s.log}
	if index, key, ok := s.threadIndex(); ok {
		if l.Items, err = index.List(key); err != nil {
			s.log.Warn("thread index unreadable", "err", err)
		}
	}
	if s.opts.ThreadsOnly {
		l.Prefix = s.contextPrefix()
	}
	rows, err := history.List(ctx, l)
	if err != nil {
		return nil, s.callError(err, "")
	}
	if ctx.Err() != nil {
		return nil, acp.Cancelled()
	}
	out := make([]acp.SessionInfo, 0, len(rows))
	for _, r := range rows {
		if r.Fetched {
			s.index(r.ID, func(e *threads.Entry) {
				if e.Title == "" {
					e.Title = r.Title
				}
				if e.CreatedAt.IsZero() && !r.Updated.IsZero() {
					e.CreatedAt, e.UpdatedAt = r.Updated, r.Updated
				}
			})
		}
		info := acp.SessionInfo{SessionID: r.ID, CWD: r.CWD, AdditionalDirectories: r.Dirs, Title: termsafe.Line(r.Title)}
		if !r.Updated.IsZero() {
			info.UpdatedAt = rfc3339(r.Updated, r.Digits)
		}
		out = append(out, info)
	}
	return acp.ListResult{Sessions: out}, nil
}

// rfc3339 formats t in UTC with a zone and digits fractional-second
// digits (the precision the server gave; at most nanoseconds).
func rfc3339(t time.Time, digits int) string {
	layout := "2006-01-02T15:04:05"
	if digits > 0 {
		layout += "." + strings.Repeat("0", min(digits, 9))
	}
	return t.UTC().Format(layout + "Z07:00")
}

func (s *Server) contextPrefix() string {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	return s.prefix
}

// loadSession answers session/load (replay true) and session/resume. It
// runs on the session's queue, so the prompts that follow wait for it.
// Its A2A calls are made under ctx (the request's, with its trace
// context), and a renewed sign-in is told as a notice. Cancelled by the
// client ($/cancel_request) while it reads the thread, it answers -32800
// and opens no session (nor writes the index).
func (s *Server) loadSession(ctx context.Context, req *acp.Request, p acp.SessionParams, replay bool) (any, error) {
	if p.SessionID == "" {
		return nil, acp.InvalidParams(req.Method + " needs {sessionId, cwd}")
	}
	if err := checkCWD(req.Method, p.CWD, false); err != nil {
		return nil, err
	}
	dirs, err := checkDirs(req.Method, p.AdditionalDirectories)
	if err != nil {
		return nil, err
	}
	ctx = a2a.WithReporter(ctx, s.reporter(p.SessionID))
	c, err := s.probedClient(ctx)
	if err != nil {
		return nil, err
	}
	id := p.SessionID
	if s.opts.ThreadsOnly && !strings.HasPrefix(id, s.contextPrefix()) {
		return nil, unknownThread(id)
	}
	existing := s.session(id)
	noReplay := false
	if card := c.KnownCard(); replay && card != nil && card.NoReplay {
		// The agent's history cannot be read back: the thread is resumed.
		replay, noReplay = false, true
	}
	turns, cut, err := s.readTurns(ctx, c, id)
	if ctx.Err() != nil {
		return nil, acp.Cancelled()
	}
	if err != nil {
		if replay {
			return nil, s.callError(err, "")
		}
		s.log.Warn("the thread's turns could not be read; resuming without them", "session", id, "err", err)
	}
	if replay && len(turns) == 0 && !cut && existing == nil {
		return nil, unknownThread(id)
	}
	sess := s.register(id, p.CWD, turns, len(turns) > 0)
	if len(dirs) > 0 {
		// The complete list now (the schema's "complete resulting" one).
		sess.SetDirs(dirs)
		s.index(id, func(e *threads.Entry) { e.AdditionalDirectories = dirs })
	}
	if replay {
		s.replay(ctx, sess, turns, cut, true, func(u acp.Update) { s.notify(id, u) })
		return s.openResult(sess), nil
	}
	s.resume(sess, turns, noReplay)
	return s.openResult(sess), nil
}

// resume takes a thread's turns as shown (the editor has the history);
// only a pending park is news, and it is announced after the response
// (queued behind it), as is that the agent gives no history back.
func (s *Server) resume(sess *turn.Session, turns []past.Turn, noReplay bool) {
	id := sess.ID()
	if noReplay && s.firstNoReplayNote() {
		s.enqueue(id, func() { s.say(id, render.NoReplayNotice(s.agentName())) })
	}
	st := s.shown.Of(id)
	st.Expect(len(turns))
	for _, t := range turns {
		st.Claim(t.TaskID)
	}
	if last := past.Parked(turns); last != nil {
		sess.SetPark(last.TaskID)
		s.enqueue(id, func() {
			s.notify(id, render.QuestionChunk(last.TaskID, last.Status.Message))
		})
	}
}

// firstNoReplayNote reports whether the note that a thread's history
// cannot be replayed is due: once per process.
func (s *Server) firstNoReplayNote() bool {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	first := !s.noReplayTold
	s.noReplayTold = true
	return first
}

func unknownThread(id string) error {
	return acp.NotFound("Resource not found: unknown thread "+id, map[string]any{"sessionId": id})
}

// register makes a loaded, resumed or claimed thread a session of this
// process (never minted: no preamble) and records it in the index. A
// thread that already has a title (named) is not renamed by its next
// prompt.
func (s *Server) register(id, cwd string, turns []past.Turn, named bool) *turn.Session {
	s.sessMu.Lock()
	sess := s.sessions[id]
	if sess == nil {
		sess = turn.NewSession(id, cwd, false, named)
		s.sessions[id] = sess
	}
	s.sessMu.Unlock()
	var newest time.Time
	for _, t := range turns {
		if t.Updated.After(newest) {
			newest = t.Updated
		}
	}
	title := past.Title(turns)
	s.index(id, func(e *threads.Entry) {
		if e.CWD == "" {
			e.CWD = cwd
		}
		if e.Title == "" {
			e.Title = title
		}
		known := make(map[string]bool, len(e.TaskIDs))
		for _, id := range e.TaskIDs {
			known[id] = true
		}
		for _, t := range turns {
			if t.TaskID != "" && !known[t.TaskID] {
				known[t.TaskID] = true
				e.TaskIDs = append(e.TaskIDs, t.TaskID)
			}
		}
		if e.CreatedAt.IsZero() && !newest.IsZero() {
			e.CreatedAt, e.UpdatedAt = newest, newest
		}
	})
	return sess
}

// readTurns reads a thread's turns, oldest first (package history): from
// the operator API's /turns when the server has it, else GetTask of the
// task ids the index recorded, else ListTasks by contextId (1.0); cut
// reports that the load budget left older turns out.
func (s *Server) readTurns(ctx context.Context, c *a2aclient.Client, id string) ([]past.Turn, bool, error) {
	recorded := func() []string {
		index, key, ok := s.threadIndex()
		if !ok {
			return nil
		}
		e, _, err := index.Get(key, id)
		if err != nil {
			s.log.Warn("thread index unreadable", "err", err)
		}
		return e.TaskIDs
	}
	return history.Read(ctx, id, s.loadBytes,
		history.Operator{Client: c, Log: s.log},
		history.Tasks{Client: c, IDs: recorded, Log: s.log},
		history.Listed{Client: c, Log: s.log})
}

// replay shows loaded turns not shown yet, oldest first, through emit,
// first saying when older ones were cut. With park set, a parked last
// turn leaves its task for the next prompt to answer.
func (s *Server) replay(ctx context.Context, sess *turn.Session, turns []past.Turn, cut, park bool, emit func(acp.Update)) {
	if cut {
		if u := render.Said(render.EarlierNotShown(), s.clientNotices(), "shim-"+randid.Hex(6)); u != nil {
			emit(u)
		}
	}
	s.showTurns(ctx, sess, turns, emit)
	if last := past.Parked(turns); park && last != nil {
		sess.SetPark(last.TaskID)
	}
}

// showTurns shows the turns not shown yet, each through a renderer of its
// own.
func (s *Server) showTurns(ctx context.Context, sess *turn.Session, turns []past.Turn, emit func(acp.Update)) {
	_ = s.roots().Load(ctx) // a failure is logged; the map works with what it has
	rp := history.NewReplay(s.shown.Of(sess.ID()), len(turns))
	agent, draws := s.agentName(), s.clientDraws()
	snap := render.RootsOf(s.roots(), sess.CWD(), sess.Dirs())
	var r *render.Renderer
	for i := range turns {
		p := &turns[i]
		if !rp.Claim(p) {
			continue
		}
		if r == nil {
			r = render.New(agent, snap, draws)
		} else {
			r.Renew(agent, snap, draws) // what it rendered was sent
		}
		snap = s.needRoots(ctx, r, p, snap, sess)
		for _, o := range r.Past.Show(p, rp) {
			emit(o.Update())
		}
	}
}

// needRoots reloads the project roots for the projects a past turn's
// calls name that the roots the renderer has do not know, and returns the
// roots it has then.
func (s *Server) needRoots(ctx context.Context, r *render.Renderer, p *past.Turn, snap render.Roots, sess *turn.Session) render.Roots {
	check := func(calls []a2a.ToolCall) {
		for _, tc := range calls {
			if name := r.Tools.Unknown(tc); name != "" && s.roots().ReloadFor(ctx, name) {
				snap = render.RootsOf(s.roots(), sess.CWD(), sess.Dirs())
				r.Tools.SetRoots(snap)
			}
		}
	}
	for i := range p.History {
		check(p.ToolCalls(&p.History[i]))
	}
	check(p.Status.ToolCalls())
	return snap
}

// claimHandoff asks the operator API for a console hand-off matching cwd;
// nil when there is none or the server has no such API.
func (s *Server) claimHandoff(ctx context.Context, c *a2aclient.Client, cwd string) *a2aclient.Handoff {
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	h, err := c.Operator().Claim(ctx, cwd)
	if err != nil {
		if !errors.Is(err, a2aclient.ErrNoOperator) {
			s.log.Info("console hand-off claim failed; starting a new session", "err", err)
		}
		return nil
	}
	return h
}

// openHandoff makes the claimed session the answer of session/new. Its
// turns and the file the console pointed at are shown by a job queued on
// the session now (so it runs before any prompt for it) that starts only
// when the returned func is called, after the response was written.
func (s *Server) openHandoff(c *a2aclient.Client, cwd string, dirs []string, h *a2aclient.Handoff) (*turn.Session, func()) {
	id := h.SessionID
	s.log.Info("claimed a console hand-off", "session", id)
	sess := s.register(id, cwd, nil, h.Title != "")
	if len(dirs) > 0 {
		sess.SetDirs(dirs)
		s.index(id, func(e *threads.Entry) { e.AdditionalDirectories = dirs })
	}
	if h.Title != "" {
		s.index(id, func(e *threads.Entry) {
			if e.Title == "" {
				e.Title = h.Title
			}
		})
	}
	ready := make(chan struct{})
	s.enqueue(id, func() {
		<-ready
		s.showHandoff(c, sess, h)
	})
	return sess, func() { close(ready) }
}

// showHandoff replays a claimed session and opens the console's file.
func (s *Server) showHandoff(c *a2aclient.Client, sess *turn.Session, h *a2aclient.Handoff) {
	id := sess.ID()
	turns, cut, err := s.readTurns(s.ctx, c, id)
	if err != nil {
		s.log.Warn("the claimed session's turns could not be read", "session", id, "err", err)
	}
	s.replay(s.ctx, sess, turns, cut, true, func(u acp.Update) { s.notify(id, u) })
	if h.Title != "" {
		s.notify(id, render.Named(h.Title))
	}
	if h.Path == "" {
		return
	}
	_ = s.roots().Load(s.ctx) // a failure is logged; the map works with what it has
	if h.Project != "" {
		s.roots().ReloadFor(s.ctx, h.Project)
	}
	var loc *acp.Location
	if abs, ok := render.RootsOf(s.roots(), sess.CWD(), sess.Dirs()).Resolve(h.Project, h.Path); ok {
		loc = &acp.Location{Path: abs}
		if h.Line > 0 {
			loc.Line = h.Line
		}
	}
	s.notify(id, render.HandoffFile("handoff-"+randid.Hex(3), h.Path, loc))
}
