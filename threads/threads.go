package threads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/shimdev/shim/internal/privfile"
	"github.com/shimdev/shim/internal/textcut"
)

const (
	fileName = "threads.json"
	version  = 1
	// MaxTaskIDs is how many task ids an entry keeps: the newest (SPEC §8).
	MaxTaskIDs = 200
	// MaxEntryBytes is the most one thread's entry takes in the file, as
	// written there from its id's opening quote to its closing brace
	// (SPEC §15).
	MaxEntryBytes = 64 << 10
)

// ErrEntryTooLarge is wrapped by the error of an Update whose entry does
// not fit MaxEntryBytes even without task ids and title: its id, cwd and
// additional directories alone are larger. Nothing is written.
var ErrEntryTooLarge = errors.New("threads: the thread's entry is too large for the index")

// ErrCorrupt is wrapped by the errors of reads that find an unreadable index
// file (not JSON of the expected shape, or another version).
var ErrCorrupt = errors.New("threads: unreadable index file")

// Entry is one thread (an ACP session = an A2A contextId) as seen by this machine.
type Entry struct {
	CWD string `json:"cwd,omitempty"`
	// AdditionalDirectories are the thread's other workspace roots
	// (SPEC §14), as the editor last gave them.
	AdditionalDirectories []string  `json:"additionalDirectories,omitempty"`
	Title                 string    `json:"title,omitempty"`
	CreatedAt             time.Time `json:"createdAt"`
	UpdatedAt             time.Time `json:"updatedAt"`
	TaskIDs               []string  `json:"taskIds,omitempty"`
	// Failures are how the turns of some of TaskIDs ended, as the live
	// turn read it: failed, with the friendly text the editor was shown,
	// by task id. A server can keep such a task working for ever (one
	// that sent the failure under another task id, SPEC §16); a replay
	// shows it failed all the same. Only ids of TaskIDs are kept.
	Failures map[string]string `json:"failures,omitempty"`
	// Deleted is set once the thread left the editor's history
	// (session/delete): it is never listed again.
	Deleted bool `json:"deleted,omitempty"`
}

// AddTask appends taskID unless the entry has it already, keeping the
// newest MaxTaskIDs.
func (e *Entry) AddTask(taskID string) {
	if taskID == "" || slices.Contains(e.TaskIDs, taskID) {
		return
	}
	e.TaskIDs = append(e.TaskIDs, taskID)
	e.capTasks()
}

// MaxFailureChars is how many characters of a failure's text an entry
// keeps (the friendly text of SPEC §4.3 is at most 500).
const MaxFailureChars = 500

// SetFailure records that the turn of taskID failed, with the text the
// editor was shown (cut at MaxFailureChars), and adds the task.
func (e *Entry) SetFailure(taskID, text string) {
	if taskID == "" || text == "" {
		return
	}
	e.AddTask(taskID)
	if e.Failures == nil {
		e.Failures = map[string]string{}
	}
	e.Failures[taskID] = textcut.Cut(text, MaxFailureChars)
	e.keepFailures()
}

// capTasks drops all but the newest MaxTaskIDs task ids, and the failures
// of the ids dropped.
func (e *Entry) capTasks() {
	if n := len(e.TaskIDs); n > MaxTaskIDs {
		e.TaskIDs = slices.Clone(e.TaskIDs[n-MaxTaskIDs:])
	}
	e.keepFailures()
}

// keepFailures drops the failures of task ids the entry does not keep.
func (e *Entry) keepFailures() {
	if len(e.Failures) == 0 {
		e.Failures = nil
		return
	}
	kept := make(map[string]bool, len(e.TaskIDs))
	for _, id := range e.TaskIDs {
		kept[id] = true
	}
	for id := range e.Failures {
		if !kept[id] {
			delete(e.Failures, id)
		}
	}
	if len(e.Failures) == 0 {
		e.Failures = nil
	}
}

// Item is an Entry with its id, for listings.
type Item struct {
	ID string
	Entry
}

// Index is the thread index stored in one file. Its methods may be called
// from several goroutines and several processes at once.
type Index struct {
	file privfile.Versioned
	now  func() time.Time // the clock of the timestamps and moved-aside names
}

// procMu serializes this process's accesses to any index: on platforms
// where the advisory lock is per process (fcntl) rather than per open file,
// the file lock alone would not exclude other goroutines.
var procMu sync.RWMutex

