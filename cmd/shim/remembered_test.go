package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/examples/agent"
)

// cachedDemo is the demo agent (a2a-go v2) behind what a cache or a CDN
// does to its card: an ETag, and 304 to a matching If-None-Match
// (net/http's ServeContent). It logs each request as "METHOD path RPC",
// with " If-None-Match" when it carried one.
type cachedDemo struct {
	url string
	mu  sync.Mutex
	log []string
}

func startCachedDemo(t *testing.T) *cachedDemo {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	d := &cachedDemo{url: "http://" + srv.Listener.Addr().String()}
	h := agent.NewHandler(d.url, agent.Options{Name: "Cached Agent", Delay: 1})
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var rpc struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &rpc)
		line := strings.TrimSpace(r.Method + " " + r.URL.Path + " " + rpc.Method)
		if r.Header.Get("If-None-Match") != "" {
			line += " If-None-Match"
		}
		d.mu.Lock()
		d.log = append(d.log, line)
		d.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.URL.Path != "/.well-known/agent-card.json" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		sum := sha256.Sum256(rec.Body.Bytes())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(rec.Body.Bytes()))
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return d
}

// take returns the requests logged since the last take, sorted (the card
// and the probe of a relaunch go at once).
func (d *cachedDemo) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.log
	d.log = nil
	slices.Sort(out)
	return out
}

// newSessionAndExit runs one launch of shim: initialize, session/new
// (checked to succeed), then stdin closed and the process waited for.
func newSessionAndExit(t *testing.T, e *shimEnv, args ...string) *proc {
	t.Helper()
	p := e.start(t, args...)
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	if rpcErrorOf(m) != nil {
		t.Fatalf("session/new: %v\n%s", m, p.logs())
	}
	exit(t, p)
	return p
}

// exit closes p's stdin and waits for it to end.
func exit(t *testing.T, p *proc) {
	t.Helper()
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shim: %v\n%s", err, p.logs())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("shim did not end after stdin closed")
	}
}

// TestRelaunchRemembers: through the built binary against a real a2a-go
// server, a relaunch's session/new sends two requests at once, the card
// asked again with its ETag and the auth probe: the card comes from
// <state-dir>/remembered.json (0600), and none of the operator API routes
// that answered 404 is asked again (SPEC §19).
func TestRelaunchRemembers(t *testing.T) {
	d := startCachedDemo(t)
	e := newShimEnv(t)
	newSessionAndExit(t, e, "--url", d.url)
	first := d.take()
	if !slices.Contains(first, "GET /.well-known/agent-card.json") || !slices.Contains(first, "POST /api/editor/handoff/claim") {
		t.Fatalf("the first launch asked: %v", first)
	}
	path := filepath.Join(e.state, "remembered.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("remembered.json has mode %o, want 0600", fi.Mode().Perm())
	}

	p := newSessionAndExit(t, e, "--url", d.url)
	want := []string{"GET /.well-known/agent-card.json If-None-Match", "POST /a2a GetTask"}
	if got := d.take(); !slices.Equal(got, want) {
		t.Errorf("the relaunch's session/new asked:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), p.logs())
	}
}

// TestRememberedUnreadable: a remembered.json that is not JSON, or is a
// symbolic link, changes nothing: the launch asks the agent as a first
// launch does, says so in one log line, and replaces the file with a
// regular one (a link's target is never read nor written).
func TestRememberedUnreadable(t *testing.T) {
	for _, kind := range []string{"not JSON", "symbolic link"} {
		t.Run(kind, func(t *testing.T) {
			d := startCachedDemo(t)
			e := newShimEnv(t)
			newSessionAndExit(t, e, "--url", d.url)
			d.take()
			path := filepath.Join(e.state, "remembered.json")
			var target string
			var held []byte
			if kind == "symbolic link" {
				// A link to a good file: still never followed.
				target = filepath.Join(t.TempDir(), "elsewhere.json")
				if err := os.Rename(path, target); err != nil {
					t.Fatal(err)
				}
				held, _ = os.ReadFile(target)
				if err := os.Symlink(target, path); err != nil {
					t.Skip("no symbolic links here:", err)
				}
			} else if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
				t.Fatal(err)
			}
			p := newSessionAndExit(t, e, "--url", d.url)
			got := d.take()
			if !slices.Contains(got, "GET /.well-known/agent-card.json") || !slices.Contains(got, "POST /api/editor/handoff/claim") {
				t.Errorf("the launch did not ask as a first launch does: %v", got)
			}
			if n := strings.Count(p.logs(), "remembered agent details unreadable"); n != 1 {
				t.Errorf("said %d times, want once:\n%s", n, p.logs())
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Errorf("not replaced by a regular file: %v, %v", fi, err)
			}
			if target != "" {
				if b, _ := os.ReadFile(target); !bytes.Equal(b, held) {
					t.Errorf("the link's target changed")
				}
			}
		})
	}
}

