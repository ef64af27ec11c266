package bridge

// The console hand-off (SPEC §4.2): a session the console handed over,
// claimed on session/new, its turns replayed and the console's file
// opened after the answer.

import (
	"context"
	"errors"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/session"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/threads"
)

// claimTimeout bounds the hand-off claim on session/new.
const claimTimeout = 10 * time.Second

// claimHandoff asks the operator API for a console hand-off matching cwd;
// nil when there is none or the server has no such API.
func (a *archive) claimHandoff(ctx context.Context, c *a2aclient.Client, cwd string) *a2aclient.Handoff {
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	h, err := c.Operator().Claim(ctx, cwd)
	if err != nil {
		if !errors.Is(err, a2aclient.ErrNoOperator) {
			a.log.Info("console hand-off claim failed; starting a new session", "err", err)
		}
		return nil
	}
	return h
}

// openHandoff makes the claimed session the answer of session/new. Its
// turns and the file the console pointed at are shown by a job queued on
// the session now (so it runs before any prompt for it) that starts only
// when the returned func is called, after the response was written.
func (a *archive) openHandoff(c *a2aclient.Client, cwd string, dirs []string, h *a2aclient.Handoff) (*turn.Session, func()) {
	id := h.SessionID
	a.log.Info("claimed a console hand-off", "session", id)
	sess := a.store.Register(id, cwd, nil, h.Title != "")
	a.store.SetDirs(sess, dirs)
	if h.Title != "" {
		a.store.Update(id, func(e *threads.Entry) {
			if e.Title == "" {
				e.Title = h.Title
			}
		})
	}
	ready := make(chan struct{})
	a.queues.enqueue(id, func() {
		<-ready
		a.showHandoff(c, sess, h)
	})
	return sess, func() { close(ready) }
}

// showHandoff replays a claimed session and opens the console's file.
func (a *archive) showHandoff(c *a2aclient.Client, sess *turn.Session, h *a2aclient.Handoff) {
	id := sess.ID()
	turns, cut, err := a.readTurns(a.out.ctx, c, id)
	if err != nil {
		a.log.Warn("the claimed session's turns could not be read", "session", id, "err", err)
	}
	a.replay(a.out.ctx, sess, turns, cut, true, func(u acp.Update) { a.out.notify(id, u) })
	if h.Title != "" {
		a.out.notify(id, session.Named(h.Title))
	}
	if h.Path == "" {
		return
	}
	_ = a.store.Roots().Load(a.out.ctx) // a failure is logged; the map works with what it has
	if h.Project != "" {
		a.store.Roots().ReloadFor(a.out.ctx, h.Project)
	}
	var loc *acp.Location
	if abs, ok := toolpath.RootsOf(a.store.Roots(), sess.CWD(), sess.Dirs()).Resolve(h.Project, h.Path); ok {
		loc = &acp.Location{Path: abs}
		if h.Line > 0 {
			loc.Line = h.Line
		}
	}
	a.out.notify(id, session.HandoffFile("handoff-"+randid.Hex(3), h.Path, loc))
}
