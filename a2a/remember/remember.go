package remember

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/shimdev/shim/internal/privfile"
)

// FileName is the file in the state directory.
const FileName = "remembered.json"

// MaxAge is how long an entry is used after the agent last said it.
const MaxAge = 24 * time.Hour

// The bounds of the file.
const (
	maxFile    = 1 << 20
	maxCard    = 256 << 10
	maxOrigins = 32
	maxCards   = 4
	maxBases   = 4
	maxRoutes  = 16
	version    = 1
)

// Card is an agent card as its URL served it, with its validators.
type Card struct {
	URL          string
	Body         []byte
	ETag         string
	LastModified string
	// Checked is when the agent last served it or said it had not
	// changed (304).
	Checked time.Time
}

// The file as stored.
type (
	disk struct {
		Version int                `json:"version"`
		Origins map[string]*origin `json:"origins"`
	}
	origin struct {
		Cards  map[string]*card                `json:"cards,omitempty"`
		Absent map[string]map[string]time.Time `json:"absent,omitempty"`
	}
	card struct {
		Body         []byte    `json:"body"`
		ETag         string    `json:"etag,omitempty"`
		LastModified string    `json:"lastModified,omitempty"`
		Checked      time.Time `json:"checked"`
	}
)

// File is <state-dir>/remembered.json, shared by every client of a
// process. A nil File remembers nothing. Its methods may be called from
// several goroutines.
type File struct {
	path string
	log  *slog.Logger
	now  func() time.Time

	mu sync.Mutex
	// view is the file as read at first use, with this process's changes
	// applied (nil before the first read).
	view *disk
	// reported: an unreadable file or a failed write was said in the log.
	reported, writeFailed bool
	// pending are the changes not written yet.
	pending []func(*disk)
	// written is closed when the writer scheduled or running now ends
	// (nil: none is); waiting is its timer while it waits out
	// settleWrite.
	written chan struct{}
	waiting interface{ Stop() bool }
	// afterFunc arms the writer's timer (time.AfterFunc; tests replace
	// it).
	afterFunc func(time.Duration, func()) interface{ Stop() bool }
}

// settleWrite is how long a change waits before it is written, so that
// the changes of a launch's session/new (the card, the routes found
// absent) make one write after it, never a synced write beside its
// requests (SPEC §19). Close writes at once what is still waiting.
const settleWrite = 2 * time.Second

// Open is the file of stateDir; it reads nothing yet.
func Open(stateDir string, log *slog.Logger) *File {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	after := func(d time.Duration, fn func()) interface{ Stop() bool } { return time.AfterFunc(d, fn) }
	return &File{path: filepath.Join(stateDir, FileName), log: log, now: time.Now, afterFunc: after}
}

// Load reads the file now, if no call read it yet, so that the first
// question of a launch does not wait for the disk (a process calls it
// once it answered the editor's first request).
func (f *File) Load() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.load()
}

// Path is where the file lives.
func (f *File) Path() string { return f.path }

// For is the entry of one origin (scheme://host:port, auth.Origin): all a
// client reads and keeps. A nil File gives a nil Origin, which remembers
// nothing.
func (f *File) For(originKey string) *Origin {
	if f == nil || originKey == "" {
		return nil
	}
	return &Origin{f: f, key: originKey}
}

// Close writes the changes kept that still wait (settleWrite), and waits,
// at most wait, for them to be written.
func (f *File) Close(wait time.Duration) {
	if f == nil {
		return
	}
	f.mu.Lock()
	done := f.written
	if f.waiting != nil && f.waiting.Stop() {
		go f.writer(done)
	}
	f.waiting = nil
	f.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(wait):
		f.log.Warn("remembered agent details: not written in time; the next launch asks the agent again", "path", f.path)
	}
}

// Origin is what is remembered of one origin.
type Origin struct {
	f   *File
	key string
}

// Card is the card remembered for cardURL, nil when there is none younger
// than MaxAge.
func (o *Origin) Card(cardURL string) *Card {
	if o == nil {
		return nil
	}
	f := o.f
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.load().Origins[o.key]
	if e == nil || e.Cards[cardURL] == nil {
		return nil
	}
	c := e.Cards[cardURL]
	if !f.fresh(c.Checked) {
		return nil
	}
	return &Card{URL: cardURL, Body: slices.Clone(c.Body), ETag: c.ETag, LastModified: c.LastModified, Checked: c.Checked}
}

