package remember

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// logLines is a logger whose lines the test reads.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.FieldsFunc(l.buf.String(), func(r rune) bool { return r == '\n' })
}

// clock is a test's time, moved by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)} }

// openAt opens the file of dir with its clock at now and its log in l.
func openAt(dir string, now *clock, l *logLines) *File {
	f := Open(dir, slog.New(slog.NewTextHandler(l, nil)))
	f.now = now.now
	return f
}

const a, b = "https://a.example:7870", "https://b.example"

var cardA = Card{URL: a + "/.well-known/agent-card.json", Body: []byte(`{"name":"A"}`), ETag: `"v1"`, LastModified: "Wed, 02 Dec 2026 07:00:00 GMT"}

// TestKeptForTheNextLaunch: what one process keeps (a card with its
// validators, routes not served), written 0600 in a 0700 directory, is
// what the next one reads, for its origin only: another origin's view
// has none of it.
func TestKeptForTheNextLaunch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	now := newClock()
	var l logLines
	f := openAt(dir, now, &l)
	f.For(a).KeepCard(cardA)
	f.For(a).KeepAbsent(a, "fs-roots")
	f.For(a).KeepAbsent(a, "handoff")
	f.Close(10 * time.Second)

	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(dir, FileName))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("the file: %v, %v; want mode 0600", fi, err)
		}
		if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
			t.Errorf("the directory: %v, %v; want mode 0700", di, err)
		}
	}

	next := openAt(dir, now, &l)
	got := next.For(a).Card(cardA.URL)
	if got == nil || !bytes.Equal(got.Body, cardA.Body) || got.ETag != cardA.ETag || got.LastModified != cardA.LastModified || !got.Checked.Equal(now.now()) {
		t.Fatalf("the next launch reads %+v; want %+v checked %v", got, cardA, now)
	}
	if abs := next.For(a).Absent(a); strings.Join(abs, ",") != "fs-roots,handoff" {
		t.Errorf("absent routes: %v", abs)
	}
	if c := next.For(b).Card(cardA.URL); c != nil {
		t.Errorf("another origin reads a's card: %+v", c)
	}
	if abs := next.For(b).Absent(a); abs != nil {
		t.Errorf("another origin reads a's routes: %v", abs)
	}
	if len(l.lines()) != 0 {
		t.Errorf("logged: %q", l.lines())
	}
}

// TestOlderThanADay: an entry the agent last said more than 24 hours ago
// is not used, and the next write drops it.
func TestOlderThanADay(t *testing.T) {
	dir := t.TempDir()
	now := newClock()
	var l logLines
	f := openAt(dir, now, &l)
	f.For(a).KeepCard(cardA)
	f.For(a).KeepAbsent(a, "config")
	f.Close(10 * time.Second)

	now.add(MaxAge - time.Second)
	if openAt(dir, now, &l).For(a).Card(cardA.URL) == nil {
		t.Fatal("a card a second younger than a day is not used")
	}
	now.add(2 * time.Second)
	late := openAt(dir, now, &l)
	if c := late.For(a).Card(cardA.URL); c != nil {
		t.Errorf("a card older than a day is used: %+v", c)
	}
	if abs := late.For(a).Absent(a); abs != nil {
		t.Errorf("routes older than a day are used: %v", abs)
	}
	late.For(b).KeepAbsent(b, "projects")
	late.Close(10 * time.Second)
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if bytes.Contains(data, []byte(a)) || !bytes.Contains(data, []byte(b)) {
		t.Errorf("the write kept what was older than a day:\n%s", data)
	}
}

