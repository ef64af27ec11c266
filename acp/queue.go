package acp

import (
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// queue is the one writer to the editor: every message, a reply, a call
// or a notification, is appended whole to one queue in the order the
// posts happen, and one goroutine writes whatever has queued with one
// write.
//
// Appending never waits, so a message takes its place in the order at
// once, whatever lock its caller holds. A caller that must be paced (an
// update, a call) then waits, with no lock held, while the queue holds
// outMax bytes: an editor that reads slowly slows the turns down instead
// of growing memory. A reply does not wait: it is small, one per request
// read, and an answer to a cancel must not queue behind a full buffer of
// updates for the person who pressed stop.
type queue struct {
	out io.Writer

	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	spare  []byte
	closed bool
	err    error
	done   chan struct{}
	// tail is the last queued line when it is a text chunk that can take
	// more text (chunks.go).
	tail mergeTail
}

// outMax bounds the bytes waiting for the editor.
const outMax = 256 << 10

func newQueue(out io.Writer) *queue {
	q := &queue{out: out, done: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.writeLoop()
	return q
}

// post queues one message line; with pace, it then waits for room.
func (q *queue) post(b []byte, pace bool) error {
	if err := q.append(func(buf []byte) []byte { return append(buf, b...) }); err != nil {
		return err
	}
	if pace {
		return q.waitRoom()
	}
	return nil
}

// append adds one line that fn writes at the end of the queue (fn must
// append whole JSON; the newline is added here).
func (q *queue) append(fn func([]byte) []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(); err != nil {
		return err
	}
	q.buf = append(fn(q.buf), '\n')
	q.tail.ok = false
	q.cond.Broadcast()
	return nil
}

// appendNotification queues a notification, encoded in one pass
// (jsonrpc2's own path marshals the params four times over), HTML
// characters as they are, straight into the queue: an update as big as a
// tool's whole input is held once by the queue, not once more on its way.
// The long fields taken out of params (long.go) are written where their
// markers stand.
func (q *queue) appendNotification(method string, params any, long []longField) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(); err != nil {
		return err
	}
	start := len(q.buf)
	w := appendWriter{b: append(q.buf, `{"jsonrpc":"2.0","method":`...)}
	w.b = appendJSONString(w.b, method)
	w.b = append(w.b, `,"params":`...)
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return err // q.buf keeps its length: nothing was queued
	}
	line := append(w.b[:len(w.b)-1], '}', '\n') // the encoder's newline out
	if len(long) > 0 {
		skel := slices.Clone(line[start:])
		var err error
		if line, err = appendLong(line[:start], skel, long); err != nil {
			return err
		}
	}
	q.buf = line
	q.tail.ok = false
	q.cond.Broadcast()
	return nil
}

// appendWriter appends what is written to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// usable reports why nothing can be queued any more; q.mu is held.
func (q *queue) usable() error {
	if q.err != nil {
		return q.err
	}
	if q.closed {
		return io.ErrClosedPipe
	}
	return nil
}

// waitRoom waits while the queue is full.
func (q *queue) waitRoom() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) >= outMax && !q.closed && q.err == nil {
		q.cond.Wait()
	}
	return q.usable()
}

// writeLoop writes what has queued, all of it at once.
func (q *queue) writeLoop() {
	defer close(q.done)
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.buf) == 0 && !q.closed {
			q.cond.Wait()
		}
		if q.closed {
			return
		}
		buf := q.buf
		q.buf, q.spare = q.spare[:0], nil
		q.tail.ok = false // taken: nothing merges into it any more
		q.mu.Unlock()
		_, err := q.out.Write(buf)
		q.mu.Lock()
		if cap(buf) <= 4*outMax {
			q.spare = buf[:0]
		}
		if err != nil && q.err == nil {
			q.err = err
			q.buf = nil
			q.tail.ok = false
		}
		q.cond.Broadcast()
		if q.err != nil {
			return
		}
	}
}

// close drops what is queued and stops the writer after the write it is
// in (if any); every waiting caller returns.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.buf = nil
	q.tail.ok = false
	q.cond.Broadcast()
	q.mu.Unlock()
}
