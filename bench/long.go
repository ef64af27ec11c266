package main

// The long session: one session prompting one-chunk turns many times in a
// row, so a cost that grows with the thread's age (its index entry, what
// the process remembers of it) shows as a ratio between late and early
// turns measured in one run. inotify counts the thread index's writes
// (each is a temporary file renamed onto threads.json) per turn, and those that happened
// before the turn's first chunk reached the editor: the event is queued
// by the kernel at the rename, so one pending when the chunk is read was
// written before it.

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/shimdev/shim/bench/internal/benchagent"
)

// renameWatch counts the renames of temporary files named prefix* in a
// directory (IN_MOVED_FROM: each name is unique, so the kernel never
// merges two events into one as it does for a repeated IN_MOVED_TO).
type renameWatch struct {
	fd     int
	prefix string
	buf    []byte
}

func watchRenames(dir, prefix string) (*renameWatch, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_MOVED_FROM); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &renameWatch{fd: fd, prefix: prefix, buf: make([]byte, 64<<10)}, nil
}

// drain returns how many renames onto the file are pending, without waiting.
func (w *renameWatch) drain() int {
	n := 0
	for {
		k, err := syscall.Read(w.fd, w.buf)
		if k <= 0 || err != nil {
			return n
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= k; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameBytes := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			if bytes.HasPrefix(nameBytes, []byte(w.prefix)) && ev.Mask&syscall.IN_MOVED_FROM != 0 {
				n++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

func (w *renameWatch) close() { syscall.Close(w.fd) }

func (b longRun) longSession() error {
	n := b.h.cfg.sessionTurns
	if n < 20 {
		return errors.New("-session-turns must be at least 20")
	}
	state := filepath.Join(filepath.Dir(b.h.home), "state")
	w, err := watchRenames(state, "threads.json.tmp-") // privfile.TempPrefix
	if err != nil {
		return fmt.Errorf("inotify on %s: %w", state, err)
	}
	defer w.close()
	p, ids, err := b.h.session(b.h.shimArgv(), 1)
	if err != nil {
		return err
	}
	defer p.close(5 * time.Second)
	var (
		mu          sync.Mutex
		sawChunk    bool
		beforeChunk int
	)
	p.onNote = func(line []byte, _ time.Duration) {
		if !bytes.Contains(line, []byte(`"agent_message_chunk"`)) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !sawChunk {
			sawChunk = true
			beforeChunk += w.drain()
			b.h.srv.Open() // the server may end the turn now
		}
	}
	w.drain()
	gets0 := b.h.srv.OperatorGets()
	durs := make([]time.Duration, n)
	writes := make([]int, n)
	spec := benchagent.Spec{N: 1, Gate: true}
	for i := range n {
		mu.Lock()
		sawChunk = false
		before := beforeChunk
		mu.Unlock()
		t0 := time.Now()
		if _, err := p.call("session/prompt", promptParams(ids[0], spec), time.Minute); err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		durs[i] = time.Since(t0)
		mu.Lock()
		if !sawChunk {
			mu.Unlock()
			return fmt.Errorf("turn %d showed no chunk", i+1)
		}
		writes[i] = beforeChunk - before + w.drain()
		mu.Unlock()
	}
	gets := b.h.srv.OperatorGets() - gets0
	// "Turn k": the median of the ten turns ending at k.
	early, late := pct(durs[5:15], 50), pct(durs[n-10:], 50)
	ratio := float64(late) / float64(early)
	b.r.add("long session", fmt.Sprintf("one-chunk turn, turn 10 vs turn %d of one session", n),
		fmt.Sprintf("median %s vs %s = %.2f×", ms(early), ms(late), ratio), "≤ 1.3×", verdict(ratio <= 1.3))
	total, most := 0, 0
	for _, k := range writes {
		total += k
		most = max(most, k)
	}
	b.r.add("long session", fmt.Sprintf("thread index writes per turn (%d turns)", n),
		fmt.Sprintf("%.2f on average, at most %d", float64(total)/float64(n), most), "≤ 1", verdict(most <= 1))
	mu.Lock()
	bc := beforeChunk
	mu.Unlock()
	b.r.add("long session", "index writes between a prompt and its first chunk", fmt.Sprintf("%d in %d turns", bc, n), "0", verdict(bc == 0))
	b.r.add("long session", "operator API requests answered 404 (the busy check)", fmt.Sprintf("%d in %d turns", gets, n), "not one per turn", verdict(gets < int64(n)/10+2))
	return nil
}
