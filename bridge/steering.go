package bridge

// Steering routed to the session's turn (SPEC §7, §11.4): Zed's Send Now
// (session/cancel, then session/prompt within the grace window) and
// _session/steering. What a steer does to the turn is package turn's.

import (
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/steer"
)

// trySteer folds a prompt into the session's detached turn. It reports
// false when the prompt must run as a turn of its own: no detached turn,
// the window closed, the prompt is not plain text, or the server did not
// take the steer (then the detached turn is given up).
func (s *Server) trySteer(req *acp.Request, sess *turn.Session, parts []a2a.Part) bool {
	prev := sess.Current()
	if prev == nil || s.opts.SteerGrace <= 0 {
		return false
	}
	text, ok := plainText(parts)
	if !ok {
		return false
	}
	return prev.Steer(req, steer.NewID(clientSlug(s.clientNameOf())), text)
}

// nativeSteer handles _session/steering (SPEC §11.4): the text rides the
// running turn exactly as a Send Now steer does; with no turn running the
// editor is told to send a prompt (shim never starts a turn outside one);
// a steer the server does not take changes nothing.
func (s *Server) nativeSteer(req *acp.Request, p *acp.SteeringParams) {
	sess := s.session(p.SessionID)
	if sess == nil {
		s.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	t := sess.Current()
	if t == nil || !t.Running() {
		s.reply(req, acp.SteeringResult{Outcome: acp.SteerPromptRequired}, nil)
		return
	}
	parts, _, err := promptMessage(p.Prompt)
	text, plain := plainText(parts)
	if err != nil || !plain {
		s.log.Info("a steer that is not plain text is not sent", "session", sess.ID())
		s.reply(req, acp.SteeringResult{Outcome: acp.SteerFailed}, nil)
		return
	}
	s.reply(req, acp.SteeringResult{Outcome: t.NativeSteer(steer.NewID(clientSlug(s.clientNameOf())), text)}, nil)
}

// plainText joins the text parts; false when the prompt has other parts.
func plainText(parts []a2a.Part) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		if p.Kind != a2a.PartText {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), strings.TrimSpace(b.String()) != ""
}

// clientNameOf is clientInfo.name from initialize.
func (s *Server) clientNameOf() string {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	return s.clientName
}
