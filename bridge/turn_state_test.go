package bridge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/internal/acptest"
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
		{"ended, then given up", time.Hour, []step{{event: "end", want: phaseEnded, answered: true},
			{event: "giveUp", want: phaseEnded}}},
		{"given up in the window", time.Hour, []step{{event: "cancel", want: phaseDetached, answered: true},
			{event: "giveUp", want: phaseOrphaned, giveUp: true}, {event: "steer", want: phaseOrphaned}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &turnState{prompt: &acp.Request{}, win: steer.NewWindow(c.grace, 1<<10, render.DroppedNote, nil)}
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
	st := &turnState{prompt: &acp.Request{}, win: steer.NewWindow(time.Hour, 1<<10, render.DroppedNote, nil)}
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
	detached := &turnState{prompt: &acp.Request{}, win: steer.NewWindow(time.Hour, 1<<10, render.DroppedNote, nil)}
	defer detached.win.Orphan()
	detached.onCancel()
	if detached.onNativeSteer(&pendingSteer{id: "e"}) {
		t.Error("a detached turn (its prompt cancelled) takes no native steer")
	}
}

// TestShutdownCancelsOnlyRunningTurns: when stdin closes, shim cancels the
// task of a turn still running, never the task of one that ended (a
// completed answer, or a question parked for the next prompt).
func TestShutdownCancelsOnlyRunningTurns(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	f.stream = func(w *sseWriter, c rpcCall) {
		switch {
		case strings.Contains(c.text(), "slow"):
			w.task("t-run", "TASK_STATE_WORKING")
			w.artifact("t-run", "a1", "working…", false)
			<-release
		case strings.Contains(c.text(), "ask"):
			w.task("t-ask", "TASK_STATE_WORKING")
			w.status("t-ask", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which branch?")))
		default:
			w.task("t-done", "TASK_STATE_WORKING")
			w.artifact("t-done", "a1", "done", false)
			w.status("t-done", "TASK_STATE_COMPLETED", nil)
		}
	}
	defer close(release)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	done, asked, running := s.newSession(t, "/tmp"), s.newSession(t, "/tmp"), s.newSession(t, "/tmp")
	stopReason(t, s.prompt(t, done, "hello"))
	stopReason(t, s.prompt(t, asked, "ask me"))
	s.Start("session/prompt", promptArgs(running, "slow"))
	s.WaitFor("the running turn's chunk", func(ms []acptest.Message) bool {
		for _, m := range ms {
			if m.Method == "session/update" && strings.Contains(string(m.Params), running) && strings.Contains(string(m.Params), "working") {
				return true
			}
		}
		return false
	})
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatal("shim did not stop after stdin closed")
	}
	var ids []string
	for _, c := range f.callsOf("CancelTask") {
		ids = append(ids, fmt.Sprint(c.Params["id"]))
	}
	if strings.Join(ids, ",") != "t-run" {
		t.Errorf("CancelTask for %v, want only the running turn's task t-run", ids)
	}
}
