package bridge

import (
	"testing"
	"time"
)

// TestQueueDroppedOnClose: a session's queue is forgotten once the
// session is closed, and a request for an id that is no session leaves
// none behind.
func TestQueueDroppedOnClose(t *testing.T) {
	f := newFake(t)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, t.TempDir())
	if m := s.Call("session/prompt", promptArgs("nobody", "hi")); m.Error == nil {
		t.Fatal("a prompt on an unknown session succeeded")
	}
	if m := s.Call("session/close", map[string]any{"sessionId": id}); m.Error != nil {
		t.Fatalf("close: %v", m.Error)
	}
	srv := s.server()
	deadline := time.Now().Add(10 * time.Second)
	for {
		srv.queues.mu.Lock()
		n := len(srv.queues.m)
		srv.queues.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d session queues kept after close", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
