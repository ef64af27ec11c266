package threads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shimdev/shim/internal/privfile"
)

// Child processes: the test binary re-executed with childEnv naming a mode.
const (
	childEnv    = "SHIM_THREADS_TEST_CHILD"
	childDir    = "SHIM_THREADS_TEST_DIR"
	childWorker = "SHIM_THREADS_TEST_WORKER"
	childCount  = "SHIM_THREADS_TEST_COUNT"
	crashExit   = 3
	testServer  = "https://agents.example.test"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "writer":
		os.Exit(childWriter())
	case "crash":
		os.Exit(childCrash())
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode")
		os.Exit(2)
	}
}

// childWriter waits for stdin to close (so all writers start together), then
// writes count entries of its own and count task ids to one shared entry.
func childWriter() int {
	worker := os.Getenv(childWorker)
	count, err := strconv.Atoi(os.Getenv(childCount))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	ix := Open(os.Getenv(childDir), nil)
	for j := range count {
		id := fmt.Sprintf("w%s-%d", worker, j)
		if err := ix.Update(testServer, id, func(e *Entry) { e.CWD = "/src/" + id }); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := addTask(ix, testServer, "shared", "t"+id); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// childCrash is a writer that dies after its temp file is written and
// synced, before the rename: it holds the lock, writes the index with its
// entry added as a write does (privfile.WriteTemp, the first half of
// privfile.Replace) and exits.
func childCrash() int {
	ix := Open(os.Getenv(childDir), nil)
	if _, _, err := privfile.Lock(ix.Path(), time.Now); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	members, _, err := ix.file.Read()
	d, err := documentOf(ix.Path(), members, err)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	d.servers[testServer]["doomed"] = Entry{Title: "never renamed"}
	data, err := d.encode()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp, err := privfile.WriteTemp(ix.Path(), data)
	if _, serr := os.Stat(tmp); err != nil || serr != nil {
		fmt.Fprintln(os.Stderr, "temp file missing at crash point:", err, serr)
		return 1
	}
	os.Exit(crashExit)
	return 1
}

// addTask records taskID for the entry (server, id) as a turn does.
func addTask(ix *Index, server, id, taskID string) error {
	return ix.Update(server, id, func(e *Entry) { e.AddTask(taskID) })
}

func childCmd(t *testing.T, mode, dir string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childDir+"="+dir)
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

// fixedClock returns a clock that starts at start and advances one second per call.
func fixedClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	t := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := t
		t = t.Add(time.Second)
		return now
	}
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// dirNames lists the names in dir that start with prefix.
func dirNames(t *testing.T, dir, prefix string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), prefix) {
			names = append(names, de.Name())
		}
	}
	return names
}

func mustUpdate(t *testing.T, ix *Index, server, id string, fn func(*Entry)) {
	t.Helper()
	if err := ix.Update(server, id, fn); err != nil {
		t.Fatalf("Update(%q, %q): %v", server, id, err)
	}
}

func mustGet(t *testing.T, ix *Index, server, id string) Entry {
	t.Helper()
	e, ok, err := ix.Get(server, id)
	if err != nil || !ok {
		t.Fatalf("Get(%q, %q) = ok %v, err %v; want the entry", server, id, ok, err)
	}
	return e
}

func TestFileFormat(t *testing.T) {
	dir := t.TempDir()
	cet := time.FixedZone("CET", 3600)
	ix := open(dir, nil, fixedClock(time.Date(2025, 1, 2, 3, 4, 5, 0, cet)))
	mustUpdate(t, ix, testServer, "s-1", func(e *Entry) {
		e.CWD = "/src/p"
		e.Title = "Fix the build"
	})
	mustUpdate(t, ix, testServer, "s-1", func(e *Entry) {
		e.AddTask("task-1")
		e.UpdatedAt = time.Date(2025, 1, 2, 3, 4, 6, 0, cet)
	})

	data, err := os.ReadFile(ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("{\n  \"version\": 1,\n  \"servers\": {")) {
		t.Errorf("file does not start with version then servers:\n%s", data)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(top)); !reflect.DeepEqual(got, []string{"servers", "version"}) {
		t.Errorf("top-level keys = %v", got)
	}
	var servers map[string]map[string]map[string]any
	if err := json.Unmarshal(top["servers"], &servers); err != nil {
		t.Fatal(err)
	}
	entry, ok := servers[testServer]["s-1"]
	if !ok {
		t.Fatalf("servers = %v; want %s/s-1", servers, testServer)
	}
	want := map[string]any{
		"cwd":       "/src/p",
		"title":     "Fix the build",
		"createdAt": "2025-01-02T03:04:05+01:00",
		"updatedAt": "2025-01-02T03:04:06+01:00",
		"taskIds":   []any{"task-1"},
	}
	if !reflect.DeepEqual(entry, want) {
		t.Errorf("entry = %#v\nwant    %#v", entry, want)
	}
}

