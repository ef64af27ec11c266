package bridge

// Thread history: session/list, session/load and session/resume (the
// turns read by package history, shown by package render), the turns a
// busy chat finished meanwhile; the console hand-off is handoff.go's.

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/remote"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/threads"
)

// archive is the threads the agent keeps, as the editor sees them: listed,
// loaded (replayed), resumed, and handed over from the console.
type archive struct {
	out     *out
	agent   *remote.Agent
	editor  *editor.Editor
	store   *sessions.Store
	queues  *queues
	notices *notices
	log     *slog.Logger
	// loadBytes bounds the bytes one session/load reads; threadsOnly
	// lists and loads only this shim's threads (Options.ThreadsOnly).
	loadBytes   int64
	threadsOnly bool
}

// list answers session/list; cancelled by the client ($/cancel_request)
// while it reads the threads, it answers -32800 and writes nothing to the
// index.
func (a *archive) list(ctx context.Context, p *acp.ListParams) (any, error) {
	if err := sessions.CheckCWD(acp.MethodSessionList, p.CWD, false); err != nil {
		return nil, err
	}
	c, err := a.agent.Client()
	if err != nil {
		return nil, err
	}
	l := history.Listing{Client: c, CWD: p.CWD, Log: a.log}
	if index, key, ok := a.store.ThreadIndex(); ok {
		if l.Items, err = index.List(key); err != nil {
			a.log.Warn("thread index unreadable", "err", err)
		}
	}
	if a.threadsOnly {
		l.Prefix = a.editor.ContextPrefix()
	}
	rows, err := history.List(ctx, l)
	if err != nil {
		return nil, a.agent.CallError(err, "")
	}
	if ctx.Err() != nil {
		return nil, acp.Cancelled()
	}
	out := make([]acp.SessionInfo, 0, len(rows))
	for _, r := range rows {
		if r.Fetched {
			a.store.Update(r.ID, func(e *threads.Entry) {
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

// load opens the session of session/load (replay true) and
// session/resume. It runs on the session's queue, so the prompts that
// follow wait for it. Its A2A calls are made under ctx (the request's,
// with its trace context), and a renewed sign-in is told as a notice.
// Cancelled by the client ($/cancel_request) while it reads the thread,
// it answers -32800 and opens no session (nor writes the index).
func (a *archive) load(ctx context.Context, req *acp.Request, p acp.SessionParams, replay bool) (*turn.Session, error) {
	if p.SessionID == "" {
		return nil, acp.InvalidParams(req.Method + " needs {sessionId, cwd}")
	}
	if err := sessions.CheckCWD(req.Method, p.CWD, false); err != nil {
		return nil, err
	}
	dirs, err := sessions.CheckDirs(req.Method, p.AdditionalDirectories)
	if err != nil {
		return nil, err
	}
	ctx = a2a.WithReporter(ctx, a.notices.reporter(p.SessionID))
	c, err := a.agent.Probed(ctx)
	if err != nil {
		return nil, err
	}
	id := p.SessionID
	if a.threadsOnly && !strings.HasPrefix(id, a.editor.ContextPrefix()) {
		return nil, unknownThread(id)
	}
	existing := a.store.Session(id)
	noReplay := false
	if card := c.KnownCard(); replay && card != nil && card.NoReplay {
		// The agent's history cannot be read back: the thread is resumed.
		replay, noReplay = false, true
	}
	turns, cut, err := a.readTurns(ctx, c, id)
	if ctx.Err() != nil {
		return nil, acp.Cancelled()
	}
	if err != nil {
		if replay {
			return nil, a.agent.CallError(err, "")
		}
		a.log.Warn("the thread's turns could not be read; resuming without them", "session", id, "err", err)
	}
	if replay && len(turns) == 0 && !cut && existing == nil {
		return nil, unknownThread(id)
	}
	sess := a.store.Register(id, p.CWD, turns, len(turns) > 0)
	// The complete list now (the schema's "complete resulting" one).
	a.store.SetDirs(sess, dirs)
	if replay {
		a.replay(ctx, sess, turns, cut, true, func(u acp.Update) { a.out.notify(id, u) })
		return sess, nil
	}
	a.resume(sess, turns, noReplay)
	return sess, nil
}

// resume takes a thread's turns as shown (the editor has the history);
// only a pending park is news, and it is announced after the response
// (queued behind it), as is that the agent gives no history back.
func (a *archive) resume(sess *turn.Session, turns []past.Turn, noReplay bool) {
	id := sess.ID()
	if noReplay {
		a.notices.noReplay(id)
	}
	st := a.store.Shown().Of(id)
	st.Expect(len(turns))
	for _, t := range turns {
		st.Claim(t.TaskID)
	}
	if last := past.Parked(turns); last != nil {
		sess.SetPark(last.TaskID)
		a.queues.enqueue(id, func() {
			a.out.notify(id, render.QuestionChunk(last.TaskID, last.Status.Message))
		})
	}
}

func unknownThread(id string) error {
	return acp.NotFound("Resource not found: unknown thread "+id, map[string]any{"sessionId": id})
}

// readTurns reads a thread's turns, oldest first (package history): from
// the operator API's /turns when the server has it, else GetTask of the
// task ids the index recorded, else ListTasks by contextId (1.0); cut
// reports that the load budget left older turns out. A turn the index
// says failed live is a failed turn while the server keeps it running
// (SPEC §16).
func (a *archive) readTurns(ctx context.Context, c *a2aclient.Client, id string) ([]past.Turn, bool, error) {
	recorded := func() []string { return a.store.Recorded(id) }
	turns, cut, err := history.Read(ctx, id, a.loadBytes,
		history.Operator{Client: c, Log: a.log},
		history.Tasks{Client: c, IDs: recorded, Log: a.log},
		history.Listed{Client: c, Log: a.log})
	if err == nil {
		history.Settle(turns, a.store.Failures(id))
	}
	return turns, cut, err
}

// meanwhile shows the turns that finished while a turn of sess waited for
// a busy chat.
func (a *archive) meanwhile(ctx context.Context, sess *turn.Session, emit func(acp.Update)) {
	c, err := a.agent.Client()
	if err != nil {
		return
	}
	turns, cut, err := a.readTurns(ctx, c, sess.ID())
	if err != nil {
		a.log.Debug("turns finished meanwhile not read", "session", sess.ID(), "err", err)
		return
	}
	a.replay(ctx, sess, turns, cut, false, emit)
}

// replay shows loaded turns not shown yet, oldest first, through emit,
// first saying when older ones were cut. With park set, a parked last
// turn leaves its task for the next prompt to answer.
func (a *archive) replay(ctx context.Context, sess *turn.Session, turns []past.Turn, cut, park bool, emit func(acp.Update)) {
	if cut {
		if u := notice.Said(notice.EarlierNotShown(), a.editor.Notices(), "shim-"+randid.Hex(6)); u != nil {
			emit(u)
		}
	}
	a.showTurns(ctx, sess, turns, emit)
	if last := past.Parked(turns); park && last != nil {
		sess.SetPark(last.TaskID)
	}
}

// showTurns shows the turns not shown yet, each through a renderer of its
// own.
func (a *archive) showTurns(ctx context.Context, sess *turn.Session, turns []past.Turn, emit func(acp.Update)) {
	_ = a.store.Roots().Load(ctx) // a failure is logged; the map works with what it has
	rp := history.NewReplay(a.store.Shown().Of(sess.ID()), len(turns))
	agent, draws := a.agent.Name(), a.editor.Draws()
	snap := toolpath.RootsOf(a.store.Roots(), sess.CWD(), sess.Dirs())
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
		snap = a.needRoots(ctx, r, p, snap, sess)
		for _, o := range r.Past.Show(p, rp) {
			emit(o.Update())
		}
	}
}

// needRoots reloads the project roots for the projects a past turn's
// calls name that the roots the renderer has do not know, and returns the
// roots it has then.
func (a *archive) needRoots(ctx context.Context, r *render.Renderer, p *past.Turn, snap toolpath.Roots, sess *turn.Session) toolpath.Roots {
	check := func(calls []a2a.ToolCall) {
		for _, tc := range calls {
			if name := r.Tools.Unknown(tc); name != "" && a.store.Roots().ReloadFor(ctx, name) {
				snap = toolpath.RootsOf(a.store.Roots(), sess.CWD(), sess.Dirs())
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