// Open returns an index stored at dir/threads.json. It does no I/O; the
// directory and the file are created by the first write. A nil log discards.
func Open(dir string, log *slog.Logger) *Index { return open(dir, log, time.Now) }

// open is Open with the clock now.
func open(dir string, log *slog.Logger, now func() time.Time) *Index {
	return &Index{now: now, file: privfile.Versioned{Path: filepath.Join(dir, fileName), Version: version,
		Name: "thread index", Log: log, Now: now}}
}

// Path returns the file path.
func (ix *Index) Path() string { return ix.file.Path }

// Update applies fn to the entry (server, id) and writes the index. fn sees
// the entry as currently stored, or a zero Entry when it is new. After fn,
// a zero CreatedAt is set to now and a zero UpdatedAt to CreatedAt; Update
// does not otherwise touch UpdatedAt, only the newest MaxTaskIDs task ids
// are kept, and the entry is made to fit MaxEntryBytes (fit). fn runs
// under the index lock and must not call the Index.
func (ix *Index) Update(server, id string, fn func(*Entry)) error {
	if server == "" || id == "" {
		return errors.New("threads: empty server or session id")
	}
	return ix.write(func(d *document) error {
		now := ix.now()
		sessions := d.servers[server]
		if sessions == nil {
			sessions = make(map[string]Entry)
			d.servers[server] = sessions
		}
		e := sessions[id]
		fn(&e)
		e.capTasks()
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		if e.UpdatedAt.IsZero() {
			e.UpdatedAt = e.CreatedAt
		}
		if err := fit(id, &e); err != nil {
			return err
		}
		sessions[id] = e
		return nil
	})
}

// titleKeep is how many characters of a title fit cuts before any task
// id: the length of the titles shim makes itself.
const titleKeep = 80

// fit makes the entry e of id take at most MaxEntryBytes of the file, by
// cutting, each only as far as it must: the title (by characters, "…"
// ending it) down to titleKeep characters, then the oldest task ids, then
// the rest of the title. When the rest (id, cwd, additional directories,
// times) alone is larger, it fails with ErrEntryTooLarge. Only an entry
// over the bound costs more than one encoding of it.
func fit(id string, e *Entry) error {
	fits := func(c Entry) bool { return entrySize(id, c) <= MaxEntryBytes }
	if fits(*e) {
		return nil
	}
	title := e.Title
	// A character takes a byte at least: no more than the bound's count.
	chars := min(utf8.RuneCountInString(title), MaxEntryBytes)
	titled := func(n int) Entry {
		c := *e
		c.Title = ""
		if n > 0 {
			c.Title = textcut.Cut(title, n)
		}
		return c
	}
	if chars > titleKeep {
		*e = titled(most(titleKeep, chars, func(n int) bool { return fits(titled(n)) }))
		if fits(*e) {
			return nil
		}
	}
	if ids := e.TaskIDs; len(ids) > 0 {
		newest := func(k int) Entry {
			c := *e
			c.TaskIDs = nil
			if k > 0 {
				c.TaskIDs = slices.Clone(ids[len(ids)-k:])
			}
			c.Failures = maps.Clone(e.Failures)
			c.keepFailures()
			return c
		}
		*e = newest(most(0, len(ids), func(k int) bool { return fits(newest(k)) }))
		if fits(*e) {
			return nil
		}
	}
	if title != "" {
		*e = titled(most(0, min(chars, titleKeep), func(n int) bool { return fits(titled(n)) }))
		if fits(*e) {
			return nil
		}
	}
	return fmt.Errorf("%w: %d bytes with no task id and no title, at most %d (its id, cwd and additional directories)",
		ErrEntryTooLarge, entrySize(id, *e), MaxEntryBytes)
}

// most is the largest n in [lo, hi] for which ok holds (ok holds up to a
// point, then no more), lo when there is none.
func most(lo, hi int, ok func(n int) bool) int {
	return max(lo, lo+sort.Search(hi-lo+1, func(i int) bool { return !ok(lo + i) })-1)
}

// entryIndent is the indentation of a server's object in the file, where
// its entries are members.
const entryIndent = "    "

