package bridge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/acptest"
)

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