func TestReadWithoutFile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string
	}{
		{"no directory", func(t *testing.T) string { return filepath.Join(t.TempDir(), "state", "shim") }},
		{"empty directory", func(t *testing.T) string { return t.TempDir() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			ix := Open(dir, nil)
			if _, ok, err := ix.Get(testServer, "x"); ok || err != nil {
				t.Errorf("Get = ok %v, err %v; want false, nil", ok, err)
			}
			if items, err := ix.List(testServer); len(items) != 0 || err != nil {
				t.Errorf("List = %v, %v; want empty, nil", items, err)
			}
			if all, err := ix.All(); len(all) != 0 || err != nil {
				t.Errorf("All = %v, %v; want empty, nil", all, err)
			}
			if _, err := os.Stat(ix.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a read created the index file (stat err %v)", err)
			}
		})
	}
}

func TestModesEnforced(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes")
	}
	tests := []struct {
		name            string
		fileMode, dMode fs.FileMode // 0: leave as created; dir missing when dMode is 0 and fresh
		fresh           bool
	}{
		{name: "created", fresh: true},
		{name: "file widened", fileMode: 0o644},
		{name: "directory widened", dMode: 0o755},
		{name: "both widened", fileMode: 0o666, dMode: 0o777},
		{name: "file narrowed", fileMode: 0o400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state", "shim")
			ix := Open(dir, nil)
			if !tt.fresh {
				mustUpdate(t, ix, testServer, "first", func(*Entry) {})
				if tt.fileMode != 0 {
					if err := os.Chmod(ix.Path(), tt.fileMode); err != nil {
						t.Fatal(err)
					}
				}
				if tt.dMode != 0 {
					if err := os.Chmod(dir, tt.dMode); err != nil {
						t.Fatal(err)
					}
				}
			}
			mustUpdate(t, ix, testServer, "second", func(*Entry) {})
			if got := perm(t, ix.Path()); got != 0o600 {
				t.Errorf("file mode = %o, want 600", got)
			}
			if got := perm(t, dir); got != 0o700 {
				t.Errorf("directory mode = %o, want 700", got)
			}
		})
	}
}

func TestUpdateKeepsOthers(t *testing.T) {
	dir := t.TempDir()
	ix := Open(dir, nil)
	const other = "https://other.example.test/agents/x"
	initial := `{
  "version": 1,
  "servers": {
    "` + testServer + `": {
      "a": {"cwd": "/a", "title": "A", "createdAt": "2024-05-01T10:00:00Z", "updatedAt": "2024-05-02T10:00:00Z", "taskIds": ["t1", "t2"], "future": true}
    },
    "` + other + `": {
      "b": {"title": "B", "createdAt": "2024-06-01T10:00:00+02:00", "updatedAt": "2024-06-01T11:00:00+02:00"}
    }
  },
  "lastCompaction": {"at": "2024-07-01T00:00:00Z"}
}`
	if err := os.WriteFile(ix.Path(), []byte(initial), 0o600); err != nil {
		t.Fatal(err)
	}
	before, err := ix.All()
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, ix, testServer, "new", func(e *Entry) { e.CWD = "/n" })
	after, err := ix.All()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after[other], before[other]) {
		t.Errorf("other server's entries changed:\n got %+v\nwant %+v", after[other], before[other])
	}
	if a := mustGet(t, ix, testServer, "a"); !reflect.DeepEqual(a, before[testServer][0].Entry) {
		t.Errorf("sibling entry changed: got %+v, want %+v", a, before[testServer][0].Entry)
	}
	if n := mustGet(t, ix, testServer, "new"); n.CWD != "/n" {
		t.Errorf("new entry = %+v", n)
	}
	data, err := os.ReadFile(ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	var extra struct{ At string }
	if err := json.Unmarshal(top["lastCompaction"], &extra); err != nil || extra.At != "2024-07-01T00:00:00Z" {
		t.Errorf("unknown top-level field not preserved: %s (%v)", top["lastCompaction"], err)
	}
	// Documented: unknown entry fields are not kept.
	if bytes.Contains(data, []byte(`"future"`)) {
		t.Errorf("unknown entry field kept, contrary to the package doc:\n%s", data)
	}
}

