package bridge

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/shimdev/shim/acp"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/operator"
	"github.com/shimdev/shim/steer"
)

// Send Now: Zed sends session/cancel then session/prompt. The cancelled
// turn detaches into its grace window; a prompt arriving within it is
// posted to the server's steering queue and adopts the running turn.

// steerBufferMax bounds a detached turn's buffered output.
const steerBufferMax = 1 << 20

// pendingSteer is a steer folded into a running turn.
type pendingSteer struct {
	id   string
	text string
	// shown is set once its marker was placed.
	shown bool
}

// bufferItem sizes an update for the detached buffer.
func bufferItem(update acp.Update) steer.Item[acp.Update] {
	switch c := update.(type) {
	case acp.AgentMessageChunk:
		if tc, ok := c.Content.(acp.TextContent); ok {
			return steer.Item[acp.Update]{Update: update, Kind: steer.Text, Size: len(tc.Text)}
		}
	case acp.AgentThoughtChunk:
		if tc, ok := c.Content.(acp.TextContent); ok {
			return steer.Item[acp.Update]{Update: update, Kind: steer.Thought, Size: len(tc.Text)}
		}
	}
	return steer.Item[acp.Update]{Update: update, Kind: steer.Other, Size: 256}
}

// droppedNote is the answer text that says what a full buffer dropped.
func droppedNote(bytes, thoughts int) acp.Update {
	return acp.AgentMessageChunk{Content: acp.Text(steer.DroppedNote(bytes, thoughts))}
}

// trySteer folds a prompt into the session's detached turn. It reports
// false when the prompt must run as a turn of its own: no detached turn,
// the window closed, the prompt is not plain text, or the server did not
// take the steer (then the detached turn is given up).
func (s *Server) trySteer(req *acp.Request, sess *session, prev *turn, parts []a2a.Part) bool {
	if prev == nil || s.opts.SteerGrace <= 0 {
		return false
	}
	text, ok := plainText(parts)
	if !ok {
		return false
	}
	id := steer.NewID(clientSlug(s.clientNameOf()))
	ps := &pendingSteer{id: id, text: text}
	prev.mu.Lock()
	if !prev.onSteer(ps) {
		prev.mu.Unlock()
		return false
	}
	running := prev.taskID != ""
	if !running {
		// Nothing runs on the server yet (the turn still waits for a busy
		// chat, or for its first frame): there is nothing to steer.
		prev.onRefused()
	}
	prev.mu.Unlock()
	if !running {
		prev.orphan()
		return false
	}
	if !s.postSteer(prev, id, text) {
		prev.mu.Lock()
		prev.onRefused()
		prev.mu.Unlock()
		prev.orphan()
		return false
	}
	prev.adopt(req)
	// The steered turn's own index write (at its end) dates the thread.
	return true
}

// postSteer posts a steer already folded into the turn to the server's
// steering queue (SPEC §7); false when the server did not take it (no
// operator API, or the POST failed). Send Now and _session/steering both
// post through it.
func (s *Server) postSteer(t *turn, id, text string) bool {
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	queued, err := t.client.Operator().Steer(ctx, t.sess.id, id, text)
	if err == nil && queued {
		return true
	}
	if err != nil && !errors.Is(err, operator.ErrAbsent) {
		s.log.Info("the server did not take the steer", "err", err)
	}
	return false
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
	t := sess.turn()
	if t == nil || !t.running() {
		s.reply(req, acp.SteeringResult{Outcome: acp.SteerPromptRequired}, nil)
		return
	}
	parts, _, err := promptMessage(p.Prompt)
	text, plain := plainText(parts)
	if err != nil || !plain {
		s.log.Info("a steer that is not plain text is not sent", "session", sess.id)
		s.reply(req, acp.SteeringResult{Outcome: acp.SteerFailed}, nil)
		return
	}
	ps := &pendingSteer{id: steer.NewID(clientSlug(s.clientNameOf())), text: text}
	t.mu.Lock()
	taken := t.taskID != "" && t.onNativeSteer(ps)
	t.mu.Unlock()
	outcome := acp.SteerFailed
	switch {
	case !taken:
		s.log.Info("the turn takes no steer now (no task on the server yet, or it is ending)", "session", sess.id)
	case s.postSteer(t, ps.id, text):
		outcome = acp.SteerInjected
	default:
		t.mu.Lock()
		t.onNativeRefused(ps)
		t.mu.Unlock()
	}
	s.reply(req, acp.SteeringResult{Outcome: outcome}, nil)
}

// running reports that the turn runs for its prompt: not ended, not
// given up, not detached by a cancel (the editor thinks no turn runs then).
func (t *turn) running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.phase() == phaseAttached && t.prompt != nil
}

// closeSteers stops the turn taking steers, unless one came in since they
// were settled (then false: settle again).
func (t *turn) closeSteers() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.onSteersSettled()
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

// steersConsumed places the marker of each of this turn's steers the agent
// reports having read.
func (t *turn) steersConsumed(items []a2a.SteerItem) {
	for _, it := range items {
		t.mu.Lock()
		var ps *pendingSteer
		for _, p := range t.steers {
			if p.id == it.ID && !p.shown {
				ps = p
				p.shown = true
			}
		}
		t.mu.Unlock()
		if ps != nil {
			t.show(t.r.marker(ps.text))
		}
	}
}

// settleSteers runs at the end of a turn that completed: a steer the
// agent never read is taken back from the queue and run as the next turn;
// one folded in without a boundary frame gets its marker at the end.
func (t *turn) settleSteers() *a2a.OutMessage {
	open := t.takeOpenSteers()
	var rerun []string
	for _, p := range open {
		ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
		removed, err := t.client.Operator().Unsteer(ctx, t.sess.id, p.id)
		cancel()
		if err == nil && removed {
			rerun = append(rerun, p.text)
			continue
		}
		t.show(t.r.marker(p.text))
	}
	if len(rerun) == 0 {
		return nil
	}
	return t.sess.intents(&a2a.OutMessage{ContextID: t.sess.id, Parts: []a2a.Part{{Kind: a2a.PartText, Text: strings.Join(rerun, "\n\n")}}})
}

// clientNameOf is clientInfo.name from initialize.
func (s *Server) clientNameOf() string {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	return s.clientName
}

// dropSteers takes back the steers of a turn that did not complete, so
// that the server does not fold them into a later turn.
func (t *turn) dropSteers() {
	for _, p := range t.takeOpenSteers() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := t.client.Operator().Unsteer(ctx, t.sess.id, p.id); err != nil {
			t.srv.log.Debug("steer not taken back", "id", p.id, "err", err)
		}
		cancel()
	}
}

// takeOpenSteers returns the steers whose marker was not placed yet and
// marks them settled.
func (t *turn) takeOpenSteers() []*pendingSteer {
	t.mu.Lock()
	defer t.mu.Unlock()
	var open []*pendingSteer
	for _, p := range t.steers {
		if !p.shown {
			p.shown = true
			open = append(open, p)
		}
	}
	return open
}
