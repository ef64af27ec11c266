package bridge

// Thread history: session/list, session/load, session/resume and
// session/close, backed by the operator API when the server has one and
// by the local thread index otherwise; the console hand-off claimed on
// session/new; and the wait for a chat that is busy elsewhere.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/randid"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	opapi "github.com/shimdev/shim/a2a/operator"
	"github.com/shimdev/shim/threads"
)

const (
	// titleFetchers bounds the concurrent fetches of missing titles.
	titleFetchers = 4
	// titleBudget bounds the time session/list spends fetching titles.
	titleBudget = 10 * time.Second
	// defaultBusyTimeout is --busy-timeout's default.
	defaultBusyTimeout = 120 * time.Second
	// claimTimeout bounds the hand-off claim on session/new.
	claimTimeout = 10 * time.Second
)

func (s *Server) closeSession(p acp.SessionParams) (any, error) {
	s.sessMu.Lock()
	sess := s.sessions[p.SessionID]
	delete(s.sessions, p.SessionID)
	s.sessMu.Unlock()
	if sess == nil {
		return nil, acp.InvalidParams("unknown session " + p.SessionID)
	}
	s.forgetThread(p.SessionID)
	if t := sess.turn(); t != nil {
		t.cancelByUser()
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

// listRow is one thread of a listing before it is filtered and titled.
type listRow struct {
	id      string
	cwd     string
	title   string
	updated time.Time
	digits  int // fractional-second digits of updated to show
	taskIDs []string
	fetched bool // the title was fetched and must be written back
}

func (s *Server) listSessions(p *acp.ListParams) (any, error) {
	if err := checkCWD(acp.MethodSessionList, p.CWD, false); err != nil {
		return nil, err
	}
	c, err := s.remote()
	if err != nil {
		return nil, err
	}
	indexed := map[string]threads.Item{}
	var items []threads.Item
	if index, key, ok := s.threadIndex(); ok {
		items, err = index.List(key)
		if err != nil {
			s.log.Warn("thread index unreadable", "err", err)
		}
		for _, it := range items {
			indexed[it.ID] = it
		}
	}
	var rows []*listRow
	serverRows, err := c.Operator().Sessions(s.ctx)
	operator := err == nil
	switch {
	case err == nil:
		for _, r := range serverRows {
			it := indexed[r.ID]
			if it.Deleted {
				continue
			}
			title := r.Title
			if title == "" {
				title = it.Title
			}
			rows = append(rows, &listRow{id: r.ID, cwd: it.CWD, title: title, updated: r.Updated, digits: r.UpdatedDigits, taskIDs: it.TaskIDs})
		}
	case a2a.IsUnauthorized(err):
		return nil, s.callError(err, "")
	default:
		if !errors.Is(err, opapi.ErrAbsent) {
			s.log.Warn("the server's session list failed; listing the local thread index", "err", err)
		}
		for _, it := range items {
			if it.Deleted {
				continue
			}
			rows = append(rows, &listRow{id: it.ID, cwd: it.CWD, title: it.Title, updated: it.UpdatedAt, taskIDs: it.TaskIDs})
		}
	}
	prefix := s.contextPrefix()
	kept := rows[:0]
	for _, r := range rows {
		if s.opts.ThreadsOnly && !strings.HasPrefix(r.id, prefix) {
			continue
		}
		if p.CWD != "" && r.cwd != "" && r.cwd != p.CWD {
			continue
		}
		if r.cwd == "" {
			r.cwd = p.CWD
		}
		kept = append(kept, r)
	}
	s.fillTitles(c, kept, operator)
	out := make([]acp.SessionInfo, 0, len(kept))
	for _, r := range kept {
		info := acp.SessionInfo{SessionID: r.id, CWD: r.cwd, Title: r.title}
		if !r.updated.IsZero() {
			info.UpdatedAt = rfc3339(r.updated, r.digits)
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

// fillTitles fetches the first user message of the rows with no title, a
// few at a time within a time budget, and writes the titles back to the
// index.
func (s *Server) fillTitles(c *a2aclient.Client, rows []*listRow, operator bool) {
	ctx, cancel := context.WithTimeout(s.ctx, titleBudget)
	defer cancel()
	sem := make(chan struct{}, titleFetchers)
	var wg sync.WaitGroup
	for _, r := range rows {
		if r.title != "" || (!operator && len(r.taskIDs) == 0) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if title := s.fetchTitle(ctx, c, r, operator); title != "" {
				r.title, r.fetched = title, true
			}
		}()
	}
	wg.Wait()
	for _, r := range rows {
		if !r.fetched {
			continue
		}
		s.index(r.id, func(e *threads.Entry) {
			if e.Title == "" {
				e.Title = r.title
			}
			if e.CreatedAt.IsZero() && !r.updated.IsZero() {
				e.CreatedAt, e.UpdatedAt = r.updated, r.updated
			}
		})
	}
}

// fetchTitle reads a thread's first user message: from /turns when the
// server has the operator API, else from the first recorded task.
func (s *Server) fetchTitle(ctx context.Context, c *a2aclient.Client, r *listRow, operator bool) string {
	if operator {
		ts, err := c.Operator().Turns(ctx, r.id)
		if err == nil {
			return threadTitle(turnsFromOperator(ts))
		}
		if !errors.Is(err, opapi.ErrAbsent) {
			s.log.Debug("title not fetched", "session", r.id, "err", err)
			return ""
		}
	}
	if len(r.taskIDs) == 0 {
		return ""
	}
	task, err := c.GetTask(a2a.WithSession(ctx, r.id), r.taskIDs[0], a2a.HistoryAll)
	if err != nil {
		s.log.Debug("title not fetched", "session", r.id, "err", err)
		return ""
	}
	return threadTitle([]pastTurn{turnFromTask(task)})
}

func (s *Server) contextPrefix() string {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	return s.prefix
}

// loadSession answers session/load (replay true) and session/resume. It
// runs on the session's queue, so the prompts that follow wait for it.
func (s *Server) loadSession(req *acp.Request, p acp.SessionParams, replay bool) (any, error) {
	if p.SessionID == "" {
		return nil, acp.InvalidParams(req.Method + " needs {sessionId, cwd}")
	}
	if err := checkCWD(req.Method, p.CWD, false); err != nil {
		return nil, err
	}
	c, err := s.ensureAuth(s.ctx)
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
	turns, cut, err := s.threadTurns(s.ctx, c, id)
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
	if replay {
		s.replayLoaded(sess, turns, cut, true, func(u acp.Update) { s.notify(id, u) })
		return s.openResult(sess), nil
	}
	// Resume: the editor has the history; only a pending park is news,
	// and it is announced after the response (queued behind it).
	if noReplay && s.firstNoReplayNote() {
		s.enqueue(id, func() {
			s.notify(id, acp.AgentMessageChunk{Content: acp.Text(s.agentName() +
				" does not give a thread's history back, so shim cannot show it here; new prompts go on in this thread.\n\n")})
		})
	}
	st := s.thread(id)
	st.expect(len(turns))
	for _, t := range turns {
		st.claim(t.taskID)
	}
	if n := len(turns); n > 0 && turns[n-1].state == a2a.StateInputRequired && turns[n-1].taskID != "" {
		last := turns[n-1]
		sess.mu.Lock()
		sess.parkedTask = last.taskID
		sess.mu.Unlock()
		s.enqueue(id, func() {
			s.notify(id, acp.AgentMessageChunk{Content: acp.Text(parkQuestion(last.status.Message))})
		})
	}
	return s.openResult(sess), nil
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
func (s *Server) register(id, cwd string, turns []pastTurn, named bool) *session {
	s.sessMu.Lock()
	sess := s.sessions[id]
	if sess == nil {
		sess = &session{id: id, cwd: cwd, prompted: named}
		s.sessions[id] = sess
	}
	s.sessMu.Unlock()
	var newest time.Time
	for _, t := range turns {
		if t.updated.After(newest) {
			newest = t.updated
		}
	}
	title := threadTitle(turns)
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
			if t.taskID != "" && !known[t.taskID] {
				known[t.taskID] = true
				e.TaskIDs = append(e.TaskIDs, t.taskID)
			}
		}
		if e.CreatedAt.IsZero() && !newest.IsZero() {
			e.CreatedAt, e.UpdatedAt = newest, newest
		}
	})
	return sess
}

// What one session/load reads at most (SPEC §13), and what the replay
// says first when that cut the history. Options.loadBytes, when set,
// stands for loadBytesMax.
const (
	loadBytesMax    = 64 << 20
	loadPagesMax    = 100
	earlierNotShown = "(earlier turns not shown)"
)

// cutShort reports an error that means the load budget or a size limit
// cut the history.
func cutShort(err error) bool {
	return errors.Is(err, a2a.ErrBudget) || errors.Is(err, a2a.ErrTooLarge)
}

// threadTurns reads a thread's turns, oldest first: from the operator API's
// /turns when the server has it, else from A2A: GetTask with history of
// the task ids the index recorded, else ListTasks by contextId (1.0). It
// reads at most loadBytesMax and loadPagesMax requests, newest turns first;
// cut reports that older turns were left out.
func (s *Server) threadTurns(ctx context.Context, c *a2aclient.Client, id string) (out []pastTurn, cut bool, err error) {
	ctx = a2a.WithSession(ctx, id) // its calls are made for the session
	loadBytes := s.opts.loadBytes
	if loadBytes == 0 {
		loadBytes = loadBytesMax
	}
	budget := func() context.Context {
		return a2a.WithReadBudget(ctx, a2a.NewReadBudget(loadBytes, loadPagesMax))
	}
	ts, err := c.Operator().Turns(budget(), id)
	switch {
	case err == nil:
		out = turnsFromOperator(ts)
		oldestFirst(out)
		return out, false, nil
	case a2a.IsUnauthorized(err), ctx.Err() != nil:
		return nil, false, err
	case cutShort(err):
		// /turns is one answer: too big, it is read from the tasks instead.
		s.log.Warn("the server's turns are too large; reading its tasks", "session", id, "err", err)
		cut = true
	case !errors.Is(err, opapi.ErrAbsent):
		s.log.Warn("the server's turns could not be read; reading its tasks", "session", id, "err", err)
	}
	// The pages of the budget are GetTask's and ListTasks' (SPEC §4.5
	// amended): the operator API's probe or answer drew on its own.
	bctx := budget()
	var taskIDs []string
	if index, key, ok := s.threadIndex(); ok {
		e, _, ierr := index.Get(key, id)
		if ierr != nil {
			s.log.Warn("thread index unreadable", "err", ierr)
		}
		taskIDs = e.TaskIDs
	}
	// The newest recorded tasks first, so that a cut drops the oldest.
recorded:
	for i := len(taskIDs) - 1; i >= 0; i-- {
		tid := taskIDs[i]
		task, err := c.GetTask(bctx, tid, a2a.HistoryAll)
		if err != nil {
			var rpc *a2a.RPCError
			switch {
			case cutShort(err):
				cut = true
				break recorded
			case errors.As(err, &rpc):
				s.log.Debug("a recorded task is gone", "task", tid, "err", err)
				continue
			}
			return nil, false, err
		}
		if task.ContextID != "" && task.ContextID != id {
			continue
		}
		out = append(out, turnFromTask(task))
	}
	if len(out) > 0 {
		slices.Reverse(out)
		oldestFirst(out)
		return out, cut, nil
	}
	tasks, err := c.ListTasks(bctx, id, a2a.HistoryAll)
	if cutShort(err) {
		cut, err = true, nil
	}
	switch {
	case err == nil:
		for _, t := range reverseTasks(tasks) {
			if t.ContextID == "" || t.ContextID == id {
				out = append(out, turnFromTask(&t))
			}
		}
	case errors.Is(err, a2a.ErrUnsupported):
	case a2a.IsUnauthorized(err), ctx.Err() != nil:
		return nil, false, err
	default:
		s.log.Debug("ListTasks failed", "context", id, "err", err)
	}
	oldestFirst(out)
	return out, cut, nil
}

// replayLoaded shows loaded turns, first saying when older ones were cut.
func (s *Server) replayLoaded(sess *session, turns []pastTurn, cut, park bool, emit func(acp.Update)) {
	if cut {
		emit(acp.AgentMessageChunk{Content: acp.Text(earlierNotShown)})
	}
	s.newReplayer(sess, emit).replay(turns, park)
}

// claimHandoff asks the operator API for a console hand-off matching cwd;
// nil when there is none or the server has no such API.
func (s *Server) claimHandoff(c *a2aclient.Client, cwd string) *opapi.Handoff {
	ctx, cancel := context.WithTimeout(s.ctx, claimTimeout)
	defer cancel()
	h, err := c.Operator().Claim(ctx, cwd)
	if err != nil {
		if !errors.Is(err, opapi.ErrAbsent) {
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
func (s *Server) openHandoff(c *a2aclient.Client, cwd string, h *opapi.Handoff) (*session, func()) {
	id := h.SessionID
	s.log.Info("claimed a console hand-off", "session", id)
	sess := s.register(id, cwd, nil, h.Title != "")
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
func (s *Server) showHandoff(c *a2aclient.Client, sess *session, h *opapi.Handoff) {
	id := sess.id
	turns, cut, err := s.threadTurns(s.ctx, c, id)
	if err != nil {
		s.log.Warn("the claimed session's turns could not be read", "session", id, "err", err)
	}
	s.replayLoaded(sess, turns, cut, true, func(u acp.Update) { s.notify(id, u) })
	if h.Title != "" {
		s.notify(id, acp.SessionInfoUpdate{Title: h.Title})
	}
	if h.Path == "" {
		return
	}
	u := acp.ToolCall{ToolCallID: "handoff-" + randid.Hex(3),
		Title: "Open " + h.Path, Kind: acp.ToolKindRead, Status: "completed"}
	_ = s.roots().Load(s.ctx) // a failure is logged; the map works with what it has
	res := rootResolver{m: s.roots(), cwd: sess.cwd, ctx: s.ctx}
	if abs, ok := res.Resolve(h.Project, h.Path); ok {
		loc := acp.Location{Path: abs}
		if h.Line > 0 {
			loc.Line = h.Line
		}
		u.Locations = []acp.Location{loc}
	}
	s.notify(id, u)
}
