package stdio

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/acp"
)

// stuckWriter is an editor that stopped reading: its first Write blocks
// until released.
type stuckWriter struct {
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	buf              bytes.Buffer
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered); <-w.release })
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestReplyNeverWaitsForRoom: with the editor not reading and the queue
// over its bound, an update waits for room but a reply (a cancel's
// "cancelled") is queued at once, after the updates queued before it.
func TestReplyNeverWaitsForRoom(t *testing.T) {
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	c := NewConn(strings.NewReader(""), w, slog.New(slog.DiscardHandler))
	if err := c.Send("s1", acp.AgentMessageChunk{Content: acp.Text("first")}); err != nil {
		t.Fatal(err)
	}
	<-w.entered // the writer is stuck in the editor's pipe
	big := strings.Repeat("x", 64<<10)
	for q := 0; q < 2*outMax; q += len(big) {
		if err := c.Send("s1", acp.AgentMessageChunk{Content: acp.Text(big)}); err != nil {
			t.Fatal(err)
		}
	}
	paced := make(chan error, 1)
	go func() { paced <- c.Notify("s1", acp.AgentMessageChunk{Content: acp.Text("paced")}) }()
	replied := make(chan error, 1)
	go func() {
		replied <- c.Reply(&acp.Request{ID: idOf(7), Method: acp.MethodSessionPrompt}, acp.PromptResult{StopReason: acp.StopCancelled}, nil)
	}()
	if err := <-replied; err != nil { // returns with the writer still stuck
		t.Fatal(err)
	}
	select {
	case err := <-paced:
		t.Fatalf("an update was let through a full queue (err %v)", err)
	default:
	}
	close(w.release)
	if err := <-paced; err != nil {
		t.Fatal(err)
	}
	c.s.flushClose()
	out := w.buf.String()
	reply := strings.Index(out, `"stopReason":"cancelled"`)
	if reply < 0 || reply < strings.LastIndex(out, big) {
		t.Fatalf("the reply is missing or precedes the updates queued before it")
	}
}
