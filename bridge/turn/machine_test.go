package turn

import (
	"testing"

	"github.com/shimdev/shim/acp"
)

// TestMachine: the turn's state machine, event by event, from a fresh
// turn whose prompt waits: the phase after each event and what each
// transition asks of its caller.
func TestMachine(t *testing.T) {
	type step struct {
		event eventKind
		want  phase
		// what the transition returned
		answered bool // cancel: a prompt to answer "cancelled"; end: a prompt to answer
		giveUp   bool // the task is given up (the first time the turn leaves for orphaned)
		ok       bool // steer: taken into the window; adopt: the kept outcome answered
	}
	cases := []struct {
		name  string
		grace bool
		steps []step
	}{
		{"ends", true, []step{{event: evEnd, want: ended, answered: true}}},
		{"cancel without grace", false, []step{{event: evCancel, want: orphaned, answered: true, giveUp: true},
			{event: evGiveUp, want: orphaned}, {event: evGiveUp, want: orphaned},
			{event: evEnd, want: ended}}},
		{"steered", true, []step{{event: evCancel, want: detached, answered: true},
			{event: evSteer, want: adopting, ok: true}, {event: evAdopt, want: attached},
			{event: evEnd, want: ended, answered: true}}},
		{"steer refused", true, []step{{event: evCancel, want: detached, answered: true},
			{event: evSteer, want: adopting, ok: true}, {event: evRefuse, want: orphaned, giveUp: true},
			{event: evSteer, want: orphaned}, {event: evGiveUp, want: orphaned}}},
		{"steer while attached", true, []step{{event: evSteer, want: attached},
			{event: evCancel, want: detached, answered: true}, {event: evCancel, want: detached}}},
		{"ended while adopting", true, []step{{event: evCancel, want: detached, answered: true},
			{event: evSteer, want: adopting, ok: true}, {event: evEnd, want: ended},
			{event: evAdopt, want: ended, ok: true}}},
		{"ended, then cancelled", true, []step{{event: evEnd, want: ended, answered: true},
			{event: evCancel, want: ended}, {event: evSteer, want: ended}}},
		{"ended, then given up", true, []step{{event: evEnd, want: ended, answered: true},
			{event: evGiveUp, want: ended}}},
		{"given up in the window", true, []step{{event: evCancel, want: detached, answered: true},
			{event: evGiveUp, want: orphaned, giveUp: true}, {event: evSteer, want: orphaned}}},
		{"the window expires", true, []step{{event: evCancel, want: detached, answered: true},
			{event: evExpire, want: orphaned, giveUp: true}, {event: evExpire, want: orphaned}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMachine(&acp.Request{}, c.grace, 1<<10)
			for i, s := range c.steps {
				ev := event{kind: s.event, gen: m.gen, steer: &pendingSteer{id: "s"}, req: &acp.Request{}, out: outcome{stop: acp.StopEndTurn}}
				fx := m.apply(ev)
				answered := fx.answer != nil
				ok := fx.taken
				if s.event == evAdopt {
					answered, ok = false, fx.answer != nil
				}
				if m.phase != s.want || answered != s.answered || fx.giveUp != s.giveUp || ok != s.ok {
					t.Fatalf("step %d (%s): phase %s answered %v giveUp %v ok %v, want %s %v %v %v",
						i, s.event, m.phase, answered, fx.giveUp, ok, s.want, s.answered, s.giveUp, s.ok)
				}
			}
		})
	}
}

// TestMachineTable: each row of the transition table is the one taken
// from its phase, on its event, where its guard holds first (a grace
// window or none, steers open or closed), and leads where it says; an
// event with no row moves nothing.
func TestMachineTable(t *testing.T) {
	taken := make([]bool, len(transitions))
	for p := attached; p <= ended; p++ {
		for e := evCancel; e <= evOutput; e++ {
			for _, cfg := range []struct{ grace, closed bool }{{true, false}, {false, false}, {true, true}} {
				// The turn answers the event's request (a withdrawn
				// prompt is the one it answers).
				req := &acp.Request{}
				m := machine{phase: p, grace: cfg.grace, steersClosed: cfg.closed, prompt: req}
				ev := event{kind: e, steer: &pendingSteer{}, req: req}
				want, row := p, -1
				for i, tr := range transitions {
					if tr.from == p && tr.on == e && (tr.guard == nil || tr.guard(&m, ev)) {
						want, row = tr.to, i
						break
					}
				}
				fx := m.apply(ev)
				if m.phase != want || fx.changed != (row >= 0) {
					t.Errorf("%s on %s (grace %v, steers closed %v): %s, want %s", p, e, cfg.grace, cfg.closed, m.phase, want)
				}
				if row >= 0 {
					taken[row] = true
				}
			}
		}
	}
	for i, ok := range taken {
		if !ok {
			t.Errorf("row %d (%s on %s) is never taken", i, transitions[i].from, transitions[i].on)
		}
	}
}

