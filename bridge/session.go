package bridge

import (
	"sync"

	"github.com/shimdev/shim/a2a"
)

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

// session is one ACP session, which is one A2A context.
type session struct {
	id  string
	cwd string
	// minted is set for a session this process created (not loaded): only
	// its first prompt may carry the editor-context preamble.
	minted bool

	mu sync.Mutex
	// prompted is set once the first prompt was sent.
	prompted bool
	// current is the turn that last ran or still runs.
	current *turn
	// parkedTask is a task waiting in input-required for the next prompt
	// to answer it.
	parkedTask string
	// bypass is the allow-commands mode, §6's "Allow for this session":
	// later messages ask to bypass approvals, command approvals are
	// auto-approved. Never persisted.
	bypass bool
	// model is the model chosen in the picker; "" is the agent's default.
	model string
	// toldNoSkip is set once the person was told the server does not let
	// approvals be skipped.
	toldNoSkip bool
	// costUSD is the session's running total, for usage_update.
	costUSD float64
}

// bypassing reports whether a fresh message asks to bypass approvals
// (the allow-commands mode).
func (s *session) bypassing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bypass
}

// intents sets what the session's settings add to a fresh A2A message:
// bypass in allow-commands, the chosen model. Read for each message, so a
// change applies from the next one.
func (s *session) intents(m *a2a.OutMessage) *a2a.OutMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	m.Bypass, m.Model = s.bypass, s.model
	return m
}

// setPark leaves a parked task for the next prompt to answer.
func (s *session) setPark(taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parkedTask = taskID
}

// turn is the session's turn that last ran or still runs.
func (s *session) turn() *turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}
