package bridge

// The turn's state, one machine: who owns its output (a prompt, the grace
// buffer, nobody), whether it was given up, the steers folded into it and
// its end. Every field is under turn.mu; each transition is one method,
// called with turn.mu held, that returns what the caller must do once the
// state changed (answer a prompt, hand over the buffer, cancel the task).
//
//	phase      output goes to   entered by
//	attached   the prompt       the start; adopt (a steer was taken)
//	detached   the buffer       cancel, with a grace window
//	adopting   the buffer       steer (a prompt arrived in the window)
//	orphaned   nobody           cancel with no grace; the window expiring;
//	                            a steer refused; giveUp (close, shutdown)
//	ended      (nothing more)   end: the stream is over, the outcome kept
//
// Transitions: attached → detached | orphaned (cancel); detached →
// adopting (steer) | orphaned (expire, giveUp); adopting → attached
// (adopt) | orphaned (refuse); any → ended (end), after which a cancel
// or a steer changes nothing and an adopting prompt is answered with the
// kept outcome. The park a turn answers or leaves (a task in
// input-required) is the session's: the turn takes it when it starts,
// gives it back when it did not send (restorePark) and sets it when it
// ends on a question.

import (
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/steer"
)

// turnPhase names a turn's state.
type turnPhase uint8

const (
	phaseAttached turnPhase = iota
	phaseDetached
	phaseAdopting
	phaseOrphaned
	phaseEnded
)

func (p turnPhase) String() string {
	return [...]string{"attached", "detached", "adopting", "orphaned", "ended"}[p]
}

// turnState is the turn's state; turn embeds it and turn.mu guards it.
type turnState struct {
	// prompt is the request that receives the turn's answer; nil once it
	// was answered (by the turn, or "cancelled" by a cancel).
	prompt *acp.Request
	// win says where updates go (it has its own lock, taken after
	// turn.mu; its grace timer may orphan the turn on its own).
	win *steer.Window[acp.Update]
	// cancelled is set once the turn was given up (its task cancelled).
	cancelled bool
	// steers are the steers folded into this turn, in order.
	steers []*pendingSteer
	// steersClosed is set once the steers were settled for good at the
	// turn's end: it takes no more.
	steersClosed bool
	// final is the outcome once the turn ended.
	final *outcome
}

// phase is the state now.
func (s *turnState) phase() turnPhase {
	if s.final != nil {
		return phaseEnded
	}
	if s.cancelled {
		return phaseOrphaned
	}
	switch s.win.State() {
	case steer.Detached:
		return phaseDetached
	case steer.Adopting:
		return phaseAdopting
	case steer.Orphaned:
		return phaseOrphaned
	}
	return phaseAttached
}

// onCancel is session/cancel: it returns the prompt to answer
// "cancelled" (nil when none waits) and whether the turn is to be given
// up at once (no grace window, or it already ended).
func (s *turnState) onCancel() (req *acp.Request, giveUp bool) {
	req, s.prompt = s.prompt, nil
	return req, s.win.Detach() == steer.Orphaned
}

// onSteer is a prompt arriving in the grace window with a steer: it
// holds the window open while the steer is posted; false when the window
// is not open.
func (s *turnState) onSteer(ps *pendingSteer) bool {
	if s.final != nil || s.steersClosed || !s.win.Reserve() {
		return false
	}
	s.steers = append(s.steers, ps)
	return true
}

// onRefused is the server refusing the last steer: the turn is to be
// given up.
func (s *turnState) onRefused() {
	if n := len(s.steers); n > 0 {
		s.steers = s.steers[:n-1]
	}
	s.win.Release()
}

// onAdopt hands the turn to the steering prompt: it returns the buffered
// output, in order, and the kept outcome when the turn ended meanwhile
// (the prompt is answered with it at once).
func (s *turnState) onAdopt(req *acp.Request) (flush []steer.Item[acp.Update], ended *outcome) {
	flush = s.win.Adopt()
	if s.final != nil {
		return flush, s.final
	}
	s.prompt = req
	return flush, nil
}

// onGiveUp drops the output for good; first reports whether the turn was
// neither given up before nor ended (its task is to be cancelled then).
func (s *turnState) onGiveUp() (first bool) {
	s.win.Orphan()
	// A turn that ended has no task left running to cancel (a parked
	// question waits for the next prompt, not for a CancelTask).
	first = !s.cancelled && s.final == nil
	s.cancelled = true
	return first
}

// onEnd records the outcome and returns the prompt to answer with it
// (nil when a cancel already answered it).
func (s *turnState) onEnd(out outcome) *acp.Request {
	s.win.End()
	s.final = &out
	req := s.prompt
	s.prompt = nil
	return req
}

// onNativeSteer is a _session/steering steer for the turn running for its
// prompt (attached); false when the turn takes none (another phase, or
// its steers were settled for good).
func (s *turnState) onNativeSteer(ps *pendingSteer) bool {
	if s.phase() != phaseAttached || s.prompt == nil || s.steersClosed {
		return false
	}
	s.steers = append(s.steers, ps)
	return true
}

// onNativeRefused takes back a native steer the server did not take; the
// turn goes on unchanged.
func (s *turnState) onNativeRefused(ps *pendingSteer) {
	for i, p := range s.steers {
		if p == ps {
			s.steers = append(s.steers[:i], s.steers[i+1:]...)
			return
		}
	}
}

// onSteersSettled closes the steers at the turn's end; false when one
// came in after they were settled (they are settled again first).
func (s *turnState) onSteersSettled() bool {
	for _, p := range s.steers {
		if !p.shown {
			return false
		}
	}
	s.steersClosed = true
	return true
}
