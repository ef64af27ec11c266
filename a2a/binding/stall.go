package binding

import (
	"io"
	"sync"
	"time"
)

// stallReader cancels a stream that yields no byte for d.
type stallReader struct {
	r     io.Reader
	d     time.Duration
	mu    sync.Mutex
	timer *time.Timer
	fired bool
}

// newStallReader arms a timer that calls onStall when r is silent for d.
// A d of zero disables the watch.
func newStallReader(r io.Reader, d time.Duration, onStall func()) *stallReader {
	s := &stallReader{r: r, d: d}
	if d > 0 {
		s.timer = time.AfterFunc(d, func() {
			s.mu.Lock()
			s.fired = true
			s.mu.Unlock()
			onStall()
		})
	}
	return s
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 && s.timer != nil {
		s.timer.Reset(s.d)
	}
	return n, err
}

// Stalled reports whether the timer fired.
func (s *stallReader) Stalled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fired
}

// Stop disarms the timer.
func (s *stallReader) Stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}

// touch restarts the silence timer.
func (s *stallReader) touch() {
	if s.timer != nil {
		s.timer.Reset(s.d)
	}
}
