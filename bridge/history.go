package bridge

// Thread history: session/list, session/load, session/resume and
// session/close, backed by the operator API when the server has one and
// by the local thread index otherwise; the console hand-off claimed on
// session/new; and the wait for a chat that is busy elsewhere.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/a2a"
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

// busyPollNS is how often a busy chat is polled, in nanoseconds; 0 means
// every 2 s (the most often SPEC allows). Tests shorten it.
var busyPollNS atomic.Int64

func busyPoll() time.Duration {
	if d := time.Duration(busyPollNS.Load()); d > 0 {
		return d
	}
	return 2 * time.Second
}

func (s *Server) closeSession(p sessionParams) (any, error) {
	s.mu.Lock()
	sess := s.sessions[p.SessionID]
	delete(s.sessions, p.SessionID)
	s.mu.Unlock()
	if sess == nil {
		return nil, rpcError(codeInvalidParams, "Invalid params: unknown session "+p.SessionID, nil)
	}
	s.forgetThread(p.SessionID)
	sess.mu.Lock()
	t := sess.current
	sess.mu.Unlock()
	if t != nil {
		t.cancelByUser()
	}
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

func (s *Server) listSessions(req *jsonrpc2.Request) (any, error) {
	var p listParams
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, &p)
	}
	if err := checkCWD(mSessionList, p.CWD, false); err != nil {
		return nil, err
	}
	c, err := s.remote()
	if err != nil {
		return nil, err
	}
	indexed := map[string]threads.Item{}
	var items []threads.Item
	if s.opts.Index != nil && s.serverKey() != "" {
		items, err = s.opts.Index.List(s.serverKey())
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
			title := r.Title
			if title == "" {
				title = it.Title
			}
			rows = append(rows, &listRow{id: r.ID, cwd: it.CWD, title: title, updated: r.Updated, digits: r.UpdatedDigits, taskIDs: it.TaskIDs})
		}
	case a2a.IsUnauthorized(err):
		return nil, s.callError(err, "")
	default:
		if !errors.Is(err, a2a.ErrAbsent) {
			s.log.Warn("the server's session list failed; listing the local thread index", "err", err)
		}
		for _, it := range items {
			rows = append(rows, &listRow{id: it.ID, cwd: it.CWD, title: it.Title, updated: it.UpdatedAt, taskIDs: it.TaskIDs})
		}
	}
	prefix := s.prefixOrDefault()
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
	out := make([]sessionInfo, 0, len(kept))
	for _, r := range kept {
		info := sessionInfo{SessionID: r.id, CWD: r.cwd, Title: r.title}
		if !r.updated.IsZero() {
			info.UpdatedAt = rfc3339(r.updated, r.digits)
		}
		out = append(out, info)
	}
	return listResult{Sessions: out}, nil
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
func (s *Server) fillTitles(c *a2a.Client, rows []*listRow, operator bool) {
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
func (s *Server) fetchTitle(ctx context.Context, c *a2a.Client, r *listRow, operator bool) string {
	if operator {
		ts, err := c.Operator().Turns(ctx, r.id)
		if err == nil {
			return threadTitle(turnsFromOperator(ts))
		}
		if !errors.Is(err, a2a.ErrAbsent) {
			s.log.Debug("title not fetched", "session", r.id, "err", err)
			return ""
		}
	}
	if len(r.taskIDs) == 0 {
		return ""
	}
	task, err := c.GetTask(ctx, r.taskIDs[0], -1)
	if err != nil {
		s.log.Debug("title not fetched", "session", r.id, "err", err)
		return ""
	}
	return threadTitle([]pastTurn{turnFromTask(task)})
}

func (s *Server) prefixOrDefault() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prefix == "" {
		return "chat-acp"
	}
	return s.prefix
}

