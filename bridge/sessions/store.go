package sessions

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// Store is what a session is and keeps: the open sessions, what this
// process showed of each thread, the thread index (where sessions
// outlive the process) and the project roots their paths resolve
// against.
type Store struct {
	log *slog.Logger
	// index is the local thread index (nil: none), keyed by the agent's
	// normalized URL: currentKey() when set (authenticate may switch to
	// the URL of a login made after start), else serverKey.
	index      *threads.Index
	serverKey  string
	currentKey func() string
	// roots are the project roots.
	roots *roots.Map
	// shown is what this process showed of each thread.
	shown history.Threads

	// mu guards the sessions.
	mu       sync.Mutex
	sessions map[string]*turn.Session
}

// New is a store of no session. index is the local thread index (nil:
// none), keyed by the agent's normalized URL: currentKey() when set
// (authenticate may switch to the URL of a login made after start), else
// serverKey.
func New(log *slog.Logger, index *threads.Index, serverKey string, currentKey func() string, rootMap *roots.Map) *Store {
	return &Store{log: log, index: index, serverKey: serverKey, currentKey: currentKey, roots: rootMap,
		sessions: map[string]*turn.Session{}}
}

// Roots is the project roots.
func (s *Store) Roots() *roots.Map { return s.roots }

// Shown is what this process showed of each thread.
func (s *Store) Shown() *history.Threads { return &s.shown }

// Session is the open session id, nil when there is none.
func (s *Store) Session(id string) *turn.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// Add opens sess.
func (s *Store) Add(sess *turn.Session) {
	s.mu.Lock()
	s.sessions[sess.ID()] = sess
	s.mu.Unlock()
}

// Close forgets the session id and gives its running turn up; false when
// there was none.
func (s *Store) Close(id string) bool {
	s.mu.Lock()
	sess := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if sess == nil {
		return false
	}
	s.shown.Forget(id)
	if t := sess.Current(); t != nil {
		t.Cancel()
	}
	return true
}

// IDs is the open sessions' ids, sorted.
func (s *Store) IDs() []string {
	s.mu.Lock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	slices.Sort(ids)
	return ids
}

// Running is the current turn of every session.
func (s *Store) Running() []*turn.Turn {
	s.mu.Lock()
	sessions := make([]*turn.Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	s.mu.Unlock()
	var running []*turn.Turn
	for _, sess := range sessions {
		if t := sess.Current(); t != nil {
			running = append(running, t)
		}
	}
	return running
}

// Register makes a loaded, resumed or claimed thread a session of this
// process (never minted: no preamble) and records it in the index. A
// thread that already has a title (named) is not renamed by its next
// prompt.
func (s *Store) Register(id, cwd string, turns []past.Turn, named bool) *turn.Session {
	s.mu.Lock()
	sess := s.sessions[id]
	if sess == nil {
		sess = turn.NewSession(id, cwd, false, named)
		s.sessions[id] = sess
	}
	s.mu.Unlock()
	var newest time.Time
	for _, t := range turns {
		if t.Updated.After(newest) {
			newest = t.Updated
		}
	}
	title := past.Title(turns)
	s.Update(id, func(e *threads.Entry) {
		if e.CWD == "" {
			e.CWD = cwd
		}
		if e.Title == "" {
			e.Title = title
		}
		addTasks(e, turns)
		if e.CreatedAt.IsZero() && !newest.IsZero() {
			e.CreatedAt, e.UpdatedAt = newest, newest
		}
	})
	return sess
}

// addTasks records the turns' task ids the entry does not have yet.
func addTasks(e *threads.Entry, turns []past.Turn) {
	known := make(map[string]bool, len(e.TaskIDs))
	for _, id := range e.TaskIDs {
		known[id] = true
	}
	for _, t := range turns {
		if t.TaskID != "" && !known[t.TaskID] {
			known[t.TaskID] = true
			e.TaskIDs = append(e.TaskIDs, t.TaskID)
		}
	}
}

// SetDirs gives sess its additional directories, the complete list now,
// and records them in the index.
func (s *Store) SetDirs(sess *turn.Session, dirs []string) {
	if len(dirs) == 0 {
		return
	}
	sess.SetDirs(dirs)
	s.Update(sess.ID(), func(e *threads.Entry) { e.AdditionalDirectories = dirs })
}

// ThreadIndex is the thread index and this agent's key in it; false when
// there is no index (or no key to file threads under).
func (s *Store) ThreadIndex() (*threads.Index, string, bool) {
	key := s.key()
	if s.index == nil || key == "" {
		return nil, "", false
	}
	return s.index, key, true
}

// key is the normalized URL the thread index keys this agent by.
func (s *Store) key() string {
	if s.currentKey != nil {
		return s.currentKey()
	}
	return s.serverKey
}

// Update updates the thread index; its failures are logged, never fatal.
func (s *Store) Update(id string, fn func(*threads.Entry)) {
	index, key, ok := s.ThreadIndex()
	if !ok {
		return
	}
	if err := index.Update(key, id, fn); err != nil {
		s.log.Warn("thread index not updated", "err", err)
	}
}

// Recorded is the task ids the index recorded for the thread id.
func (s *Store) Recorded(id string) []string { return s.entry(id).TaskIDs }

// Failures is how the index says turns of the thread id failed (the
// friendly text by task id), as their live turns read it.
func (s *Store) Failures(id string) map[string]string { return s.entry(id).Failures }

// entry is the index's entry of the thread id (empty when there is no
// index, or it is unreadable: logged).
func (s *Store) entry(id string) threads.Entry {
	index, key, ok := s.ThreadIndex()
	if !ok {
		return threads.Entry{}
	}
	e, _, err := index.Get(key, id)
	if err != nil {
		s.log.Warn("thread index unreadable", "err", err)
	}
	return e
}

// The bounds of a session's additional directories (SPEC §15): what one
// session keeps of them, in memory and in the thread index, stays small.
const (
	maxDirs     = 32
	maxDirBytes = 1024
)

// CheckDirs refuses additional directories that are not absolute (SPEC
// §14), more than maxDirs of them, one longer than maxDirBytes or holding
// a NUL (§15); it returns them cleaned. Its message quotes at most the
// start of a folder.
func CheckDirs(method string, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	if len(dirs) > maxDirs {
		return nil, acp.InvalidParams(fmt.Sprintf("%s takes at most %d additionalDirectories, got %d: open the others in a session of their own",
			method, maxDirs, len(dirs)))
	}
	out := make([]string, 0, len(dirs))
	for i, d := range dirs {
		switch {
		case len(d) > maxDirBytes:
			return nil, acp.InvalidParams(fmt.Sprintf("%s: additionalDirectories[%d] is %d bytes long; a folder's path may take at most %d",
				method, i, len(d), maxDirBytes))
		case strings.IndexByte(d, 0) >= 0:
			return nil, acp.InvalidParams(fmt.Sprintf("%s: additionalDirectories[%d] holds a NUL character, which no folder's path has",
				method, i))
		case !filepath.IsAbs(d):
			return nil, acp.InvalidParams(method + " needs absolute additionalDirectories, got " + strconv.Quote(d))
		}
		out = append(out, filepath.Clean(d))
	}
	return out, nil
}

// CheckCWD refuses a cwd that is not absolute (an empty one only when the
// method requires a cwd).
func CheckCWD(method, cwd string, required bool) error {
	if (cwd == "" && !required) || filepath.IsAbs(cwd) {
		return nil
	}
	return acp.InvalidParams(method + " needs an absolute cwd, got " + strconv.Quote(cwd))
}
