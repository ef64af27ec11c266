package bridge

import (
	"sync"

	"github.com/shimdev/shim/bridge/sessions"
)

// queues is where a session's calls run: one serial queue per session id
// with work, kept while the id is a session (store) and forgotten once
// idle when it is none.
type queues struct {
	store *sessions.Store

	// mu guards the queues; it is taken before a queue's lock.
	mu sync.Mutex
	m  map[string]*serial
}

func newQueues(store *sessions.Store) *queues {
	return &queues{store: store, m: map[string]*serial{}}
}

// enqueue runs f in the session's queue, after what arrived before it;
// the queue is found (or made) and f queued under q.mu, so that drop
// never forgets a queue that has work.
func (q *queues) enqueue(id string, f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.m[id]
	if s == nil {
		s = &serial{}
		q.m[id] = s
	}
	s.push(func() {
		f()
		q.drop(id, s)
	})
}

// drop forgets an idle queue of an id that is no session (closed, or
// never one): the map holds queues of live sessions only.
func (q *queues) drop(id string, s *serial) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.store.Session(id) != nil || q.m[id] != s || !s.idleAfterThis() {
		return
	}
	delete(q.m, id)
}

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