func TestEntryTimestampsAndHelpers(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	set := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name                 string
		steps                func(ix *Index) error
		wantCreated, wantUpd time.Time
		wantTitle            string
		wantTasks            []string
	}{
		{
			name:        "new entry gets createdAt and updatedAt from the clock",
			steps:       func(ix *Index) error { return ix.Update(testServer, "s", func(*Entry) {}) },
			wantCreated: t0, wantUpd: t0,
		},
		{
			name: "createdAt and updatedAt set by fn are kept",
			steps: func(ix *Index) error {
				return ix.Update(testServer, "s", func(e *Entry) { e.CreatedAt, e.UpdatedAt = set, set.Add(time.Hour) })
			},
			wantCreated: set, wantUpd: set.Add(time.Hour),
		},
		{
			name: "a later Update keeps createdAt and does not bump updatedAt",
			steps: func(ix *Index) error {
				if err := ix.Update(testServer, "s", func(*Entry) {}); err != nil {
					return err
				}
				return ix.Update(testServer, "s", func(e *Entry) { e.CWD = "/x" })
			},
			wantCreated: t0, wantUpd: t0,
		},
		{
			name: "a title set later does not bump updatedAt",
			steps: func(ix *Index) error {
				if err := ix.Update(testServer, "s", func(*Entry) {}); err != nil {
					return err
				}
				return ix.Update(testServer, "s", func(e *Entry) { e.Title = "hello" })
			},
			wantCreated: t0, wantUpd: t0, wantTitle: "hello",
		},
		{
			name: "a task added through Update once, updatedAt not bumped",
			steps: func(ix *Index) error {
				for _, id := range []string{"t1", "t2", "t1"} {
					if err := addTask(ix, testServer, "s", id); err != nil {
						return err
					}
				}
				return nil
			},
			wantCreated: t0, wantUpd: t0,
			wantTasks: []string{"t1", "t2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := open(t.TempDir(), nil, fixedClock(t0))
			if err := tt.steps(ix); err != nil {
				t.Fatal(err)
			}
			e := mustGet(t, ix, testServer, "s")
			if !e.CreatedAt.Equal(tt.wantCreated) || !e.UpdatedAt.Equal(tt.wantUpd) {
				t.Errorf("createdAt, updatedAt = %v, %v; want %v, %v", e.CreatedAt, e.UpdatedAt, tt.wantCreated, tt.wantUpd)
			}
			if e.Title != tt.wantTitle || !slices.Equal(e.TaskIDs, tt.wantTasks) {
				t.Errorf("title %q tasks %v; want %q %v", e.Title, e.TaskIDs, tt.wantTitle, tt.wantTasks)
			}
		})
	}
}

func TestUpdateRejectsEmptyKeys(t *testing.T) {
	ix := Open(t.TempDir(), nil)
	for _, k := range [][2]string{{"", "id"}, {testServer, ""}} {
		if err := ix.Update(k[0], k[1], func(*Entry) {}); err == nil {
			t.Errorf("Update(%q, %q) = nil; want an error", k[0], k[1])
		}
	}
}

