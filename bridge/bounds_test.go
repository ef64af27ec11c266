package bridge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/threads"
)

// indexEntryBytes is how many bytes the entry of id takes in the
// threads.json at dir (from its id's opening quote to its closing brace),
// read from the file; -1 when it has none.
func indexEntryBytes(t *testing.T, dir, id string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "threads.json"))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := json.Marshal(id)
	start := bytes.Index(b, append(append([]byte("\n      "), key...), []byte(": {")...))
	if start < 0 {
		return -1
	}
	end := bytes.Index(b[start:], []byte("\n      }"))
	if end < 0 {
		t.Fatalf("entry %s does not end", key)
	}
	return end + len("\n      }") - len("\n      ")
}

// TestIndexEntryBounded: one thread's entry in threads.json takes at most
// 64 KiB (SPEC §15), through the built binary: a console hand-off whose
// title is 200 KiB is indexed with the title cut; a session whose cwd
// alone is larger is opened and served but not indexed (the log says
// why).
func TestIndexEntryBounded(t *testing.T) {
	root := t.TempDir()
	api := newOpAPI()
	api.roots = map[string]string{"p": root}
	const claimed = "chat-1790294944966-qkf93w"
	title := strings.Repeat("long title ", 200<<10/11)
	api.claim = func(cwd string) (int, any) {
		if cwd != root {
			return 204, nil
		}
		return 200, map[string]any{"session_id": claimed, "project": "p", "title": title}
	}
	f := withOperator(t, api)
	answering(f, "ok")
	state := t.TempDir()
	s := startBinShim(t, f.url, nil, "--state-dir", state)
	s.init(t)
	if got := s.newSession(t, root); got != claimed {
		t.Fatalf("session/new did not claim the hand-off: %q", got)
	}
	ix := threads.Open(state, nil)
	e, ok, err := ix.Get(f.url, claimed)
	if err != nil || !ok {
		t.Fatalf("the hand-off's thread is not indexed: %v %v", ok, err)
	}
	if n := indexEntryBytes(t, state, claimed); n > threads.MaxEntryBytes {
		t.Errorf("the entry takes %d bytes of threads.json, at most %d", n, threads.MaxEntryBytes)
	}
	if cut := strings.TrimSuffix(e.Title, "…"); cut == e.Title || !strings.HasPrefix(title, cut) || len(cut) < 60<<10 {
		t.Errorf("the title was not cut as far as it must only: %d bytes of %d", len(e.Title), len(title))
	}

	cwd := "/" + strings.Repeat("d", 70<<10)
	id := s.newSession(t, cwd)
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("the session with a long cwd: stop %q", got)
	}
	if n := indexEntryBytes(t, state, id); n != -1 {
		t.Errorf("a %d-byte entry was written", n)
	}
	// The whole log is read once shim has ended.
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("shim did not stop after stdin closed")
	}
	if !s.logged("thread index not updated") || !s.logged("too large for the index") {
		t.Errorf("the log does not say why the thread is not indexed")
	}
}
