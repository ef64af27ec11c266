package turn

// The turn's state, one machine under Turn.mu: who owns its output (the
// prompt, the grace buffer, nobody), the prompt that waits for it, the
// steers folded into it, its task and its end. apply takes an event and
// returns what its caller does once the state changed (effects): answer a
// prompt, hand the buffer over, start or stop the grace timer, give the
// task up, deliver an update. It does no I/O; Turn.apply does the effects
// under the same lock (queueing an update or a reply never waits) and the
// rest (pacing, cancelling the task) after letting it go.

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/session"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/steer"
)

// phase names a turn's state: who owns its output.
type phase uint8

const (
	attached phase = iota // the prompt: output goes to the editor
	detached              // the grace buffer: the prompt was cancelled, a steer may adopt the turn
	adopting              // the buffer: a prompt's steer is being posted; the window cannot close
	orphaned              // nobody: output is dropped, the task was given up
	ended                 // the stream is over: the outcome is kept
)

func (p phase) String() string {
	return [...]string{"attached", "detached", "adopting", "orphaned", "ended"}[p]
}

// eventKind is what happened to a turn.
type eventKind uint8

const (
	evCancel   eventKind = iota // session/cancel (or close)
	evSteer                     // a prompt arrived in the grace window with a steer
	evAdopt                     // the server took the steer: the prompt adopts the turn
	evRefuse                    // the server did not take the steer
	evExpire                    // the grace window closed
	evGiveUp                    // the turn is given up (shutdown, a refused steer)
	evEnd                       // the stream is over
	evWithdraw                  // the client cancelled the prompt's request ($/cancel_request)
	evOutput                    // an update of the turn (rendered from an A2A event)
)

func (e eventKind) String() string {
	return [...]string{"cancel", "steer", "adopt", "refuse", "expire", "give up", "end", "withdraw", "output"}[e]
}

// transition is one row of the machine: on the event, from the phase, to
// the phase, when guard holds (nil: always).
type transition struct {
	from, to phase
	on       eventKind
	guard    func(*machine, event) bool
}

// transitions is the turn's state machine, the one place it is written
// (doc.go points here; TestMachineTable walks it): for each phase and
// event, the phase it leads to, the first row whose guard holds winning.
// An event with no row changes no phase; what else it does is apply's.
// Leaving for orphaned the first time gives the task up (effects.giveUp).
var transitions = []transition{
	{from: attached, on: evCancel, to: detached, guard: (*machine).hasGrace},
	{from: attached, on: evCancel, to: orphaned},
	{from: attached, on: evGiveUp, to: orphaned},
	{from: attached, on: evWithdraw, to: orphaned, guard: (*machine).answers},
	{from: detached, on: evSteer, to: adopting, guard: (*machine).takesSteers},
	{from: detached, on: evExpire, to: orphaned, guard: (*machine).thisWindow},
	{from: detached, on: evGiveUp, to: orphaned},
	{from: adopting, on: evAdopt, to: attached},
	{from: adopting, on: evRefuse, to: orphaned},
	{from: adopting, on: evGiveUp, to: orphaned},
	{from: attached, on: evEnd, to: ended},
	{from: detached, on: evEnd, to: ended},
	{from: adopting, on: evEnd, to: ended},
	{from: orphaned, on: evEnd, to: ended},
}

// next is the phase ev leads to from p; false when it changes none.
func (m *machine) next(ev event) (phase, bool) {
	for _, t := range transitions {
		if t.from == m.phase && t.on == ev.kind && (t.guard == nil || t.guard(m, ev)) {
			return t.to, true
		}
	}
	return m.phase, false
}

// event is what happened, with what it carries.
type event struct {
	kind  eventKind
	req   *acp.Request  // evAdopt: the prompt that adopts the turn; evWithdraw: the prompt cancelled
	steer *pendingSteer // evSteer: the steer
	out   outcome       // evEnd: how the turn ended
	gen   uint64        // evExpire: the window that closed
	// evOutput: the update, as the buffer keeps it; settles is set for
	// the update that settles an open tool call, which a turn given up
	// after its window still sends while its session is open (open).
	item    steer.Item[acp.Update]
	settles bool
	open    bool
}

// effects is what the caller of apply does.
type effects struct {
	changed bool // the phase changed (waiters wake)
	// answer is a prompt to answer now: "cancelled" when with is nil,
	// else with the outcome.
	answer *acp.Request
	with   *outcome
	// flush is the buffered output, in order, for the adopting prompt.
	flush []steer.Item[acp.Update]
	// startTimer opens the grace window (its generation is the
	// machine's); stopTimer closes it.
	startTimer, stopTimer bool
	// giveUp: the turn was given up for the first time while its task
	// may run: cancel the task and end the turn's context.
	giveUp bool
	// taken: evSteer was taken into the window. deliver: evOutput goes
	// to the editor now (else it was buffered or dropped).
	taken, deliver bool
}

// machine is the turn's state; Turn.mu guards it.
type machine struct {
	phase phase
	grace bool // a cancel opens a grace window
	// prompt is the request that receives the turn's answer; nil once it
	// was answered (by the turn, or "cancelled" by a cancel).
	prompt *acp.Request
	// buf is the detached turn's output; gen numbers the grace windows,
	// so that a late timer closes only its own.
	buf steer.Buffer[acp.Update]
	gen uint64
	// givenUp is set once the turn was given up (its task cancelled).
	givenUp bool
	// steers are the steers folded into this turn, in order;
	// steersClosed is set once they were settled for good at the turn's
	// end: it takes no more.
	steers       []*pendingSteer
	steersClosed bool
	// final is the outcome once the turn ended.
	final *outcome
	// taskID is the A2A task, once the server named it.
	taskID string
}