// TestBounded: the file holds at most 32 origins (the newest), no card
// over 256 KiB, and stays under 1 MiB, dropping the oldest cards.
func TestBounded(t *testing.T) {
	dir := t.TempDir()
	now := newClock()
	var l logLines
	f := openAt(dir, now, &l)
	big := bytes.Repeat([]byte("x"), maxCard/2)
	for i := range 40 {
		o := fmt.Sprintf("https://agent%d.example", i)
		f.For(o).KeepCard(Card{URL: o + "/card", Body: big})
		now.add(time.Second)
	}
	huge := Card{URL: a + "/card", Body: bytes.Repeat([]byte("y"), maxCard+1)}
	f.For(a).KeepCard(huge)
	f.Close(10 * time.Second)
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxFile {
		t.Errorf("the file has %d bytes, over %d", len(data), maxFile)
	}
	var d disk
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Origins) > maxOrigins || len(d.Origins) == 0 {
		t.Errorf("%d origins kept", len(d.Origins))
	}
	if d.Origins[a] != nil {
		t.Error("a card over 256 KiB was kept")
	}
	// The newest card is kept, the oldest dropped first.
	if d.Origins["https://agent39.example"] == nil || d.Origins["https://agent0.example"] != nil {
		t.Errorf("kept %d origins, not the newest", len(d.Origins))
	}
	// Entry counts within one origin.
	g := openAt(t.TempDir(), now, &l)
	for i := range 40 {
		g.For(b).KeepAbsent(fmt.Sprintf("%s/agents/%d", b, i%6), fmt.Sprintf("route-%d", i))
		now.add(time.Second)
	}
	g.Close(10 * time.Second)
	data, _ = os.ReadFile(g.Path())
	d = disk{}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if n := len(d.Origins[b].Absent); n != maxBases {
		t.Errorf("%d bases kept, want %d", n, maxBases)
	}
	for base, routes := range d.Origins[b].Absent {
		if len(routes) > maxRoutes {
			t.Errorf("%s: %d routes", base, len(routes))
		}
	}
}

// TestUnreadableReadAsEmpty: a file that is not JSON, of another
// version, or a symbolic link is read as empty (nothing remembered), said
// in the log once however often it is read, and replaced by the next
// write: the link itself, its target never read nor written.
func TestUnreadableReadAsEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"not JSON", func(t *testing.T, path string) { write(t, path, "{not json") }},
		{"another version", func(t *testing.T, path string) { write(t, path, `{"version": 2, "origins": {}}`) }},
		{"origins not an object", func(t *testing.T, path string) { write(t, path, `{"version": 1, "origins": []}`) }},
		{"symbolic link", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			good := Open(filepath.Dir(target), nil)
			good.For(a).KeepCard(cardA)
			good.Close(10 * time.Second)
			if err := os.Rename(good.Path(), target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Skip("no symbolic links here:", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			tc.make(t, path)
			var target []byte
			if dest, err := os.Readlink(path); err == nil {
				target, _ = os.ReadFile(dest)
				defer func() {
					if got, _ := os.ReadFile(dest); !bytes.Equal(got, target) {
						t.Errorf("the link's target changed: %s", got)
					}
				}()
			}
			now := newClock()
			var l logLines
			f := openAt(dir, now, &l)
			if c := f.For(a).Card(cardA.URL); c != nil {
				t.Errorf("read %+v from an unreadable file", c)
			}
			if abs := f.For(a).Absent(a); abs != nil {
				t.Errorf("read %v from an unreadable file", abs)
			}
			f.For(b).KeepAbsent(b, "config")
			f.Close(10 * time.Second)
			if n := len(l.lines()); n != 1 || !strings.Contains(l.lines()[0], "unreadable") {
				t.Errorf("logged %d line(s), want one saying it is unreadable: %q", n, l.lines())
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("not replaced by a regular file: %v %v", fi, err)
			}
			again := openAt(dir, now, &l)
			if abs := again.For(b).Absent(b); strings.Join(abs, ",") != "config" {
				t.Errorf("after the write: %v", abs)
			}
			if len(l.lines()) != 1 {
				t.Errorf("the new file is reported too: %q", l.lines())
			}
		})
	}
}

// TestTooLargeReadAsEmpty: a file over 1 MiB is not read whole: empty,
// one line in the log.
func TestTooLargeReadAsEmpty(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, FileName), `{"version": 1, "origins": {}, "pad": "`+strings.Repeat("z", maxFile)+`"}`)
	now := newClock()
	var l logLines
	if c := openAt(dir, now, &l).For(a).Card(cardA.URL); c != nil || len(l.lines()) != 1 {
		t.Errorf("card %v, log %q", c, l.lines())
	}
}

