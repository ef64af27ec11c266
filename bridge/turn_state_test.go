package bridge

import (
	"testing"
	"time"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/steer"
)

// TestTurnStateTransitions: the turn's state machine, event by event,
// from a fresh turn whose prompt waits: the phase after each event and
// what each transition asks of its caller.
func TestTurnStateTransitions(t *testing.T) {
	type step struct {
		event string // cancel, steer, refuse, adopt, giveUp, end
		want  turnPhase
		// what the transition returned
		answered bool // cancel: a prompt to answer "cancelled"; end: a prompt to answer
		giveUp   bool // cancel: give the turn up now; giveUp: the first time
		ok       bool // steer: taken into the window; adopt: the kept outcome
	}
	cases := []struct {
		name  string
		grace time.Duration
		steps []step
	}{
		{"ends", time.Hour, []step{{event: "end", want: phaseEnded, answered: true}}},
		{"cancel without grace", 0, []step{{event: "cancel", want: phaseOrphaned, answered: true, giveUp: true},
			{event: "giveUp", want: phaseOrphaned, giveUp: true}, {event: "giveUp", want: phaseOrphaned},
			{event: "end", want: phaseEnded}}},
		{"steered", time.Hour, []step{{event: "cancel", want: phaseDetached, answered: true},
			{event: "steer", want: phaseAdopting, ok: true}, {event: "adopt", want: phaseAttached},
			{event: "end", want: phaseEnded, answered: true}}},
		{"steer refused", time.Hour, []step{{event: "cancel", want: phaseDetached, answered: true},
			{event: "steer", want: phaseAdopting, ok: true}, {event: "refuse", want: phaseOrphaned},
			{event: "steer", want: phaseOrphaned}, {event: "giveUp", want: phaseOrphaned, giveUp: true}}},
		{"steer while attached", time.Hour, []step{{event: "steer", want: phaseAttached},
			{event: "cancel", want: phaseDetached, answered: true}, {event: "cancel", want: phaseDetached}}},
		{"ended while adopting", time.Hour, []step{{event: "cancel", want: phaseDetached, answered: true},
			{event: "steer", want: phaseAdopting, ok: true}, {event: "end", want: phaseEnded},
			{event: "adopt", want: phaseEnded, ok: true}}},
		{"ended, then cancelled", time.Hour, []step{{event: "end", want: phaseEnded, answered: true},
			{event: "cancel", want: phaseEnded, giveUp: true}, {event: "steer", want: phaseEnded}}},
		{"given up in the window", time.Hour, []step{{event: "cancel", want: phaseDetached, answered: true},
			{event: "giveUp", want: phaseOrphaned, giveUp: true}, {event: "steer", want: phaseOrphaned}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &turnState{prompt: &acp.Request{}, win: steer.NewWindow(c.grace, 1<<10, droppedNote, nil)}
			defer st.win.Orphan() // stops a grace timer
			for i, s := range c.steps {
				var answered, giveUp, ok bool
				switch s.event {
				case "cancel":
					var req *acp.Request
					req, giveUp = st.onCancel()
					answered = req != nil
				case "steer":
					ok = st.onSteer(&pendingSteer{id: "s"})
				case "refuse":
					st.onRefused()
				case "adopt":
					_, ended := st.onAdopt(&acp.Request{})
					ok = ended != nil
				case "giveUp":
					giveUp = st.onGiveUp()
				case "end":
					answered = st.onEnd(outcome{stop: acp.StopEndTurn}) != nil
				}
				if got := st.phase(); got != s.want || answered != s.answered || giveUp != s.giveUp || ok != s.ok {
					t.Fatalf("step %d (%s): phase %s answered %v giveUp %v ok %v, want %s %v %v %v",
						i, s.event, got, answered, giveUp, ok, s.want, s.answered, s.giveUp, s.ok)
				}
			}
		})
	}
}

// TestTurnStateNativeSteer: a _session/steering steer is taken only while
// the turn runs for its prompt, taken back when the server refuses it, and
// none once the steers were settled for good (nor a Send Now steer then);
// a steer taken after a settle keeps the steers open.
func TestTurnStateNativeSteer(t *testing.T) {
	st := &turnState{prompt: &acp.Request{}, win: steer.NewWindow(time.Hour, 1<<10, droppedNote, nil)}
	defer st.win.Orphan()
	a := &pendingSteer{id: "a"}
	if !st.onNativeSteer(a) || len(st.steers) != 1 {
		t.Fatal("an attached turn takes a native steer")
	}
	st.onNativeRefused(a)
	if len(st.steers) != 0 {
		t.Fatal("a refused steer is taken back")
	}
	b := &pendingSteer{id: "b"}
	st.onNativeSteer(b)
	if st.onSteersSettled() {
		t.Fatal("an unsettled steer keeps the steers open")
	}
	b.shown = true
	if !st.onSteersSettled() {
		t.Fatal("settled steers close")
	}
	if st.onNativeSteer(&pendingSteer{id: "c"}) {
		t.Error("closed steers take no native steer")
	}
	st.onCancel()
	if st.onSteer(&pendingSteer{id: "d"}) {
		t.Error("closed steers take no Send Now steer")
	}
	detached := &turnState{prompt: &acp.Request{}, win: steer.NewWindow(time.Hour, 1<<10, droppedNote, nil)}
	defer detached.win.Orphan()
	detached.onCancel()
	if detached.onNativeSteer(&pendingSteer{id: "e"}) {
		t.Error("a detached turn (its prompt cancelled) takes no native steer")
	}
}
