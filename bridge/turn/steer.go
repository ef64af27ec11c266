package turn

// Steers folded into a running turn (SPEC §7): Send Now (a prompt within
// the grace window after a cancel adopts the detached turn) and
// _session/steering (the text joins the turn that runs for its prompt),
// both posted to the server's steering queue; the markers placed where
// the agent read them; at the turn's end, a steer never read is taken
// back and run as the next message, or dropped.

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
)

// pendingSteer is a steer folded into a running turn.
type pendingSteer struct {
	id   string
	text string
	// shown is set once its marker was placed.
	shown bool
}

// Steer folds a prompt's text (a steer of id; ctx is its request's) into
// the turn detached by a cancel, within its grace window: the steer is
// posted to the server's steering queue and the prompt req adopts the
// turn, its buffered output first. False when the prompt must run as a turn of its own: the window
// is not open, or nothing runs on the server yet, or the server did not
// take the steer (then the turn is given up).
func (t *Turn) Steer(ctx context.Context, req *acp.Request, id, text string) bool {
	fx := t.apply(event{kind: evSteer, steer: &pendingSteer{id: id, text: text}})
	if !fx.taken {
		return false
	}
	if t.task() == "" {
		// Nothing runs on the server yet (the turn still waits for a busy
		// chat, or for its first frame): there is nothing to steer.
		t.apply(event{kind: evRefuse})
		return false
	}
	if !t.post(ctx, id, text) {
		t.apply(event{kind: evRefuse})
		return false
	}
	kept, dropped := t.Buffered()
	t.env.Log.Debug("the steer was taken; its prompt adopts the turn", "session", t.sess.id, "buffered", kept, "dropped", dropped)
	t.apply(event{kind: evAdopt, req: req})
	// The steered turn's own index write (at its end) dates the thread.
	return true
}

// NativeSteer handles a _session/steering steer of id for the turn (ctx
// is its request's): the
// text rides it exactly as a Send Now steer does. The outcome is
// promptRequired when the turn does not run for its prompt (the editor is
// to send a prompt: shim never starts a turn outside one), failed when it
// takes none now or the server did not take it (nothing changes then).
func (t *Turn) NativeSteer(ctx context.Context, id, text string) string {
	if !t.Running() {
		return acp.SteerPromptRequired
	}
	ps := &pendingSteer{id: id, text: text}
	t.mu.Lock()
	taken := t.m.nativeSteer(ps)
	t.mu.Unlock()
	switch {
	case !taken:
		t.env.Log.Info("the turn takes no steer now (no task on the server yet, or it is ending)", "session", t.sess.id)
	case t.post(ctx, id, text):
		return acp.SteerInjected
	default:
		t.mu.Lock()
		t.m.nativeRefused(ps)
		t.mu.Unlock()
	}
	return acp.SteerFailed
}

// Running reports that the turn runs for its prompt: not ended, not
// given up, not detached by a cancel (the editor thinks no turn runs
// then).
func (t *Turn) Running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.running()
}

// post posts a steer already folded into the turn to the server's
// steering queue, under the context of the request that steers; false
// when the server did not take it (no operator API, or the POST failed).
func (t *Turn) post(ctx context.Context, id, text string) bool {
	// Made for the session (a platform keeps its state).
	ctx, cancel := context.WithTimeout(a2a.WithSession(ctx, t.sess.id), 20*time.Second)
	defer cancel()
	queued, err := t.env.Client.Operator().Steer(ctx, t.sess.id, id, text)
	if err == nil && queued {
		return true
	}
	if err != nil && !errors.Is(err, a2aclient.ErrNoOperator) {
		t.env.Log.Info("the server did not take the steer", "err", err)
	}
	return false
}

// steersRead places the marker of each of this turn's steers the agent
// reports having read.
func (t *Turn) steersRead(items []a2a.SteerItem) {
	if len(items) == 0 {
		return
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	t.mu.Lock()
	read := t.m.steersRead(ids)
	t.mu.Unlock()
	for _, p := range read {
		t.show(t.r.Answer.Marker(p.id, p.text))
	}
}

// settleSteers runs at the end of a turn that completed: a steer the
// agent never read is taken back from the queue and run as the next
// message; one folded in without a boundary frame gets its marker at the
// end.
func (t *Turn) settleSteers() *a2a.OutMessage {
	var rerun []string
	for _, p := range t.openSteers() {
		ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
		removed, err := t.env.Client.Operator().Unsteer(ctx, t.sess.id, p.id)
		cancel()
		if err == nil && removed {
			rerun = append(rerun, p.text)
			continue
		}
		t.show(t.r.Answer.Marker(p.id, p.text))
	}
	if len(rerun) == 0 {
		return nil
	}
	return t.sess.Intents(&a2a.OutMessage{ContextID: t.sess.id, Parts: []a2a.Part{{Kind: a2a.PartText, Text: strings.Join(rerun, "\n\n")}}})
}

// dropSteers takes back the steers of a turn that did not complete, so
// that the server does not fold them into a later turn.
func (t *Turn) dropSteers() {
	for _, p := range t.openSteers() {
		// Not tied to the turn's context (over by then), but its values
		// (the trace context) kept.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), 5*time.Second)
		if _, err := t.env.Client.Operator().Unsteer(ctx, t.sess.id, p.id); err != nil {
			t.env.Log.Debug("steer not taken back", "id", p.id, "err", err)
		}
		cancel()
	}
}

func (t *Turn) openSteers() []*pendingSteer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.openSteers()
}

// closeSteers stops the turn taking steers, unless one came in since they
// were settled (then false: settle again).
func (t *Turn) closeSteers() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m.closeSteers()
}
