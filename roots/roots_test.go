package roots

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// abs turns a slash path like "/x/y" into an absolute path on this OS.
func abs(p string) string {
	if runtime.GOOS == "windows" {
		return `C:` + filepath.FromSlash(p)
	}
	return p
}

// logRecorder is a slog.Handler that keeps every record.
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r)
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// has reports whether a record at level mentions all of words in its
// message or attribute values.
func (h *logRecorder) has(level slog.Level, words ...string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.recs {
		if r.Level != level {
			continue
		}
		text := r.Message
		r.Attrs(func(a slog.Attr) bool { text += " " + a.Value.String(); return true })
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			return true
		}
	}
	return false
}

// fakeClock is a manual clock for the reload limits.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeLoader is a Loader whose answer the test sets, counting its calls.
type fakeLoader struct {
	mu    sync.Mutex
	roots []Root
	err   error
	calls int
}

func (l *fakeLoader) set(roots []Root, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roots, l.err = roots, err
}

func (l *fakeLoader) load(context.Context) ([]Root, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	return slices.Clone(l.roots), l.err
}

func (l *fakeLoader) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

func TestParseOverride(t *testing.T) {
	tests := []struct {
		in      string
		want    Root
		wantErr bool
	}{
		{in: "a=" + abs("/x"), want: Root{"a", abs("/x")}},
		{in: " a = " + abs("/x/../y/") + " ", want: Root{"a", abs("/y")}},
		{in: "a=" + abs("/x=y"), want: Root{"a", abs("/x=y")}},
		{in: "a=~/dev/a", want: Root{"a", "~/dev/a"}},
		{in: "a=~", want: Root{"a", "~"}},
		{in: "a=rel/x", wantErr: true},
		{in: "a=./x", wantErr: true},
		{in: "a=~other/x", wantErr: true},
		{in: "=" + abs("/x"), wantErr: true},
		{in: "a=", wantErr: true},
		{in: abs("/x"), wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseOverride(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseOverride(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && got != tt.want {
			t.Errorf("ParseOverride(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestHomeExpansion: ~ and ~/x are expanded against home in overrides and
// loaded paths; relative results are dropped, with a debug log for an
// override and a warning for a root from the server. Only an override may
// be the home directory itself.
func TestHomeExpansion(t *testing.T) {
	home := abs("/home/u")
	rec := &logRecorder{}
	ld := &fakeLoader{roots: []Root{
		{"l1", "~/dev/l1"},
		{"l2", "~"},
		{"lrel", "dev/lrel"},
		{"ltilde", "~bob/x"},
	}}
	m := New([]Root{
		{"o1", "~/dev/o1"},
		{"o2", "~"},
		{"orel", "rel/o"},
		{"o3", abs("/srv/o3/")},
	}, ld.load, home, slog.New(rec))
	if err := m.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"o1":     filepath.Join(home, "dev", "o1"),
		"o2":     home,
		"o3":     abs("/srv/o3"),
		"orel":   "",
		"l1":     filepath.Join(home, "dev", "l1"),
		"l2":     "",
		"lrel":   "",
		"ltilde": "",
	}
	for name, path := range want {
		got, ok := m.Lookup(name)
		if ok != (path != "") || got != path {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, got, ok, path)
		}
	}
	if !rec.has(slog.LevelDebug, "relative", "orel") {
		t.Errorf("no debug log for the dropped root %q", "orel")
	}
	for _, name := range []string{"lrel", "ltilde"} {
		if !rec.has(slog.LevelWarn, "refused", "not an absolute path", name) {
			t.Errorf("no warning for the refused root %q", name)
		}
	}

	// With no home, ~ cannot be expanded and the root is dropped.
	m = New([]Root{{"a", "~/a"}}, nil, "", nil)
	if p, ok := m.Lookup("a"); ok {
		t.Errorf("Lookup(a) with no home = %q, want dropped", p)
	}
}

// TestPriority: overrides > loaded (first wins) > learned, and a reload
// lets a loaded root take a name over from a learned one.
func TestPriority(t *testing.T) {
	ld := &fakeLoader{roots: []Root{
		{"p", abs("/loaded/p")},
		{"q", abs("/loaded/q1")},
		{"q", abs("/loaded/q2")},
	}}
	clock := newClock()
	m := newMap([]Root{
		{"p", abs("/override/p")},
		{"p", abs("/override/p2")},
	}, ld.load, "", nil, clock.now)
	if m.Known() != true {
		t.Fatal("Known() = false with an override")
	}
	if err := m.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Learn("- p [rw] " + abs("/learned/p") + "\n- q [rw] " + abs("/learned/q") + "\n- r [ro] " + abs("/learned/r") + "\n")
	check := func(want map[string]string) {
		t.Helper()
		for name, path := range want {
			if got, _ := m.Lookup(name); got != path {
				t.Errorf("Lookup(%q) = %q, want %q", name, got, path)
			}
		}
	}
	check(map[string]string{"p": abs("/override/p"), "q": abs("/loaded/q1"), "r": abs("/learned/r")})
	gotOrder := m.Roots()
	wantOrder := []Root{{"p", abs("/override/p")}, {"q", abs("/loaded/q1")}, {"r", abs("/learned/r")}}
	if !slices.Equal(gotOrder, wantOrder) {
		t.Errorf("Roots() = %v, want %v", gotOrder, wantOrder)
	}

	// The server now reports r and s: loaded beats learned.
	ld.set([]Root{{"r", abs("/loaded/r")}, {"s", abs("/loaded/s")}}, nil)
	if !m.ReloadFor(context.Background(), "s") {
		t.Fatal("ReloadFor(s) = false after the server added it")
	}
	check(map[string]string{"p": abs("/override/p"), "r": abs("/loaded/r"), "s": abs("/loaded/s")})
	// q left the server's list: the learned q, kept below it, shows now.
	check(map[string]string{"q": abs("/learned/q")})
}

// TestLoad: the loader runs once for any number of Load calls; a failure
// is logged, returned, and retried only after ReloadInterval.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	t.Run("once", func(t *testing.T) {
		ld := &fakeLoader{roots: []Root{{"a", abs("/a")}}}
		clock := newClock()
		m := newMap(nil, ld.load, "", nil, clock.now)
		if m.Known() {
			t.Fatal("Known() before Load")
		}
		for range 3 {
			if err := m.Load(ctx); err != nil {
				t.Fatal(err)
			}
			clock.advance(time.Hour) // a success is final, however late
		}
		if n := ld.count(); n != 1 {
			t.Errorf("loader called %d times, want 1", n)
		}
		if !m.Known() {
			t.Error("Known() = false after Load")
		}
	})
	t.Run("failure", func(t *testing.T) {
		boom := errors.New("boom")
		ld := &fakeLoader{err: boom}
		rec := &logRecorder{}
		clock := newClock()
		m := newMap([]Root{{"o", abs("/o")}}, ld.load, "", slog.New(rec), clock.now)
		if err := m.Load(ctx); !errors.Is(err, boom) {
			t.Fatalf("Load() = %v, want %v", err, boom)
		}
		if !rec.has(slog.LevelWarn, "boom") {
			t.Error("the failed load was not logged at warn")
		}
		if p, ok := m.Lookup("o"); !ok || p != abs("/o") {
			t.Errorf("override lost after a failed load: %q, %v", p, ok)
		}
		clock.advance(ReloadInterval - time.Second)
		if err := m.Load(ctx); !errors.Is(err, boom) {
			t.Errorf("second Load() = %v, want the first error", err)
		}
		if n := ld.count(); n != 1 {
			t.Errorf("loader called %d times within the interval, want 1", n)
		}
		clock.advance(time.Second)
		ld.set([]Root{{"a", abs("/a")}}, nil)
		if err := m.Load(ctx); err != nil {
			t.Errorf("Load() after the interval = %v", err)
		}
		if n := ld.count(); n != 2 {
			t.Errorf("loader called %d times, want 2", n)
		}
		if _, ok := m.Lookup("a"); !ok {
			t.Error("a unknown after a successful retry")
		}
	})
	t.Run("nil loader", func(t *testing.T) {
		m := New(nil, nil, "", nil)
		if err := m.Load(ctx); err != nil {
			t.Errorf("Load() = %v", err)
		}
		if m.ReloadFor(ctx, "x") {
			t.Error("ReloadFor(x) = true with no loader")
		}
	})
}

// TestReloadFor: an unknown name reloads at most once per ReloadInterval
// per name; a known name never reloads; a failing loader is not fatal.
func TestReloadFor(t *testing.T) {
	ctx := context.Background()
	ld := &fakeLoader{roots: []Root{{"a", abs("/a")}}}
	rec := &logRecorder{}
	clock := newClock()
	m := newMap(nil, ld.load, "", slog.New(rec), clock.now)

	steps := []struct {
		advance time.Duration
		set     []Root // when non-nil, the loader's next answer
		fail    bool
		name    string
		want    bool
		calls   int // total loader calls after the step
	}{
		{name: "a", want: true, calls: 1},                // unknown at first: loads
		{name: "a", want: true, calls: 1},                // known: no load
		{name: "x", want: false, calls: 2},               // unknown: loads
		{advance: 10 * time.Second, name: "x", calls: 2}, // throttled
		{name: "y", want: false, calls: 3},               // another name has its own limit
		{advance: 19 * time.Second, set: []Root{{"x", abs("/x")}}, name: "x", calls: 3},
		{advance: time.Second, name: "x", want: true, calls: 4}, // 30 s since x's reload
		{set: []Root{{"x", abs("/x")}, {"z", abs("/z")}}, fail: true, name: "z", calls: 5},
		{advance: 29 * time.Second, name: "z", calls: 5},
		{advance: time.Second, name: "z", want: true, calls: 6},
		{name: "", calls: 6},
	}
	for i, s := range steps {
		clock.advance(s.advance)
		if s.set != nil {
			ld.set(s.set, nil)
		}
		if s.fail {
			ld.set(s.set, errors.New("unreachable"))
		}
		got := m.ReloadFor(ctx, s.name)
		if s.fail {
			ld.set(s.set, nil)
		}
		if got != s.want {
			t.Errorf("step %d: ReloadFor(%q) = %v, want %v", i, s.name, got, s.want)
		}
		if n := ld.count(); n != s.calls {
			t.Errorf("step %d: loader called %d times, want %d", i, n, s.calls)
		}
	}
	if !rec.has(slog.LevelWarn, "unreachable") {
		t.Error("the failed reload was not logged at warn")
	}
	// A successful ReloadFor counts as the initial load.
	if err := m.Load(ctx); err != nil || ld.count() != 6 {
		t.Errorf("Load() after reloads = %v with %d calls, want nil with 6", err, ld.count())
	}
}

func TestContaining(t *testing.T) {
	m := New([]Root{
		{"r", abs("/r")},
		{"sub", abs("/r/sub")},
		{"deep", abs("/r/sub/deep")},
		{"root", abs("/root")},
		{"alias", abs("/r")}, // same path as r: r has priority
		{"top", abs("/")},    // only --root may name the file system root
	}, nil, "", nil)
	tests := []struct {
		dir  string
		want string // root name, "" for none
	}{
		{abs("/r"), "r"},
		{abs("/r/"), "r"},
		{abs("/r/a/b"), "r"},
		{abs("/r/sub"), "sub"},
		{abs("/r/sub/x"), "sub"},
		{abs("/r/subway"), "r"},
		{abs("/r/sub/deep/er"), "deep"},
		{abs("/r/sub/deeper"), "sub"},
		{abs("/r/sub/../x"), "r"},
		{abs("/root/a"), "root"},
		{abs("/rootX"), "top"},
		{abs("/elsewhere"), "top"},
		{"r/sub", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := m.Containing(tt.dir)
		if ok != (tt.want != "") || got.Name != tt.want {
			t.Errorf("Containing(%q) = %+v, %v; want %q", tt.dir, got, ok, tt.want)
		}
	}

	// Without the catch-all root, a directory outside every root and a
	// string-prefix sibling are outside.
	m = New([]Root{{"root", abs("/root")}}, nil, "", nil)
	for _, dir := range []string{abs("/rootX"), abs("/rootX/a"), abs("/roo"), abs("/")} {
		if got, ok := m.Containing(dir); ok {
			t.Errorf("Containing(%q) = %+v, want none", dir, got)
		}
	}
}

// TestContainingSymlinkedDir: a cwd reached through a symlink still lies
// in the root it really is in.
func TestContainingSymlinkedDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "real", "proj")
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "real"), filepath.Join(tmp, "link")); err != nil {
		t.Fatal(err)
	}
	m := New([]Root{{"proj", proj}}, nil, "", nil)
	got, ok := m.Containing(filepath.Join(tmp, "link", "proj", "sub"))
	if !ok || got.Name != "proj" {
		t.Errorf("Containing(link/proj/sub) = %+v, %v; want proj", got, ok)
	}
	if got, ok := m.Containing(filepath.Join(tmp, "link")); ok {
		t.Errorf("Containing(link) = %+v, want none", got)
	}
}

// TestConcurrentUse exercises every method at once; run with -race.
func TestConcurrentUse(t *testing.T) {
	ld := &fakeLoader{roots: []Root{{"a", abs("/a")}}}
	m := New([]Root{{"o", abs("/o")}}, ld.load, "", nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				switch (i + j) % 7 {
				case 0:
					_ = m.Load(ctx)
				case 1:
					m.ReloadFor(ctx, "n"+string(rune('a'+j%5)))
				case 2:
					m.Learn("- l" + string(rune('a'+j%5)) + " [rw] " + abs("/l") + "\n")
				case 3:
					m.Lookup("a")
				case 4:
					m.Containing(abs("/a/x"))
				case 5:
					m.Resolve("o", "x/y")
				case 6:
					m.Known()
					m.Roots()
				}
			}
		})
	}
	wg.Wait()
	if _, ok := m.Lookup("a"); !ok {
		t.Error("a unknown after concurrent loads")
	}
}