// TestMachineWindow: a grace timer that fires late closes only its own
// window; output is buffered while detached and handed over in order on
// adopt; a turn given up drops its output but for a settling update of an
// open session.
func TestMachineWindow(t *testing.T) {
	m := newMachine(&acp.Request{}, true, 1<<10)
	m.apply(event{kind: evCancel})
	old := m.gen
	m.apply(event{kind: evSteer, steer: &pendingSteer{id: "a"}})
	m.apply(event{kind: evOutput, item: bufferItem(acp.AgentMessageChunk{Content: acp.Text("one")})})
	m.apply(event{kind: evOutput, item: bufferItem(acp.AgentMessageChunk{Content: acp.Text("two")})})
	fx := m.apply(event{kind: evAdopt, req: &acp.Request{}})
	if len(fx.flush) != 2 || m.phase != attached {
		t.Fatalf("adopt: %d flushed, phase %s", len(fx.flush), m.phase)
	}
	if fx := m.apply(event{kind: evOutput, item: bufferItem(acp.AgentMessageChunk{Content: acp.Text("live")})}); !fx.deliver {
		t.Error("an attached turn's output is not delivered")
	}
	m.apply(event{kind: evCancel})
	if fx := m.apply(event{kind: evExpire, gen: old}); m.phase != detached || fx.changed {
		t.Fatalf("the first window's timer closed the second: %s", m.phase)
	}
	if fx := m.apply(event{kind: evExpire, gen: m.gen}); m.phase != orphaned || !fx.giveUp || !fx.stopTimer {
		t.Fatalf("expire: %s %+v", m.phase, fx)
	}
	if fx := m.apply(event{kind: evOutput, item: bufferItem(acp.AgentMessageChunk{Content: acp.Text("x")})}); fx.deliver {
		t.Error("a given-up turn's output is delivered")
	}
	if fx := m.apply(event{kind: evOutput, settles: true, open: true}); !fx.deliver {
		t.Error("a settling update of an open session is not delivered")
	}
	if fx := m.apply(event{kind: evOutput, settles: true}); fx.deliver {
		t.Error("a settling update of a closed session is delivered")
	}
}

// TestMachineNativeSteer: a _session/steering steer is taken only while
// the turn runs for its prompt with a task, taken back when the server
// refuses it, and none once the steers were settled for good (nor a Send
// Now steer then); a steer taken after a settle keeps the steers open.
func TestMachineNativeSteer(t *testing.T) {
	m := newMachine(&acp.Request{}, true, 1<<10)
	a := &pendingSteer{id: "a"}
	if m.nativeSteer(a) {
		t.Fatal("a turn with no task yet takes a native steer")
	}
	m.task("t1")
	if !m.nativeSteer(a) || len(m.steers) != 1 {
		t.Fatal("an attached turn takes a native steer")
	}
	m.nativeRefused(a)
	if len(m.steers) != 0 {
		t.Fatal("a refused steer is taken back")
	}
	b := &pendingSteer{id: "b"}
	m.nativeSteer(b)
	if m.closeSteers() {
		t.Fatal("an unsettled steer keeps the steers open")
	}
	if read := m.steersRead([]string{"b", "b"}); len(read) != 1 {
		t.Fatalf("read %d times, want once", len(read))
	}
	if !m.closeSteers() {
		t.Fatal("settled steers close")
	}
	if m.nativeSteer(&pendingSteer{id: "c"}) {
		t.Error("closed steers take no native steer")
	}
	m.apply(event{kind: evCancel})
	if fx := m.apply(event{kind: evSteer, steer: &pendingSteer{id: "d"}}); fx.taken {
		t.Error("closed steers take no Send Now steer")
	}
	detached := newMachine(&acp.Request{}, true, 1<<10)
	detached.task("t1")
	detached.apply(event{kind: evCancel})
	if detached.nativeSteer(&pendingSteer{id: "e"}) {
		t.Error("a detached turn (its prompt cancelled) takes no native steer")
	}
}

// TestMachineWithdraw: the client's cancel of the prompt the turn answers
// answers it at once with -32800 and gives the turn up; the cancel of any
// other request, or of a prompt already answered (a cancel detached the
// turn), changes nothing.
func TestMachineWithdraw(t *testing.T) {
	prompt := &acp.Request{}
	m := newMachine(prompt, true, 1<<10)
	if fx := m.apply(event{kind: evWithdraw, req: &acp.Request{}}); fx.changed || fx.answer != nil || m.phase != attached {
		t.Fatalf("another request withdrawn: %s %+v", m.phase, fx)
	}
	fx := m.apply(event{kind: evWithdraw, req: prompt})
	if m.phase != orphaned || fx.answer != prompt || fx.with == nil || fx.with.err == nil || fx.with.err.Code != acp.CodeRequestCancelled || !fx.giveUp {
		t.Fatalf("withdrawn: %s %+v", m.phase, fx)
	}
	if fx := m.apply(event{kind: evWithdraw, req: prompt}); fx.changed || fx.answer != nil {
		t.Fatalf("withdrawn twice: %+v", fx)
	}
	d := newMachine(prompt, true, 1<<10)
	d.apply(event{kind: evCancel})
	if fx := d.apply(event{kind: evWithdraw, req: prompt}); fx.changed || fx.answer != nil || d.phase != detached {
		t.Fatalf("a cancelled prompt withdrawn: %s %+v", d.phase, fx)
	}
}
