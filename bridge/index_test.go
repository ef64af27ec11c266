package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/threads"
)

// TestIndexOneWritePerTurnAfterFirstChunk: a turn writes the thread index
// once, and not before its first chunk reached the editor (SPEC §8): the
// server holds the stream after the first chunk until the test has seen
// it and counted the writes. The one write records the title, the cwd and
// the task id.
func TestIndexOneWritePerTurnAfterFirstChunk(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	var turn int
	f.stream = func(w *sseWriter, c rpcCall) {
		f.mu.Lock()
		turn++
		task := fmt.Sprintf("task-%d", turn)
		f.mu.Unlock()
		w.task(task, "TASK_STATE_WORKING")
		w.artifact(task, "a1", "first ", true)
		<-release
		w.artifact(task, "a1", "second", true)
		w.status(task, "TASK_STATE_COMPLETED", nil)
	}
	var writes indexWrites
	ix := threads.Open(t.TempDir(), slog.New(&writes))
	s := startShim(t, f.url, withIndex(ix, f.url, nil), nil)
	s.init(t)
	id := s.newSession(t, "/w")
	const turns = 4
	for i := range turns {
		before := writes.n.Load()
		seen := len(s.Messages())
		ch, _ := s.Start("session/prompt", promptArgs(id, fmt.Sprintf("question %d", i)))
		s.WaitFor("the first chunk", func(ms []acptest.Message) bool {
			return slices.ContainsFunc(ms[seen:], func(m acptest.Message) bool {
				return m.Method == "session/update" && strings.Contains(string(m.Params), `"agent_message_chunk"`)
			})
		})
		if n := writes.n.Load() - before; n != 0 {
			t.Errorf("turn %d: %d index writes before the first chunk reached the editor", i, n)
		}
		release <- struct{}{}
		if got := stopReason(t, s.Wait(ch, "the prompt")); got != "end_turn" {
			t.Fatalf("stop %q", got)
		}
		if n := writes.n.Load() - before; n != 1 {
			t.Errorf("turn %d: %d index writes, want 1", i, n)
		}
	}
	e, ok, err := ix.Get(f.url, id)
	if err != nil || !ok {
		t.Fatalf("entry: %v %v", ok, err)
	}
	if e.Title != "question 0" || e.CWD != "/w" || !slices.Equal(e.TaskIDs, []string{"task-1", "task-2", "task-3", "task-4"}) {
		t.Errorf("entry %+v", e)
	}
}

// indexWrites counts the thread index's writes in its log (it logs each
// one at debug).
type indexWrites struct{ n atomic.Int64 }

func (w *indexWrites) Enabled(context.Context, slog.Level) bool { return true }
func (w *indexWrites) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *indexWrites) WithGroup(string) slog.Handler            { return w }
func (w *indexWrites) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "thread index written" {
		w.n.Add(1)
	}
	return nil
}