// KeepCard remembers c (Checked: now when zero); a card over 256 KiB is
// forgotten instead.
func (o *Origin) KeepCard(c Card) {
	if o == nil || c.URL == "" {
		return
	}
	if len(c.Body) > maxCard || len(c.Body) == 0 {
		o.ForgetCard(c.URL)
		return
	}
	if c.Checked.IsZero() {
		c.Checked = o.f.now().UTC()
	}
	stored := &card{Body: slices.Clone(c.Body), ETag: c.ETag, LastModified: c.LastModified, Checked: c.Checked.UTC()}
	o.f.change(func(d *disk) {
		e := d.entry(o.key)
		if e.Cards == nil {
			e.Cards = map[string]*card{}
		}
		e.Cards[c.URL] = stored
	})
}

// ForgetCard forgets the card remembered for cardURL.
func (o *Origin) ForgetCard(cardURL string) {
	if o == nil {
		return
	}
	o.f.change(func(d *disk) {
		if e := d.Origins[o.key]; e != nil {
			delete(e.Cards, cardURL)
		}
	})
}

// Absent is the routes remembered absent under base (route names as the
// caller kept them), younger than MaxAge.
func (o *Origin) Absent(base string) []string {
	if o == nil {
		return nil
	}
	f := o.f
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.load().Origins[o.key]
	if e == nil {
		return nil
	}
	var out []string
	for name, at := range e.Absent[base] {
		if f.fresh(at) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// KeepAbsent remembers that the route name under base is not served.
func (o *Origin) KeepAbsent(base, name string) {
	if o == nil || base == "" || name == "" {
		return
	}
	at := o.f.now().UTC()
	o.f.change(func(d *disk) {
		e := d.entry(o.key)
		if e.Absent == nil {
			e.Absent = map[string]map[string]time.Time{}
		}
		if e.Absent[base] == nil {
			e.Absent[base] = map[string]time.Time{}
		}
		e.Absent[base][name] = at
	})
}

// entry is the origin's entry, made when missing.
func (d *disk) entry(key string) *origin {
	if d.Origins == nil {
		d.Origins = map[string]*origin{}
	}
	if d.Origins[key] == nil {
		d.Origins[key] = &origin{}
	}
	return d.Origins[key]
}

// fresh says whether something the agent said at t may still be used.
func (f *File) fresh(t time.Time) bool {
	age := f.now().Sub(t)
	return age >= -time.Minute && age <= MaxAge
}

// load is the view, read from the file at first use (f.mu held).
func (f *File) load() *disk {
	if f.view == nil {
		f.view = f.readReported()
	}
	return f.view
}

// readReported reads the file; one that cannot be read is empty, said in
// the log once per process (f.mu held).
func (f *File) readReported() *disk {
	d, err := read(f.path)
	if err != nil && !f.reported {
		f.reported = true
		f.log.Warn("remembered agent details unreadable; starting afresh (the file is replaced on the next write)",
			"path", f.path, "err", err)
	}
	return d
}

// read reads the file at path, never through a link: an empty view when
// it is missing, and with an error when it cannot be read as one.
func read(path string) (*disk, error) {
	empty := &disk{Version: version}
	fh, err := privfile.OpenNoFollow(path, os.O_RDONLY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return empty, nil
	case err != nil:
		return empty, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFile+1))
	if err != nil {
		return empty, err
	}
	if len(data) > maxFile {
		return empty, fmt.Errorf("larger than %d bytes", maxFile)
	}
	members, err := privfile.DecodeVersioned(data, version)
	if err != nil {
		return empty, err
	}
	var origins map[string]*origin
	if raw, ok := members["origins"]; ok {
		if err := json.Unmarshal(raw, &origins); err != nil {
			return empty, errors.New("origins: not an object of entries")
		}
	}
	for k, e := range origins {
		if e == nil {
			delete(origins, k)
		}
	}
	return &disk{Version: version, Origins: origins}, nil
}

// change applies fn to the view now and queues it for the file; the
// writer writes every change pending in one write.
func (f *File) change(fn func(*disk)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f.load())
	f.pending = append(f.pending, fn)
	if f.written != nil {
		return
	}
	done := make(chan struct{})
	f.written = done
	f.waiting = f.afterFunc(settleWrite, func() { f.writer(done) })
}

// writer writes the pending changes until none is left.
func (f *File) writer(done chan struct{}) {
	for {
		f.mu.Lock()
		batch := f.pending
		f.pending = nil
		if len(batch) == 0 {
			f.written = nil
			f.mu.Unlock()
			close(done)
			return
		}
		f.mu.Unlock()
		if err := f.write(batch); err != nil {
			f.mu.Lock()
			said := f.writeFailed
			f.writeFailed = true
			f.mu.Unlock()
			if !said {
				f.log.Warn("remembered agent details not written; the next launch asks the agent again", "path", f.path, "err", err)
			}
		}
	}
}

