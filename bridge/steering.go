package bridge

// Steering routed to the session's turn (SPEC §7, §11.4): Zed's Send Now
// (session/cancel, then session/prompt within the grace window) and
// _session/steering. What a steer does to the turn is package turn's.

import (
	"context"
	"log/slog"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/message"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/steer"
)

// steering routes a steer to the session's turn.
type steering struct {
	out    *out
	editor *editor.Editor
	store  *sessions.Store
	log    *slog.Logger
	// grace is the window after a cancel in which a prompt steers
	// (Options.SteerGrace; 0: none).
	grace time.Duration
}

// fold folds a prompt into the session's detached turn. It reports
// false when the prompt must run as a turn of its own: no detached turn,
// the window closed, the prompt is not plain text, or the server did not
// take the steer (then the detached turn is given up).
func (st *steering) fold(ctx context.Context, req *acp.Request, sess *turn.Session, parts []a2a.Part) bool {
	prev := sess.Current()
	if prev == nil || st.grace <= 0 {
		return false
	}
	text, ok := message.PlainText(parts)
	if !ok {
		return false
	}
	return prev.Steer(ctx, req, steer.NewID(editor.Slug(st.editor.Name())), text)
}

// native handles _session/steering (SPEC §11.4): the text rides the
// running turn exactly as a Send Now steer does; with no turn running the
// editor is told to send a prompt (shim never starts a turn outside one);
// a steer the server does not take changes nothing.
func (st *steering) native(ctx context.Context, req *acp.Request, p *acp.SteeringParams) {
	sess := st.store.Session(p.SessionID)
	if sess == nil {
		st.out.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	t := sess.Current()
	if t == nil || !t.Running() {
		st.out.reply(req, acp.SteeringResult{Outcome: acp.SteerPromptRequired}, nil)
		return
	}
	parts, _, err := message.Parts(p.Prompt)
	text, plain := message.PlainText(parts)
	if err != nil || !plain {
		st.log.Info("a steer that is not plain text is not sent", "session", sess.ID())
		st.out.reply(req, acp.SteeringResult{Outcome: acp.SteerFailed}, nil)
		return
	}
	st.out.reply(req, acp.SteeringResult{Outcome: t.NativeSteer(ctx, steer.NewID(editor.Slug(st.editor.Name())), text)}, nil)
}