// loadSession answers session/load (replay true) and session/resume. It
// runs on the session's queue, so the prompts that follow wait for it.
func (s *Server) loadSession(req *jsonrpc2.Request, p sessionParams, replay bool) (any, error) {
	if p.SessionID == "" {
		return nil, rpcError(codeInvalidParams, "Invalid params: "+req.Method+" needs {sessionId, cwd}", nil)
	}
	if err := checkCWD(req.Method, p.CWD, false); err != nil {
		return nil, err
	}
	c, err := s.ensureAuth(s.ctx)
	if err != nil {
		return nil, err
	}
	id := p.SessionID
	if s.opts.ThreadsOnly && !strings.HasPrefix(id, s.prefixOrDefault()) {
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
		s.replayLoaded(sess, turns, cut, true, func(u any) { s.notify(id, u) })
		return struct{}{}, nil
	}
	// Resume: the editor has the history; only a pending park is news,
	// and it is announced after the response (queued behind it).
	if noReplay && s.toldNoReplay.CompareAndSwap(false, true) {
		s.queue(id).push(func() {
			s.notify(id, chunkUpdate{SessionUpdate: uAgentMessage, Content: text(s.agentName() +
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
		s.queue(id).push(func() {
			s.notify(id, chunkUpdate{SessionUpdate: uAgentMessage, Content: text(parkQuestion(last.status.Message))})
		})
	}
	return struct{}{}, nil
}

func unknownThread(id string) error {
	return rpcError(codeNotFound, "Resource not found: unknown thread "+id, map[string]any{"sessionId": id})
}

// currentTurn is the session's latest turn.
func currentTurn(sess *session) *turn {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.current
}

// register makes a loaded, resumed or claimed thread a session of this
// process (never minted: no preamble) and records it in the index. A
// thread that already has a title (named) is not renamed by its next
// prompt.
func (s *Server) register(id, cwd string, turns []pastTurn, named bool) *session {
	s.mu.Lock()
	sess := s.sessions[id]
	if sess == nil {
		sess = &session{id: id, cwd: cwd, prompted: named}
		s.sessions[id] = sess
	}
	s.mu.Unlock()
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
// says first when that cut the history. Tests lower loadBytesMax.
var loadBytesMax int64 = 64 << 20

const (
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
func (s *Server) threadTurns(ctx context.Context, c *a2a.Client, id string) (out []pastTurn, cut bool, err error) {
	budget := func() context.Context {
		return a2a.WithReadBudget(ctx, a2a.NewReadBudget(loadBytesMax, loadPagesMax))
	}
	bctx := budget()
	ts, err := c.Operator().Turns(bctx, id)
	switch {
	case err == nil:
		return turnsFromOperator(ts), false, nil
	case a2a.IsUnauthorized(err), ctx.Err() != nil:
		return nil, false, err
	case cutShort(err):
		// /turns is one answer: too big, it is read from the tasks instead.
		s.log.Warn("the server's turns are too large; reading its tasks", "session", id, "err", err)
		cut, bctx = true, budget()
	case !errors.Is(err, a2a.ErrAbsent):
		s.log.Warn("the server's turns could not be read; reading its tasks", "session", id, "err", err)
	}
	var taskIDs []string
	if s.opts.Index != nil && s.serverKey() != "" {
		e, _, ierr := s.opts.Index.Get(s.serverKey(), id)
		if ierr != nil {
			s.log.Warn("thread index unreadable", "err", ierr)
		}
		taskIDs = e.TaskIDs
	}
	// The newest recorded tasks first, so that a cut drops the oldest.
recorded:
	for i := len(taskIDs) - 1; i >= 0; i-- {
		tid := taskIDs[i]
		task, err := c.GetTask(bctx, tid, -1)
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
		return out, cut, nil
	}
	tasks, err := c.ListTasks(bctx, id, -1)
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
	return out, cut, nil
}

// replayLoaded shows loaded turns, first saying when older ones were cut.
func (s *Server) replayLoaded(sess *session, turns []pastTurn, cut, park bool, emit func(any)) {
	if cut {
		emit(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(earlierNotShown)})
	}
	s.newReplayer(sess, emit).replay(turns, park)
}

// claimHandoff asks the operator API for a console hand-off matching cwd;
// nil when there is none or the server has no such API.
func (s *Server) claimHandoff(c *a2a.Client, cwd string) *a2a.Handoff {
	ctx, cancel := context.WithTimeout(s.ctx, claimTimeout)
	defer cancel()
	h, err := c.Operator().Claim(ctx, cwd)
	if err != nil {
		if !errors.Is(err, a2a.ErrAbsent) {
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
func (s *Server) openHandoff(c *a2a.Client, cwd string, h *a2a.Handoff) (any, func()) {
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
	s.queue(id).push(func() {
		<-ready
		s.showHandoff(c, sess, h)
	})
	return newSessionResult{SessionID: id}, func() { close(ready) }
}

// showHandoff replays a claimed session and opens the console's file.
func (s *Server) showHandoff(c *a2a.Client, sess *session, h *a2a.Handoff) {
	id := sess.id
	turns, cut, err := s.threadTurns(s.ctx, c, id)
	if err != nil {
		s.log.Warn("the claimed session's turns could not be read", "session", id, "err", err)
	}
	s.replayLoaded(sess, turns, cut, true, func(u any) { s.notify(id, u) })
	if h.Title != "" {
		s.notify(id, sessionInfoUpdate{SessionUpdate: uSessionInfo, Title: h.Title})
	}
	if h.Path == "" {
		return
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	u := toolCallUpdate{SessionUpdate: uToolCall, ToolCallID: "handoff-" + hex.EncodeToString(b),
		Title: "Open " + h.Path, Kind: "read", Status: "completed"}
	_ = s.roots().Load(s.ctx) // a failure is logged; the map works with what it has
	res := rootResolver{m: s.roots(), cwd: sess.cwd, ctx: s.ctx}
	if abs, ok := res.Resolve(h.Project, h.Path); ok {
		loc := location{Path: abs}
		if h.Line > 0 {
			loc.Line = h.Line
		}
		u.Locations = []location{loc}
	}
	s.notify(id, u)
}

// waitIdle runs before a turn sends anything. On a chat the operator API
// reports active (busy in another window or the console), it says so in
// the editor, polls at most every 2 s, and gives up after --busy-timeout
// with -32603 state "busy"; a cancel while waiting sends nothing. After a
// wait, the turns that finished meanwhile are shown before the message is
// sent. A 404 or 405 on the route means: do not wait. It reports false
// with the turn's outcome when the turn must not be sent.
func (t *turn) waitIdle() (outcome, bool) {
	s := t.srv
	id := t.sess.id
	if t.givenUp() {
		t.restorePark()
		return outcome{stop: stopCancelled}, false
	}
	op := t.client.Operator()
	sum, err := op.Session(t.ctx, id)
	if err != nil || !sum.Active {
		if err != nil && !errors.Is(err, a2a.ErrAbsent) {
			s.log.Debug("busy signal unreadable; not waiting", "session", id, "err", err)
		}
		t.checkPark(sum)
		return outcome{}, true
	}
	timeout := s.opts.BusyTimeout
	if timeout <= 0 {
		timeout = defaultBusyTimeout
	}
	s.log.Info("the chat is busy elsewhere; waiting", "session", id, "timeout", timeout)
	t.thought("This chat is busy elsewhere (another window or the console is running a turn). Waiting for it to finish before sending your message…")
	poll := busyPoll()
	deadline := time.Now().Add(timeout)
	next := time.Now().Add(poll)
	tick := time.NewTicker(min(poll, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
		case <-tick.C:
		}
		if t.givenUp() {
			t.restorePark()
			return outcome{stop: stopCancelled}, false
		}
		now := time.Now()
		if now.After(deadline) {
			t.restorePark()
			s.log.Info("gave up waiting for a busy chat", "session", id)
			return outcome{err: rpcError(codeInternal,
				fmt.Sprintf("%s: this chat is still busy elsewhere after %s; your message was not sent", t.agent, timeout),
				stateData("busy", "", ""))}, false
		}
		if now.Before(next) {
			continue
		}
		next = now.Add(poll)
		sum, err = op.Session(t.ctx, id)
		if err != nil {
			if t.ctx.Err() != nil {
				continue
			}
			s.log.Debug("busy signal unreadable; not waiting longer", "session", id, "err", err)
			break
		}
		if !sum.Active {
			break
		}
	}
	// Show what finished meanwhile.
	if turns, cut, err := s.threadTurns(t.ctx, t.client, id); err == nil {
		s.replayLoaded(t.sess, turns, cut, false, t.emit)
	} else {
		s.log.Debug("turns finished meanwhile not read", "session", id, "err", err)
	}
	t.checkPark(sum)
	return outcome{}, true
}

// givenUp reports whether the turn was cancelled, or its prompt answered
// (a cancel detaches it): an unsent turn then sends nothing.
func (t *turn) givenUp() bool {
	if t.ctx.Err() != nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cancelled || t.prompt == nil
}

// answersPark reports whether the turn answers a parked task.
func (t *turn) answersPark() bool {
	return t.msg.Resume && t.msg.TaskID != ""
}

// checkPark drops the park a turn would answer when the server says the
// chat's last task is no longer waiting for input (answered elsewhere).
// Without last_state the park is trusted.
func (t *turn) checkPark(sum *a2a.SessionSummary) {
	if sum == nil || sum.LastState == "" || !t.answersPark() {
		return
	}
	if a2a.ParseState(sum.LastState) == a2a.StateInputRequired {
		return
	}
	t.srv.log.Info("the parked task was answered elsewhere; sending a new message", "task", t.msg.TaskID, "last_state", sum.LastState)
	t.msg.TaskID = ""
	t.msg.Resume = false
}

// restorePark gives a park the turn did not answer back to the session.
func (t *turn) restorePark() {
	if !t.answersPark() {
		return
	}
	t.sess.mu.Lock()
	if t.sess.parkedTask == "" {
		t.sess.parkedTask = t.msg.TaskID
	}
	t.sess.mu.Unlock()
}
