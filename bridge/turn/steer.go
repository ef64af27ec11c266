package turn

// Steers folded into a running turn (SPEC §7): Send Now (a prompt within
// the grace window after a cancel adopts the detached turn) and
// _session/steering (the text joins the turn that runs for its prompt),
// both posted to the server's steering queue; the markers placed where
// the agent read them; at the turn's end, a steer never read is taken
// back and run as the next message, or dropped. Turn.Steer and
// Turn.NativeSteer fold them in (turn.go); steers does the rest.

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/bridge/render"
)

// steers posts, marks and settles the steers folded into a turn. post
// runs on the steering request's goroutine; the rest on the turn's (the
// renderer is its own).
type steers struct {
	env  *Env
	sess *Session
	ctl  *control
	r    *render.Renderer
}

// post posts a steer already folded into the turn to the server's
// steering queue, under the context of the request that steers; false
// when the server did not take it (no operator API, or the POST failed).
func (s *steers) post(ctx context.Context, id, text string) bool {
	// Made for the session (a platform keeps its state).
	ctx, cancel := context.WithTimeout(a2a.WithSession(ctx, s.sess.id), 20*time.Second)
	defer cancel()
	queued, err := s.env.Client.Operator().Steer(ctx, s.sess.id, id, text)
	if err == nil && queued {
		return true
	}
	if err != nil && !errors.Is(err, a2aclient.ErrNoOperator) {
		s.env.Log.Info("the server did not take the steer", "err", err)
	}
	return false
}

// read places the marker of each of this turn's steers the agent reports
// having read.
func (s *steers) read(items []a2a.SteerItem) {
	if len(items) == 0 {
		return
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	var read []*pendingSteer
	s.ctl.steers(func(m *machine) { read = m.steersRead(ids) })
	for _, p := range read {
		s.ctl.Show(s.r.Answer.Marker(p.id, p.text))
	}
}

// settle runs at the end of a turn that completed (ctx is the turn's): a
// steer the agent never read is taken back from the queue and run as the
// next message; one folded in without a boundary frame gets its marker at
// the end.
func (s *steers) settle(ctx context.Context) *a2a.OutMessage {
	var rerun []string
	for _, p := range s.open() {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		removed, err := s.env.Client.Operator().Unsteer(ctx, s.sess.id, p.id)
		cancel()
		if err == nil && removed {
			rerun = append(rerun, p.text)
			continue
		}
		s.ctl.Show(s.r.Answer.Marker(p.id, p.text))
	}
	if len(rerun) == 0 {
		return nil
	}
	return s.sess.Intents(&a2a.OutMessage{ContextID: s.sess.id, Parts: []a2a.Part{{Kind: a2a.PartText, Text: strings.Join(rerun, "\n\n")}}})
}

// drop takes back the steers of a turn that did not complete (ctx is the
// turn's), so that the server does not fold them into a later turn.
func (s *steers) drop(ctx context.Context) {
	for _, p := range s.open() {
		// Not tied to the turn's context (over by then), but its values
		// (the trace context) kept.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if _, err := s.env.Client.Operator().Unsteer(ctx, s.sess.id, p.id); err != nil {
			s.env.Log.Debug("steer not taken back", "id", p.id, "err", err)
		}
		cancel()
	}
}

// open returns the steers whose marker was not placed yet and marks them
// settled.
func (s *steers) open() []*pendingSteer {
	var open []*pendingSteer
	s.ctl.steers(func(m *machine) { open = m.openSteers() })
	return open
}

// close stops the turn taking steers, unless one came in since they were
// settled (then false: settle again).
func (s *steers) close() bool {
	var closed bool
	s.ctl.steers(func(m *machine) { closed = m.closeSteers() })
	return closed
}