// TestRememberedFullDisk: a write of remembered.json on a disk that fills
// (a real EFBIG through the built binary) leaves the state directory as
// it was, byte for byte, with no temporary file, says so once, and the
// session is served.
func TestRememberedFullDisk(t *testing.T) {
	unixOnly(t)
	d := startCachedDemo(t)
	f := newFakeA2A(t, "", "")
	e := newShimEnv(t)
	newSessionAndExit(t, e, "--url", d.url)
	before := dirFiles(t, e.state)
	if len(before["remembered.json"]) <= fileLimit {
		t.Fatalf("nothing remembered first: %v", before)
	}
	e.fileSize = fileLimit
	// Another agent: its card and routes are new, and kept in one write.
	p := newSessionAndExit(t, e, "--url", f.url())
	if n := strings.Count(p.logs(), "remembered agent details not written"); n != 1 || !strings.Contains(p.logs(), "file too large") {
		t.Errorf("the failed write is said %d times:\n%s", n, p.logs())
	}
	sameFiles(t, "the state directory", before, dirFiles(t, e.state))
}

// TestRememberedCardUnderPin: a card remembered under its pin that the
// agent now serves signed by another key is refused on the relaunch, as
// on a first launch (-32000, card_signature): the remembered card does
// not hide it, the card is asked for first and nothing is sent after it
// (no credential), and the card is forgotten (SPEC §17, §19).
func TestRememberedCardUnderPin(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	card := fakeCard(f, "Signer", false)
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, a, cardSig{jwk: true}) })
	newSessionAndExit(t, e, "--url", f.url(), "--token", signedToken) // pins a, remembers the card
	if !bytes.Contains(e.knownAgents(t), []byte(a.thumb(t))) {
		t.Fatal("the first launch pinned nothing")
	}

	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, b, cardSig{jwk: true}); f.reqs = nil })
	p := e.start(t, "--url", f.url(), "--token", signedToken)
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	if errData(m)["reason"] != "card_signature" || errData(m)["offered"] != b.thumb(t) {
		t.Fatalf("session/new under a remembered card: %v; want -32000 card_signature offering %s\n%s", m, b.thumb(t), p.logs())
	}
	if m := p.call(t, 3, "session/new", newSessionParams()); errData(m)["reason"] != "card_signature" {
		t.Errorf("second session/new: %v", m)
	}
	var got []string
	for _, r := range f.requests() {
		got = append(got, r.Method+" "+r.Path+" "+r.Auth)
	}
	if !slices.Equal(got, []string{"GET /.well-known/agent-card.json Bearer " + signedToken}) && !slices.Equal(got, []string{"GET /.well-known/agent-card.json "}) {
		t.Errorf("requests: %q; want the card alone (nothing after it)", got)
	}
	exit(t, p)
	if b, _ := os.ReadFile(filepath.Join(e.state, "remembered.json")); bytes.Contains(b, []byte(`"cards"`)) {
		t.Errorf("the refused card's place is still remembered:\n%s", b)
	}
}

// TestRememberedCardChecked: a remembered card is checked as a fetched
// one: signed by a key that --card-keys no longer holds, it is not used
// though the agent serves the very same bytes, and session/new is refused
// as on a first launch (SPEC §17).
func TestRememberedCardChecked(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, fakeCard(f, "Signer", false), a, cardSig{kid: "key-a"}) })
	newSessionAndExit(t, e, "--url", f.url(), "--token", signedToken, "--card-keys", jwksFile(t, a))

	f.set(func(f *fakeA2A) { f.reqs = nil })
	p := e.start(t, "--url", f.url(), "--token", signedToken, "--card-keys", jwksFile(t, b))
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	if errData(m)["reason"] != "card_signature" {
		t.Fatalf("session/new: %v; want -32000 card_signature\n%s", m, p.logs())
	}
	var got []string
	for _, r := range f.requests() {
		got = append(got, r.Method+" "+r.Path)
	}
	if !slices.Equal(got, []string{"GET /.well-known/agent-card.json"}) {
		t.Errorf("requests: %v; want the card alone, read as on a first launch", got)
	}
	exit(t, p)
}