// TestFailedWriteLeavesNothing: a write that cannot be made (the state
// directory's place is a file) is said once in the log, and leaves
// nothing behind; the process keeps what it learnt.
func TestFailedWriteLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	blocker := filepath.Join(parent, "state")
	write(t, blocker, "a file where the directory should be")
	now := newClock()
	var l logLines
	f := openAt(blocker, now, &l)
	f.For(a).KeepCard(cardA)
	f.Close(10 * time.Second)
	f.For(a).KeepAbsent(a, "config")
	f.Close(10 * time.Second)
	var failed int
	for _, line := range l.lines() {
		if strings.Contains(line, "not written") {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("the failed writes are said %d times: %q", failed, l.lines())
	}
	des, _ := os.ReadDir(parent)
	if len(des) != 1 {
		t.Errorf("left behind: %v", des)
	}
	if f.For(a).Card(cardA.URL) == nil {
		t.Error("the process forgot the card it kept")
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestNilRemembersNothing: a nil File and its nil Origin are usable and
// remember nothing.
func TestNilRemembersNothing(t *testing.T) {
	var f *File
	o := f.For(a)
	o.KeepCard(cardA)
	o.KeepAbsent(a, "config")
	if o.Card(cardA.URL) != nil || o.Absent(a) != nil {
		t.Error("a nil File remembers")
	}
	f.Close(time.Second)
}

// armed is a writer's timer a test fires by hand.
type armed struct {
	after   time.Duration
	fire    func()
	stopped bool
}

func (a *armed) Stop() bool {
	was := !a.stopped
	a.stopped = true
	return was
}

// TestLaunchWritesOnceAfterItsRequests: the changes a launch keeps wait
// settleWrite for one another and make one write, none beside the
// requests that found them (SPEC §19); Close writes at once what still
// waits.
func TestLaunchWritesOnceAfterItsRequests(t *testing.T) {
	for _, end := range []string{"the timer", "Close"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			var l logLines
			f := openAt(dir, newClock(), &l)
			var timers []*armed
			f.afterFunc = func(d time.Duration, fn func()) interface{ Stop() bool } {
				tm := &armed{after: d, fire: fn}
				timers = append(timers, tm)
				return tm
			}
			f.For(a).KeepCard(cardA)
			f.For(a).KeepAbsent(a, "config")
			if len(timers) != 1 || timers[0].after != settleWrite {
				t.Fatalf("timers armed: %d (want one of %s)", len(timers), settleWrite)
			}
			if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("written before its timer: %v", err)
			}
			if end == "the timer" {
				timers[0].fire()
			} else {
				f.Close(10 * time.Second)
				if !timers[0].stopped {
					t.Error("Close left the timer armed")
				}
			}
			again := openAt(dir, newClock(), &l)
			if again.For(a).Card(cardA.URL) == nil || strings.Join(again.For(a).Absent(a), ",") != "config" {
				t.Errorf("one write did not hold both changes: card %v, absent %v", again.For(a).Card(cardA.URL), again.For(a).Absent(a))
			}
			f.For(a).KeepAbsent(a, "roots")
			if len(timers) != 2 {
				t.Errorf("a change after the write armed %d timers in all, want 2", len(timers))
			}
		})
	}
}

// TestLoadReadsAhead: Load reads the file once, ahead of the first
// question; a change made on disk after it is not seen by this process.
func TestLoadReadsAhead(t *testing.T) {
	dir := t.TempDir()
	var l logLines
	w := openAt(dir, newClock(), &l)
	w.For(a).KeepCard(cardA)
	w.Close(10 * time.Second)
	f := openAt(dir, newClock(), &l)
	f.Load()
	if err := os.Remove(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if f.For(a).Card(cardA.URL) == nil {
		t.Error("the card read by Load was not kept")
	}
	var nilFile *File
	nilFile.Load()
}