func newMachine(req *acp.Request, grace bool, bufferMax int) machine {
	return machine{prompt: req, grace: grace, buf: steer.Buffer[acp.Update]{Max: bufferMax, Note: droppedNote}}
}

func (m *machine) hasGrace(event) bool { return m.grace }

func (m *machine) takesSteers(event) bool { return !m.steersClosed }

func (m *machine) thisWindow(ev event) bool { return ev.gen == m.gen }

// answers reports that the event's request is the prompt the turn
// answers now.
func (m *machine) answers(ev event) bool { return m.prompt != nil && m.prompt == ev.req }

// apply takes one event and returns its effects.
func (m *machine) apply(ev event) effects {
	if ev.kind == evOutput {
		return m.output(ev)
	}
	from := m.phase
	to, moves := m.next(ev)
	var fx effects
	switch ev.kind {
	case evCancel:
		fx.answer, m.prompt = m.prompt, nil
	case evSteer:
		if moves {
			m.steers = append(m.steers, ev.steer)
			fx.taken, fx.stopTimer = true, true
		}
	case evAdopt:
		if from == adopting || from == ended {
			fx.flush = m.buf.Take()
		}
		if from == ended {
			// The turn ended while the steer was being posted.
			fx.answer, fx.with = ev.req, m.final
		} else {
			// Attached again; a turn given up meanwhile answers it as it
			// ends.
			m.prompt = ev.req
		}
	case evWithdraw:
		if moves {
			// The client gave the prompt up: it is answered at once
			// (-32800) and the turn given up, whatever it was doing.
			fx.answer, fx.with, m.prompt = m.prompt, &outcome{err: acp.Cancelled()}, nil
		}
	case evRefuse:
		if n := len(m.steers); n > 0 {
			m.steers = m.steers[:n-1]
		}
	case evEnd:
		out := ev.out
		m.final = &out
		fx.answer, fx.with, m.prompt = m.prompt, m.final, nil
		fx.stopTimer = from == detached
	}
	if !moves {
		return fx
	}
	m.phase, fx.changed = to, true
	switch to {
	case detached:
		m.gen++
		fx.startTimer = true
	case orphaned:
		m.buf.Reset()
		fx.stopTimer = from == detached
		fx.giveUp = !m.givenUp
		m.givenUp = true
	}
	return fx
}

// output routes one update: to the editor while attached, into the
// buffer while detached or adopting, else nowhere (an update that
// settles a call still goes out for an open session).
func (m *machine) output(ev event) effects {
	switch m.phase {
	case attached, ended:
		return effects{deliver: true}
	case detached, adopting:
		m.buf.Add(ev.item)
	case orphaned:
		return effects{deliver: ev.settles && ev.open}
	}
	return effects{}
}

// cancelled reports that the turn was given up.
func (m *machine) cancelled() bool { return m.givenUp }

// running reports that the turn runs for its prompt: not ended, not
// given up, not detached by a cancel (the editor thinks no turn runs
// then).
func (m *machine) running() bool { return m.phase == attached && m.prompt != nil }

// nativeSteer is a _session/steering steer for the turn running for its
// prompt; false when the turn takes none (no task yet, another phase, or
// its steers were settled for good).
func (m *machine) nativeSteer(ps *pendingSteer) bool {
	if !m.running() || m.taskID == "" || m.steersClosed {
		return false
	}
	m.steers = append(m.steers, ps)
	return true
}

// nativeRefused takes back a native steer the server did not take; the
// turn goes on unchanged.
func (m *machine) nativeRefused(ps *pendingSteer) {
	for i, p := range m.steers {
		if p == ps {
			m.steers = append(m.steers[:i], m.steers[i+1:]...)
			return
		}
	}
}

// steersRead marks the steers the agent read and returns them, for their
// markers (the text, and the id that names the marker's message).
func (m *machine) steersRead(ids []string) []*pendingSteer {
	var read []*pendingSteer
	for _, id := range ids {
		for _, p := range m.steers {
			if p.id == id && !p.shown {
				p.shown = true
				read = append(read, p)
			}
		}
	}
	return read
}

// openSteers returns the steers whose marker was not placed yet and marks
// them settled.
func (m *machine) openSteers() []*pendingSteer {
	var open []*pendingSteer
	for _, p := range m.steers {
		if !p.shown {
			p.shown = true
			open = append(open, p)
		}
	}
	return open
}

// closeSteers closes the steers at the turn's end; false when one came in
// after they were settled (they are settled again first).
func (m *machine) closeSteers() bool {
	for _, p := range m.steers {
		if !p.shown {
			return false
		}
	}
	m.steersClosed = true
	return true
}

// task records the task id the server gave the turn; first reports it
// was new, cancel that the turn was given up before (the task is to be
// cancelled now).
func (m *machine) task(id string) (first, cancel bool) {
	if m.taskID != "" || id == "" {
		return false, false
	}
	m.taskID = id
	return true, m.givenUp
}

// outcome is how a stream of the turn ended: a stop reason, an error, or
// a message that resumes the task (an answered approval) in the same turn.
type outcome struct {
	stop   acp.StopReason
	err    *acp.Error
	resume *a2a.OutMessage
	// elsewhere: the park the turn asked about was answered elsewhere;
	// the turn follows the task from there (reattaching).
	elsewhere bool
	// usage is the turn's, for the prompt's answer.
	usage *a2a.Usage
}

// pendingSteer is a steer folded into a running turn.
type pendingSteer struct {
	id   string
	text string
	// shown is set once its marker was placed.
	shown bool
}

// droppedNote is the update that says what a full buffer dropped (a
// message of shim's own).
func droppedNote(bytes, thoughts int) acp.Update {
	return session.DroppedNote("shim-"+randid.Hex(6), bytes, thoughts)
}
