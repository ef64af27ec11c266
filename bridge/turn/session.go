package turn

// A session as its turns share it: its current turn, the park the next
// prompt answers, the settings a fresh message carries, its cost.

import (
	"slices"
	"sync"

	"github.com/shimdev/shim/a2a"
)

// Session is one ACP session, which is one A2A context. It is safe for
// concurrent use.
type Session struct {
	id  string
	cwd string
	// minted is set for a session this process created (not loaded): only
	// its first prompt may carry the editor-context preamble.
	minted bool

	mu sync.Mutex
	// dirs are the session's additional directories (SPEC §14): roots
	// like the cwd. A load or resume may replace them.
	dirs []string
	// mcpTold is set once the person was told the editor's MCP servers
	// are not forwarded.
	mcpTold bool
	// prompted is set once the first prompt was sent.
	prompted bool
	// fresh is set for a minted session until a turn of it got past the
	// wait before sending: its chat exists nowhere else yet, so that turn
	// asks no busy signal (SPEC §19).
	fresh bool
	// current is the turn that last ran or still runs (a *Turn: Start
	// links it; the session knows only when it is over).
	current running
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
	// earlier is the task of the last turn given up, its cancel asked or
	// refused (refused.go), for the next turn to tell of.
	earlier *earlier
}

// cancelling records that the task of a turn given up is being
// cancelled, for the next turn.
func (s *Session) cancelling(taskID string) *earlier {
	e := &earlier{taskID: taskID, done: make(chan struct{})}
	s.mu.Lock()
	s.earlier = e
	s.mu.Unlock()
	return e
}

// takeEarlier takes the task of the last turn given up, if any.
func (s *Session) takeEarlier() *earlier {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.earlier
	s.earlier = nil
	return e
}

// running is a session's turn as the session knows it: a goroutine that
// ends.
type running interface {
	// Done is closed once the turn's goroutine is over.
	Done() <-chan struct{}
}

// NewSession returns the session id in the directory cwd; minted is set
// for one this process created, prompted for one whose thread already
// has a title (its next prompt does not name it).
func NewSession(id, cwd string, minted, prompted bool) *Session {
	return &Session{id: id, cwd: cwd, minted: minted, prompted: prompted, fresh: minted && !prompted}
}

// ID is the session id (the A2A context id).
func (s *Session) ID() string { return s.id }

// CWD is the session's working directory.
func (s *Session) CWD() string { return s.cwd }

// Dirs are the session's additional directories.
func (s *Session) Dirs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirs
}

// SetDirs replaces the session's additional directories (absolute).
func (s *Session) SetDirs(dirs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs = slices.Clone(dirs)
}

// TellMCP reports whether the person is still to be told that the
// editor's MCP servers are not forwarded (once per session).
func (s *Session) TellMCP() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	told := s.mcpTold
	s.mcpTold = true
	return !told
}

// Minted reports whether this process created the session.
func (s *Session) Minted() bool { return s.minted }

// SetPark leaves a parked task for the next prompt to answer.
func (s *Session) SetPark(taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parkedTask = taskID
}

// TakePrompt marks the session prompted and takes the park the prompt is
// to answer; first reports that it is the session's first prompt.
func (s *Session) TakePrompt() (first bool, parked string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first, parked = !s.prompted, s.parkedTask
	s.prompted, s.parkedTask = true, ""
	return first, parked
}

// takeFresh reports whether no turn of the minted session got past the
// wait before sending yet, and marks that one did.
func (s *Session) takeFresh() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := s.fresh
	s.fresh = false
	return fresh
}

// restorePark gives back a park a turn did not answer, unless another
// took its place.
func (s *Session) restorePark(taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parkedTask == "" {
		s.parkedTask = taskID
	}
}

// Settings is a session's permissions mode and model at one moment.
type Settings struct {
	// Bypass is the allow-commands mode.
	Bypass bool
	// Model is the chosen model; "" is the agent's default.
	Model string
}

// Settings returns the session's settings now.
func (s *Session) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Settings{Bypass: s.bypass, Model: s.model}
}

// SetBypass puts the session in or out of the allow-commands mode; it
// reports whether that changed it.
func (s *Session) SetBypass(on bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.bypass != on
	s.bypass = on
	return changed
}

// SetModel chooses the model of the session's next messages ("" the
// agent's default).
func (s *Session) SetModel(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.model = model
}

// Intents sets what the session's settings add to a fresh A2A message:
// bypass in allow-commands, the chosen model. Read for each message, so a
// change applies from the next one.
func (s *Session) Intents(m *a2a.OutMessage) *a2a.OutMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	m.Bypass, m.Model = s.bypass, s.model
	return m
}

// tellNoSkip reports whether the person is still to be told that the
// server does not let approvals be skipped (once per session).
func (s *Session) tellNoSkip() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	told := s.toldNoSkip
	s.toldNoSkip = true
	return !told
}

// addCost adds a turn's cost to the session's total.
func (s *Session) addCost(usd float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.costUSD += usd
}

// cost is the session's running total.
func (s *Session) cost() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.costUSD
}
