package bridge

import "sync"

// serial runs functions one at a time, in the order they were queued. Each
// session has one, so that its requests and notifications are handled in
// arrival order while different sessions run in parallel.
type serial struct {
	mu      sync.Mutex
	q       []func()
	running bool
}

func (s *serial) push(f func()) {
	s.mu.Lock()
	s.q = append(s.q, f)
	if s.running {
		s.mu.Unlock()
		return
	}
	s.running = true
	s.mu.Unlock()
	go s.drain()
}

// idleAfterThis reports, from inside a queued function, that nothing is
// queued after it.
func (s *serial) idleAfterThis() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.q) == 0
}

func (s *serial) drain() {
	for {
		s.mu.Lock()
		if len(s.q) == 0 {
			s.running = false
			s.mu.Unlock()
			return
		}
		f := s.q[0]
		s.q[0] = nil
		s.q = s.q[1:]
		s.mu.Unlock()
		f()
	}
}