// entrySize is how many bytes the entry e of id takes in the file.
func entrySize(id string, e Entry) int {
	b, err := json.Marshal(map[string]Entry{id: e})
	if err != nil {
		// Not written anyway (encode fails the same way).
		return 0
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, entryIndent, "  "); err != nil {
		return 0
	}
	// {\n<indent>  "id": {…}\n<indent>}: the member alone.
	return len(bytes.TrimSpace(out.Bytes()[1 : out.Len()-1]))
}

// Get returns one entry and whether it exists.
func (ix *Index) Get(server, id string) (Entry, bool, error) {
	d, err := ix.read()
	if err != nil {
		return Entry{}, false, err
	}
	e, ok := d.servers[server][id]
	return e, ok, nil
}

// List returns the entries of one server URL, newest UpdatedAt first.
func (ix *Index) List(server string) ([]Item, error) {
	d, err := ix.read()
	if err != nil {
		return nil, err
	}
	return items(d.servers[server]), nil
}

// All returns the entries of every server URL, keyed by URL, newest
// UpdatedAt first within each.
func (ix *Index) All() (map[string][]Item, error) {
	d, err := ix.read()
	if err != nil {
		return nil, err
	}
	all := make(map[string][]Item, len(d.servers))
	for server, sessions := range d.servers {
		all[server] = items(sessions)
	}
	return all, nil
}

func items(sessions map[string]Entry) []Item {
	out := make([]Item, 0, len(sessions))
	for id, e := range sessions {
		out = append(out, Item{ID: id, Entry: e})
	}
	slices.SortFunc(out, func(a, b Item) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// read returns the stored document under a shared lock. A missing file (or
// directory) is an empty document and creates nothing.
func (ix *Index) read() (*document, error) {
	if _, err := os.Lstat(ix.file.Path); errors.Is(err, fs.ErrNotExist) {
		return newDocument(), nil
	}
	procMu.RLock()
	defer procMu.RUnlock()
	unlock, err := privfile.RLock(ix.file.Path)
	if err != nil {
		return nil, fmt.Errorf("threads: lock %s.lock: %w", ix.file.Path, err)
	}
	defer unlock()
	members, _, err := ix.file.Read()
	d, err := documentOf(ix.file.Path, members, err)
	var corrupt *privfile.CorruptError
	if errors.As(err, &corrupt) {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err != nil {
		return nil, fmt.Errorf("threads: %w", err)
	}
	return d, nil
}

// write is one write of the file (privfile.Versioned.Update) with apply as
// the change; an error of apply writes nothing.
func (ix *Index) write(apply func(*document) error) error {
	procMu.Lock()
	defer procMu.Unlock()
	err := ix.file.Update(func(members map[string]json.RawMessage) ([]byte, error) {
		d, err := documentOf(ix.file.Path, members, nil)
		if err != nil {
			return nil, err
		}
		if err := apply(d); err != nil {
			return nil, err
		}
		return d.encode()
	})
	if err != nil {
		return fmt.Errorf("threads: %w", err)
	}
	return nil
}

// document is the parsed file. extra holds unknown top-level fields.
type document struct {
	servers map[string]map[string]Entry
	extra   map[string]json.RawMessage
}

func newDocument() *document {
	return &document{servers: make(map[string]map[string]Entry)}
}

// documentOf is the document of the file's members as read (with err,
// the read's error); servers of the wrong shape is a *privfile.CorruptError.
func documentOf(path string, members map[string]json.RawMessage, err error) (*document, error) {
	if err != nil {
		return nil, err
	}
	d := newDocument()
	if raw, ok := members["servers"]; ok {
		if err := json.Unmarshal(raw, &d.servers); err != nil {
			return nil, &privfile.CorruptError{Path: path, Err: fmt.Errorf("servers: %w", err)}
		}
		if d.servers == nil {
			d.servers = make(map[string]map[string]Entry)
		}
	}
	delete(members, "servers")
	if len(members) > 0 {
		d.extra = members
	}
	return d, nil
}

// encode renders the document, version first, indented.
func (d *document) encode() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":%d,"servers":`, version)
	servers, err := json.Marshal(d.servers)
	if err != nil {
		// A time outside years 0-9999 is the one way to get here.
		return nil, fmt.Errorf("encode: %w", err)
	}
	b.Write(servers)
	out, err := privfile.Encode(b.Bytes(), d.extra)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return out, nil
}
