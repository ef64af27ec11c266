package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
)

// TestPacedChunksNotHeld: the server sends each chunk only after the
// editor has read the one before, so a chunk held back for a merge would
// stall the stream; every chunk arrives as its own update.
func TestPacedChunksNotHeld(t *testing.T) {
	const n = 20
	seen := make(chan int)
	stop := make(chan struct{})
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_WORKING")
		for i := range n {
			w.artifact("t1", "a1", fmt.Sprintf("c%d ", i), i > 0)
			select {
			case <-seen:
			case <-stop:
				return
			}
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	t.Cleanup(func() { close(stop) })
	s.init(t)
	id := s.newSession(t, t.TempDir())
	ch, _ := s.Start("session/prompt", promptArgs(id, "go"))
	want := ""
	for i := range n {
		want += fmt.Sprintf("c%d ", i)
		s.WaitFor(fmt.Sprintf("chunk %d", i), func(ms []acptest.Message) bool {
			return strings.HasSuffix(answerOf(ms, id), want)
		})
		seen <- i
	}
	if got := stopReason(t, s.Wait(ch, "session/prompt")); got != "end_turn" {
		t.Fatalf("stop reason %q", got)
	}
	if got := count(s.Updates(id), "agent_message_chunk"); got != n {
		t.Errorf("%d chunk updates, want %d (one per paced chunk)", got, n)
	}
}

// answerOf joins the agent_message_chunk texts of a session in ms.
func answerOf(ms []acptest.Message, sessionID string) string {
	var b strings.Builder
	for _, m := range ms {
		if m.Method != "session/update" {
			continue
		}
		var u acptest.Update
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID == sessionID && u.Kind() == "agent_message_chunk" {
			b.WriteString(u.Text())
		}
	}
	return b.String()
}