// write applies batch to the file as it is now, under its lock, and
// replaces it atomically; a write that fails leaves the old file and no
// temporary file.
func (f *File) write(batch []func(*disk)) error {
	if err := privfile.EnsureDir(filepath.Dir(f.path)); err != nil {
		return err
	}
	unlock, _, err := privfile.Lock(f.path, f.now)
	if err != nil {
		return err
	}
	defer unlock()
	// Under the lock, a temporary file is a dead writer's.
	privfile.RemoveStaleTemps(f.path, 0, time.Time{})
	f.mu.Lock()
	d := f.readReported()
	f.mu.Unlock()
	for _, fn := range batch {
		fn(d)
	}
	data, err := f.encode(d)
	if err != nil {
		return err
	}
	return privfile.Replace(f.path, data)
}

// encode drops what is too old or past the bounds and encodes the rest
// within maxFile, dropping the oldest cards first.
func (f *File) encode(d *disk) ([]byte, error) {
	f.prune(d)
	if over := estimate(d) - maxFile; over > 0 {
		dropOldestCards(d, over)
	}
	for {
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return nil, err
		}
		if len(data) <= maxFile || !dropOldestCards(d, len(data)-maxFile) {
			return append(data, '\n'), nil
		}
	}
}

// prune drops entries older than MaxAge and keeps the newest within the
// counts.
func (f *File) prune(d *disk) {
	for key, e := range d.Origins {
		for u, c := range e.Cards {
			if !f.fresh(c.Checked) {
				delete(e.Cards, u)
			}
		}
		keepNewest(e.Cards, maxCards, func(c *card) time.Time { return c.Checked })
		for base, routes := range e.Absent {
			for name, at := range routes {
				if !f.fresh(at) {
					delete(routes, name)
				}
			}
			keepNewest(routes, maxRoutes, func(t time.Time) time.Time { return t })
			if len(routes) == 0 {
				delete(e.Absent, base)
			}
		}
		keepNewest(e.Absent, maxBases, newestOf)
		if len(e.Cards) == 0 && len(e.Absent) == 0 {
			delete(d.Origins, key)
		}
	}
	keepNewest(d.Origins, maxOrigins, func(e *origin) time.Time {
		t := newestOf(map[string]time.Time(nil))
		for _, c := range e.Cards {
			if c.Checked.After(t) {
				t = c.Checked
			}
		}
		for _, routes := range e.Absent {
			if n := newestOf(routes); n.After(t) {
				t = n
			}
		}
		return t
	})
}

// newestOf is the newest time of routes.
func newestOf(routes map[string]time.Time) time.Time {
	var t time.Time
	for _, at := range routes {
		if at.After(t) {
			t = at
		}
	}
	return t
}

// keepNewest deletes the oldest members of m (by when) past n.
func keepNewest[V any](m map[string]V, n int, when func(V) time.Time) {
	if len(m) <= n {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return when(m[b]).Compare(when(m[a])) })
	for _, k := range keys[n:] {
		delete(m, k)
	}
}

// dropOldestCards drops the oldest cards of the file until over bytes
// of them are gone; false when there was none to drop.
func dropOldestCards(d *disk, over int) bool {
	type at struct {
		e   *origin
		url string
		c   *card
	}
	var all []at
	for _, e := range d.Origins {
		for u, c := range e.Cards {
			all = append(all, at{e, u, c})
		}
	}
	if len(all) == 0 {
		return false
	}
	slices.SortFunc(all, func(x, y at) int { return x.c.Checked.Compare(y.c.Checked) })
	for _, x := range all {
		delete(x.e.Cards, x.url)
		if over -= cardSize(x.c); over <= 0 {
			break
		}
	}
	for key, e := range d.Origins {
		if len(e.Cards) == 0 && len(e.Absent) == 0 {
			delete(d.Origins, key)
		}
	}
	return true
}

// cardSize is about what a card takes in the file: its body in base64,
// with room for its other members.
func cardSize(c *card) int { return base64.StdEncoding.EncodedLen(len(c.Body)) + 256 }

// estimate is about what the file takes, counting its cards.
func estimate(d *disk) int {
	n := 0
	for _, e := range d.Origins {
		for _, c := range e.Cards {
			n += cardSize(c)
		}
	}
	return n
}
