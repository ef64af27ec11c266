package stdio

import (
	"io"
	"sync"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/encode"
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

// mergeTail locates the text chunk at the end of the queue.
type mergeTail struct {
	ok      bool
	session string
	key     string
	end     int // offset of the end of the chunk's text in the queue
	n       int // bytes of text in the chunk
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
	if err := q.appendLine(func(buf []byte) ([]byte, error) { return append(append(buf, b...), '\n'), nil }); err != nil {
		return err
	}
	if pace {
		return q.waitRoom()
	}
	return nil
}

// appendLine adds the line fn appends at the end of the queue (a whole
// JSON value and its newline; on an error, fn gives its input back and
// nothing is queued). fn runs under q.mu and must not wait.
func (q *queue) appendLine(fn func([]byte) ([]byte, error)) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(); err != nil {
		return err
	}
	b, err := fn(q.buf)
	if err != nil {
		return err
	}
	q.buf = b
	q.tail.ok = false
	q.cond.Broadcast()
	return nil
}

// appendUpdate queues the session/update line of u (encode.AppendUpdate):
// nothing merges into it.
func (q *queue) appendUpdate(sessionID string, u acp.Update) error {
	return q.appendLine(func(b []byte) ([]byte, error) { return encode.AppendUpdate(b, sessionID, u) })
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