func TestListNewestFirst(t *testing.T) {
	ix := Open(t.TempDir(), nil)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const other = "https://other.example.test"
	rows := []struct {
		server, id string
		updated    time.Duration
	}{
		{testServer, "old", 1 * time.Hour},
		{testServer, "newest", 5 * time.Hour},
		{testServer, "middle", 3 * time.Hour},
		{other, "o-old", 2 * time.Hour},
		{other, "o-new", 4 * time.Hour},
	}
	for _, r := range rows {
		mustUpdate(t, ix, r.server, r.id, func(e *Entry) {
			e.CreatedAt = base
			e.UpdatedAt = base.Add(r.updated)
		})
	}
	ids := func(items []Item) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	list, err := ix.List(testServer)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(list), []string{"newest", "middle", "old"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	all, err := ix.All()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{testServer: {"newest", "middle", "old"}, other: {"o-new", "o-old"}}
	got := map[string][]string{}
	for s, items := range all {
		got[s] = ids(items)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("All = %v, want %v", got, want)
	}
}

func TestCorruptFileMovedAside(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"not JSON", `{"version": 1, "servers": {`},
		{"empty", ``},
		{"wrong version", `{"version": 2, "servers": {}}`},
		{"no version", `{"servers": {}}`},
		{"servers not an object", `{"version": 1, "servers": ["x"]}`},
		{"bad timestamp", `{"version": 1, "servers": {"u": {"s": {"createdAt": "yesterday"}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var logs bytes.Buffer
			ix := open(dir, slog.New(slog.NewJSONHandler(&logs, nil)), fixedClock(time.Unix(1700000000, 0)))
			if err := os.WriteFile(ix.Path(), []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}

			if _, _, err := ix.Get(testServer, "x"); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Get on a corrupt file: err = %v, want ErrCorrupt", err)
			}
			if got := dirNames(t, dir, fileName+".corrupt-"); len(got) != 0 {
				t.Errorf("a read moved the file aside: %v", got)
			}

			mustUpdate(t, ix, testServer, "fresh", func(e *Entry) { e.Title = "new" })

			aside := ix.Path() + ".corrupt-1700000000"
			moved, err := os.ReadFile(aside)
			if err != nil {
				t.Fatalf("moved-aside file: %v (dir has %v)", err, dirNames(t, dir, ""))
			}
			if string(moved) != tt.data {
				t.Errorf("moved-aside bytes = %q, want %q", moved, tt.data)
			}
			all, err := ix.All()
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 || len(all[testServer]) != 1 || all[testServer][0].ID != "fresh" || all[testServer][0].Title != "new" {
				t.Errorf("new index = %+v; want only the fresh entry", all)
			}
			var rec struct {
				Level, Msg, MovedTo string
			}
			if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
				t.Fatalf("log %q: %v", logs.String(), err)
			}
			if rec.Level != "WARN" || rec.MovedTo != aside {
				t.Errorf("log = %+v; want a WARN naming %s", rec, aside)
			}
		})
	}
}

func TestCorruptTwiceInOneSecondKeepsBoth(t *testing.T) {
	dir := t.TempDir()
	ix := open(dir, nil, func() time.Time { return time.Unix(1700000000, 0) })
	for _, junk := range []string{"first junk", "second junk"} {
		if err := os.WriteFile(ix.Path(), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, ix, testServer, "s", func(*Entry) {})
	}
	var contents []string
	for _, name := range dirNames(t, dir, fileName+".corrupt-") {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		contents = append(contents, string(b))
	}
	slices.Sort(contents)
	if want := []string{"first junk", "second junk"}; !slices.Equal(contents, want) {
		t.Errorf("moved-aside contents = %q, want %q", contents, want)
	}
}

// checkConcurrentResult verifies that every writer's entries and task ids are present.
func checkConcurrentResult(t *testing.T, ix *Index, workers, count int) {
	t.Helper()
	items, err := ix.List(testServer)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Entry{}
	for _, it := range items {
		byID[it.ID] = it.Entry
	}
	var wantTasks []string
	for w := range workers {
		for j := range count {
			id := fmt.Sprintf("w%d-%d", w, j)
			wantTasks = append(wantTasks, "t"+id)
			if e, ok := byID[id]; !ok || e.CWD != "/src/"+id {
				t.Errorf("entry %s = %+v, present %v", id, e, ok)
			}
		}
	}
	if len(byID) != workers*count+1 {
		t.Errorf("%d entries, want %d", len(byID), workers*count+1)
	}
	got := slices.Clone(byID["shared"].TaskIDs)
	slices.Sort(got)
	slices.Sort(wantTasks)
	if !slices.Equal(got, wantTasks) {
		t.Errorf("shared entry has %d task ids, want %d (lost or duplicated)", len(got), len(wantTasks))
	}
	if left := dirNames(t, filepath.Dir(ix.Path()), fileName+".tmp-"); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	if c := dirNames(t, filepath.Dir(ix.Path()), fileName+".corrupt-"); len(c) != 0 {
		t.Errorf("index was found corrupt during concurrent writes: %v", c)
	}
}

func TestConcurrentProcesses(t *testing.T) {
	const workers, count = 8, 25
	dir := filepath.Join(t.TempDir(), "state")
	var cmds []*exec.Cmd
	var gates []io.WriteCloser
	var outs []*bytes.Buffer
	for w := range workers {
		cmd := childCmd(t, "writer", dir, childWorker+"="+strconv.Itoa(w), childCount+"="+strconv.Itoa(count))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, gates, outs = append(cmds, cmd), append(gates, gate), append(outs, out)
	}
	for _, g := range gates {
		g.Close()
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", i, err, outs[i])
		}
	}
	checkConcurrentResult(t, Open(dir, nil), workers, count)
}

func TestConcurrentGoroutines(t *testing.T) {
	const workers, count = 8, 10
	dir := t.TempDir()
	// Two Index values on one file, as two subsystems of one process might have.
	ixs := []*Index{Open(dir, nil), Open(dir, nil)}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		ix := ixs[w%2]
		wg.Go(func() {
			for j := range count {
				id := fmt.Sprintf("w%d-%d", w, j)
				if err := ix.Update(testServer, id, func(e *Entry) { e.CWD = "/src/" + id }); err != nil {
					errs <- err
					return
				}
				if err := addTask(ix, testServer, "shared", "t"+id); err != nil {
					errs <- err
					return
				}
				if _, err := ix.List(testServer); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkConcurrentResult(t, ixs[0], workers, count)
}

func TestCrashBeforeRename(t *testing.T) {
	dir := t.TempDir()
	ix := Open(dir, nil)
	mustUpdate(t, ix, testServer, "kept", func(e *Entry) { e.Title = "still here" })
	original, err := os.ReadFile(ix.Path())
	if err != nil {
		t.Fatal(err)
	}

	cmd := childCmd(t, "crash", dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != crashExit {
		t.Fatalf("crashing child: %v, want exit %d\n%s", err, crashExit, out)
	}

	// The original is intact and readable; the stale temp (the real, synced
	// write) is there but ignored.
	if now, err := os.ReadFile(ix.Path()); err != nil || !bytes.Equal(now, original) {
		t.Fatalf("index changed by the crashed write (err %v):\n%s", err, now)
	}
	temps := dirNames(t, dir, fileName+".tmp-")
	if len(temps) != 1 {
		t.Fatalf("temp files after crash = %v, want one", temps)
	}
	if b, err := os.ReadFile(filepath.Join(dir, temps[0])); err != nil || !bytes.Contains(b, []byte("never renamed")) {
		t.Errorf("stale temp does not hold the crashed write (err %v):\n%s", err, b)
	}
	if e := mustGet(t, ix, testServer, "kept"); e.Title != "still here" {
		t.Errorf("kept = %+v", e)
	}
	if _, ok, err := ix.Get(testServer, "doomed"); ok || err != nil {
		t.Errorf("Get(doomed) = %v, %v; want absent", ok, err)
	}

	// The next write cleans the temp up and keeps everything.
	mustUpdate(t, ix, testServer, "after", func(*Entry) {})
	if left := dirNames(t, dir, fileName+".tmp-"); len(left) != 0 {
		t.Errorf("stale temp not cleaned up: %v", left)
	}
	if c := dirNames(t, dir, fileName+".corrupt-"); len(c) != 0 {
		t.Errorf("index treated as corrupt after crash: %v", c)
	}
	mustGet(t, ix, testServer, "kept")
	mustGet(t, ix, testServer, "after")
	if _, ok, _ := ix.Get(testServer, "doomed"); ok {
		t.Error("the crashed write's entry appeared")
	}
}

// TestTaskIDsCapped: an entry keeps the newest MaxTaskIDs task ids, in
// order, whether they come from AddTask or from an Update that appends
// many at once (a loaded thread).
func TestTaskIDsCapped(t *testing.T) {
	ix := Open(t.TempDir(), nil)
	var want []string
	for i := range MaxTaskIDs + 50 {
		id := fmt.Sprintf("t%d", i)
		want = append(want, id)
		if err := addTask(ix, testServer, "s", id); err != nil {
			t.Fatal(err)
		}
	}
	if got := mustGet(t, ix, testServer, "s").TaskIDs; !slices.Equal(got, want[50:]) {
		t.Errorf("after %d AddTask: %d ids, first %v, want the newest %d", len(want), len(got), got[:1], MaxTaskIDs)
	}
	if err := ix.Update(testServer, "bulk", func(e *Entry) {
		for i := range 3 * MaxTaskIDs {
			e.TaskIDs = append(e.TaskIDs, fmt.Sprintf("b%d", i))
		}
	}); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, ix, testServer, "bulk").TaskIDs
	if len(got) != MaxTaskIDs || got[0] != fmt.Sprintf("b%d", 2*MaxTaskIDs) || got[len(got)-1] != fmt.Sprintf("b%d", 3*MaxTaskIDs-1) {
		t.Errorf("bulk update kept %d ids: %v … %v", len(got), got[:1], got[len(got)-1:])
	}
	var e Entry
	e.AddTask("x")
	e.AddTask("x")
	e.AddTask("")
	if !slices.Equal(e.TaskIDs, []string{"x"}) {
		t.Errorf("Entry.AddTask: %v", e.TaskIDs)
	}
}

// TestWritesLogged: each replacement of the file is logged (at debug),
// once; reads are not.
func TestWritesLogged(t *testing.T) {
	var logs bytes.Buffer
	ix := Open(t.TempDir(), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	writes := func() int { return strings.Count(logs.String(), `msg="thread index written"`) }
	if n := writes(); n != 0 {
		t.Fatalf("%d writes before any", n)
	}
	mustUpdate(t, ix, testServer, "s", func(e *Entry) { e.Title = "a" })
	if _, err := ix.List(testServer); err != nil {
		t.Fatal(err)
	}
	mustGet(t, ix, testServer, "s")
	if err := addTask(ix, testServer, "s", "t"); err != nil {
		t.Fatal(err)
	}
	if n := writes(); n != 2 {
		t.Errorf("%d writes, want 2", n)
	}
}

// TestFailuresKeptWithTheirTasks: a failed turn's text is kept by its task
// id, cut at MaxFailureChars (then "…"), written and read back; it goes when its task
// id falls out of the newest MaxTaskIDs, and when the entry is cut to fit
// MaxEntryBytes with the oldest task ids.
func TestFailuresKeptWithTheirTasks(t *testing.T) {
	ix := Open(t.TempDir(), nil)
	long := strings.Repeat("é", MaxFailureChars+10)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ix.Update(testServer, "s", func(e *Entry) {
		e.AddTask("t0")
		e.SetFailure("t1", "The usage limit has been reached (HTTP 429)")
		e.SetFailure("t2", long)
		e.SetFailure("", "no task")
	}))
	e := mustGet(t, ix, testServer, "s")
	if !slices.Equal(e.TaskIDs, []string{"t0", "t1", "t2"}) || len(e.Failures) != 2 ||
		e.Failures["t1"] != "The usage limit has been reached (HTTP 429)" ||
		utf8.RuneCountInString(e.Failures["t2"]) != MaxFailureChars+1 || !strings.HasSuffix(e.Failures["t2"], "…") {
		t.Fatalf("entry %+v", e)
	}
	must(ix.Update(testServer, "s", func(e *Entry) {
		for i := range MaxTaskIDs - 1 {
			e.AddTask(fmt.Sprintf("n%d", i))
		}
	}))
	if e := mustGet(t, ix, testServer, "s"); len(e.Failures) != 1 || e.Failures["t2"] == "" || e.TaskIDs[0] != "t2" {
		t.Errorf("after t0 and t1 fell out: %v, first task %s", e.Failures, e.TaskIDs[0])
	}
	// Cut to fit: the oldest tasks go, with their failures.
	must(ix.Update(testServer, "big", func(e *Entry) {
		for i := range MaxTaskIDs {
			e.SetFailure(fmt.Sprintf("f%d", i), strings.Repeat("x", MaxFailureChars))
		}
	}))
	big := mustGet(t, ix, testServer, "big")
	if len(big.TaskIDs) == MaxTaskIDs || len(big.Failures) != len(big.TaskIDs) || big.Failures[big.TaskIDs[0]] == "" {
		t.Errorf("a full entry kept %d tasks and %d failures", len(big.TaskIDs), len(big.Failures))
	}
	if n := entrySize("big", big); n > MaxEntryBytes {
		t.Errorf("entry of %d bytes", n)
	}
}
