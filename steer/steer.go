// Package steer is the grace window of "Send Now": Zed sends session/cancel
// then session/prompt, and a prompt that arrives within the window after a
// cancel is folded into the running turn instead of killing it.
//
// A Window tracks who owns a turn's output:
//
//	Attached   a prompt waits for the turn: output goes to the editor
//	Detached   the prompt was cancelled; output goes to a bounded buffer
//	           until the window closes or a prompt adopts the turn
//	Adopting   a prompt is asking the server to take the steer; output
//	           still goes to the buffer, and the window cannot close
//	Orphaned   nobody: output is dropped (the task is being cancelled)
//
// Attached → Detached on cancel (→ Orphaned at once when the grace is 0);
// Detached → Adopting when a prompt arrives; Adopting → Attached when the
// server took the steer (the buffer is handed over in order), or →
// Orphaned when it did not; Detached → Orphaned when the window closes.
package steer

import (
	"sync"
	"time"

	"github.com/shimdev/shim/internal/randid"
)

// State is who owns a turn's output.
type State uint8

// The states.
const (
	Attached State = iota
	Detached
	Adopting
	Orphaned
)

func (s State) String() string {
	return [...]string{"attached", "detached", "adopting", "orphaned"}[s]
}

// Window is the grace window of one turn. It is safe for concurrent use.
type Window[U any] struct {
	grace    time.Duration
	onExpire func()

	mu      sync.Mutex
	state   State
	ended   bool
	timer   *time.Timer
	buf     Buffer[U]
	changed chan struct{}
}

// NewWindow returns an attached window. onExpire runs (in its own
// goroutine) when the window closes with no prompt: the caller cancels the
// task then. maxBuffer bounds the buffered output in bytes; note makes
// the update that says what a full buffer dropped.
func NewWindow[U any](grace time.Duration, maxBuffer int, note func(bytes, thoughts int) U, onExpire func()) *Window[U] {
	return &Window[U]{grace: grace, onExpire: onExpire, buf: Buffer[U]{Max: maxBuffer, Note: note}, changed: make(chan struct{})}
}

func (w *Window[U]) set(s State) {
	w.state = s
	close(w.changed)
	w.changed = make(chan struct{})
}

// State returns the current state.
func (w *Window[U]) State() State {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// Detach handles a cancel: the window opens for the grace period (or the
// turn is orphaned at once when the grace is zero or the turn ended).
// It returns the new state.
func (w *Window[U]) Detach() State {
	w.mu.Lock()
	if w.state != Attached {
		s := w.state
		w.mu.Unlock()
		return s
	}
	if w.grace <= 0 || w.ended {
		w.set(Orphaned)
		w.mu.Unlock()
		return Orphaned
	}
	w.set(Detached)
	w.timer = time.AfterFunc(w.grace, w.expire)
	w.mu.Unlock()
	return Detached
}

func (w *Window[U]) expire() {
	w.mu.Lock()
	if w.state != Detached {
		w.mu.Unlock()
		return
	}
	w.set(Orphaned)
	w.buf.Reset()
	w.mu.Unlock()
	if w.onExpire != nil {
		w.onExpire()
	}
}

// Reserve is a prompt arriving: it holds the window open while the steer
// is posted. It fails when the window is not open (or the turn ended).
func (w *Window[U]) Reserve() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != Detached || w.ended {
		return false
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.set(Adopting)
	return true
}

// Adopt hands the turn to the reserving prompt and returns the buffered
// output, in order.
func (w *Window[U]) Adopt() []Item[U] {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != Adopting {
		return nil
	}
	items := w.buf.Take()
	w.set(Attached)
	return items
}

// Release gives up a reservation (the server did not take the steer): the
// turn is orphaned and the caller cancels the task.
func (w *Window[U]) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state == Adopting {
		w.buf.Reset()
		w.set(Orphaned)
	}
}

// Orphan drops the turn's output for good (shutdown, close).
func (w *Window[U]) Orphan() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.state != Orphaned {
		w.buf.Reset()
		w.set(Orphaned)
	}
}

// End records that the turn finished; an open window can no longer be
// adopted, and its expiry cancels nothing.
func (w *Window[U]) End() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// Route decides where one update goes: it reports true when it should be
// delivered now; otherwise it was buffered or dropped.
func (w *Window[U]) Route(it Item[U]) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.state {
	case Attached:
		return true
	case Detached, Adopting:
		w.buf.Add(it)
	}
	return false
}

// Left returns a channel closed once the window leaves Attached (a
// cancel detached or orphaned it); closed already when it is not
// attached now.
func (w *Window[U]) Left() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != Attached {
		c := make(chan struct{})
		close(c)
		return c
	}
	return w.changed
}

// Wait blocks while the window is open and returns the state it settled
// in (Attached or Orphaned), or the current state when done is closed.
func (w *Window[U]) Wait(done <-chan struct{}) State {
	for {
		w.mu.Lock()
		s, ch := w.state, w.changed
		w.mu.Unlock()
		if s == Attached || s == Orphaned {
			return s
		}
		select {
		case <-ch:
		case <-done:
			return w.State()
		}
	}
}

// Buffered returns the bytes buffered now and the bytes dropped.
func (w *Window[U]) Buffered() (kept, dropped int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Size(), w.buf.DroppedBytes
}

// NewID returns a steer id: "<client>-<12 hex>".
func NewID(client string) string {
	return client + "-" + randid.Hex(6)
}

// Marker is the text placed in the answer where the agent read a steer.
func Marker(text string) string { return "\n\n↪ steering: " + text + "\n\n" }
