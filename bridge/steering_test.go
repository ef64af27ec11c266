package bridge

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

const steerMime = "application/vnd.protolabs.steer-consumed-v1+json"

// steerAPI is the operator steering queue of the fake server.
type steerAPI struct {
	mu      sync.Mutex
	posted  []map[string]string
	deleted []string
	// status and removed script the answers.
	status  int
	removed bool
	posts   chan map[string]string
}

func newSteerAPI() *steerAPI { return &steerAPI{status: 200, posts: make(chan map[string]string, 10)} }

func (a *steerAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/steer"):
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		a.mu.Lock()
		a.posted = append(a.posted, body)
		status := a.status
		a.mu.Unlock()
		if status != 200 {
			http.Error(w, `{"detail":"boom"}`, status)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "id": body["id"], "pending": 1})
		a.posts <- body
	case r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/steer/"):
		a.mu.Lock()
		a.deleted = append(a.deleted, r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
		removed := a.removed
		a.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"removed": removed, "pending": 0})
	default:
		http.NotFound(w, r)
	}
}

func steerConsumed(w *sseWriter, taskID, id, text string) {
	w.status(taskID, "TASK_STATE_WORKING", agentMsg(map[string]any{
		"data":     map[string]any{"items": []any{map[string]any{"id": id, "text": text}}},
		"metadata": map[string]any{"mimeType": steerMime}, "mediaType": "application/json"}))
}

// sendNow cancels the running prompt and sends the next one, as Zed's
// Send Now does; it returns the cancelled prompt's response and the new
// prompt's channel.
func sendNow(t *testing.T, s *testShim, id string, first chan acptest.Message, text string) chan acptest.Message {
	t.Helper()
	cancelPrompt(t, s, id, first)
	ch, _ := s.Start("session/prompt", promptArgs(id, text))
	return ch
}

// cancelPrompt cancels the running prompt, which must answer "cancelled".
func cancelPrompt(t *testing.T, s *testShim, id string, prompt chan acptest.Message) {
	t.Helper()
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(prompt, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("the cancelled prompt answered %q", got)
	}
}

func waitText(t *testing.T, s *testShim, text string) {
	t.Helper()
	s.WaitFor(text, func(ms []acptest.Message) bool {
		for _, m := range ms {
			if strings.Contains(string(m.Raw), text) {
				return true
			}
		}
		return false
	})
}

func withGrace(d time.Duration) func(*Options, *a2aclient.Config) {
	return func(o *Options, _ *a2aclient.Config) { o.SteerGrace = d }
}

var steerIDRE = regexp.MustCompile(`^zed-[0-9a-f]{12}$`)

// TestSteerAdopted: a prompt within the grace window is posted to the
// steering queue, adopts the running turn, gets the buffered output in
// order and the marker where the agent read the steer.
func TestSteerAdopted(t *testing.T) {
	f := newFake(t)
	api := newSteerAPI()
	f.operator = api
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Part one.", false)
		w.artifact("t1", "a1", " While detached.", true)
		var body map[string]string
		select {
		case body = <-api.posts:
		case <-time.After(20 * time.Second):
			return
		}
		steerConsumed(w, "t1", body["id"], body["text"])
		w.artifact("t1", "a1", " Part two.", true)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, withGrace(10*time.Second), nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	first, _ := s.Start("session/prompt", promptArgs(id, "look at A"))
	waitText(t, s, "Part one.")
	second := sendNow(t, s, id, first, "look at B instead")
	if got := stopReason(t, s.Wait(second, "the steering prompt")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Part one. While detached.\n\n↪ steering: look at B instead\n\n Part two." {
		t.Errorf("text %q", got)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.posted) != 1 || api.posted[0]["text"] != "look at B instead" || !steerIDRE.MatchString(api.posted[0]["id"]) {
		t.Errorf("steer posts %v", api.posted)
	}
	if n := len(f.callsOf("SendStreamingMessage")); n != 1 {
		t.Errorf("want one A2A turn, got %d", n)
	}
	if n := len(f.callsOf("CancelTask")); n != 0 {
		t.Errorf("a steered turn must not be cancelled: %d CancelTask", n)
	}
	if len(api.deleted) != 0 {
		t.Errorf("a consumed steer was deleted: %v", api.deleted)
	}
}

// TestSteerAtTurnEnd: a steer still pending when the turn completes is
// taken back and run as the next turn; one folded in without a boundary
// frame gets its marker at the end.
func TestSteerAtTurnEnd(t *testing.T) {
	for _, removed := range []bool{true, false} {
		name := map[bool]string{true: "still pending", false: "folded without a boundary"}[removed]
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			api := newSteerAPI()
			api.removed = removed
			f.operator = api
			f.stream = func(w *sseWriter, c rpcCall) {
				if c.text() == "look at B instead" {
					w.task("t2", "TASK_STATE_SUBMITTED")
					w.artifact("t2", "b1", "B answer.", false)
					w.status("t2", "TASK_STATE_COMPLETED", nil)
					return
				}
				w.task("t1", "TASK_STATE_SUBMITTED")
				w.artifact("t1", "a1", "A answer.", false)
				select {
				case <-api.posts:
				case <-time.After(20 * time.Second):
				}
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			s := startShim(t, f.url, withGrace(10*time.Second), nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			first, _ := s.Start("session/prompt", promptArgs(id, "look at A"))
			waitText(t, s, "A answer.")
			second := sendNow(t, s, id, first, "look at B instead")
			if got := stopReason(t, s.Wait(second, "the steering prompt")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			want := "A answer.\n\n↪ steering: look at B instead\n\n"
			sends := 1
			if removed {
				want, sends = "A answer.\n\nB answer.", 2
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != want {
				t.Errorf("text %q, want %q", got, want)
			}
			calls := f.callsOf("SendStreamingMessage")
			if len(calls) != sends {
				t.Fatalf("want %d A2A turns, got %d", sends, len(calls))
			}
			if removed {
				if m := calls[1].message(); m["taskId"] != nil || calls[1].text() != "look at B instead" {
					t.Errorf("the re-run turn: %v", m)
				}
			}
			api.mu.Lock()
			defer api.mu.Unlock()
			if len(api.deleted) != 1 || api.deleted[0] != api.posted[0]["id"] {
				t.Errorf("deleted %v, posted %v", api.deleted, api.posted)
			}
		})
	}
}

// TestSteerFallbacks: no operator API or a failing steer POST cancel the
// turn and run the prompt as a new turn; a turn that already ended gives a
// normal turn; no prompt within the window cancels the task when it closes.
func TestSteerFallbacks(t *testing.T) {
	blockingStream := func(f *fakeAgent, release chan struct{}) func(w *sseWriter, c rpcCall) {
		return func(w *sseWriter, c rpcCall) {
			if c.text() == "second" {
				w.task("t2", "TASK_STATE_SUBMITTED")
				w.artifact("t2", "b", "second answer", false)
				w.status("t2", "TASK_STATE_COMPLETED", nil)
				return
			}
			w.task("t1", "TASK_STATE_SUBMITTED")
			w.artifact("t1", "a", "first answer", false)
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
	}
	for _, tt := range []struct {
		name   string
		status int
	}{{"no operator API", 404}, {"steer POST fails", 500}} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			api := newSteerAPI()
			api.status = tt.status
			f.operator = api
			release := make(chan struct{})
			defer close(release)
			f.stream = blockingStream(f, release)
			s := startShim(t, f.url, withGrace(10*time.Second), nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			first, _ := s.Start("session/prompt", promptArgs(id, "first"))
			waitText(t, s, "first answer")
			second := sendNow(t, s, id, first, "second")
			if got := stopReason(t, s.Wait(second, "second")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			waitCalls(t, f, "CancelTask", 1)
			if c := f.callsOf("CancelTask"); len(c) != 1 || c[0].Params["id"] != "t1" {
				t.Errorf("CancelTask %v", c)
			}
			if n := len(f.callsOf("SendStreamingMessage")); n != 2 {
				t.Errorf("want a new turn, got %d sends", n)
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != "first answersecond answer" {
				t.Errorf("text %q", got)
			}
		})
	}
	t.Run("turn already ended", func(t *testing.T) {
		f := newFake(t)
		api := newSteerAPI()
		f.operator = api
		gate := make(chan struct{})
		f.stream = func(w *sseWriter, c rpcCall) {
			if c.text() == "second" {
				w.task("t2", "TASK_STATE_SUBMITTED")
				w.status("t2", "TASK_STATE_COMPLETED", agentMsg(textPart("second answer")))
				return
			}
			w.task("t1", "TASK_STATE_SUBMITTED")
			w.artifact("t1", "a", "first answer", false)
			select {
			case <-gate:
			case <-time.After(20 * time.Second):
			}
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		}
		s := startShim(t, f.url, withGrace(10*time.Second), nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		first, _ := s.Start("session/prompt", promptArgs(id, "first"))
		waitText(t, s, "first answer")
		cancelPrompt(t, s, id, first)
		close(gate)
		// Wait until the first turn has finished on shim's side.
		srvSess := s.server().store.Session(id).Current()
		select {
		case <-srvSess.Done():
		case <-time.After(20 * time.Second):
			t.Fatal("the first turn did not end")
		}
		if got := stopReason(t, s.prompt(t, id, "second")); got != "end_turn" {
			t.Fatalf("stop %q", got)
		}
		api.mu.Lock()
		defer api.mu.Unlock()
		if len(api.posted) != 0 || len(f.callsOf("CancelTask")) != 0 {
			t.Errorf("a finished turn must give a normal turn: posts %v, cancels %d", api.posted, len(f.callsOf("CancelTask")))
		}
	})
	t.Run("window closes", func(t *testing.T) {
		f := newFake(t)
		release := make(chan struct{})
		defer close(release)
		f.stream = blockingStream(f, release)
		s := startShim(t, f.url, withGrace(100*time.Millisecond), nil)
		s.init(t)
		id := s.newSession(t, "/tmp")
		first, _ := s.Start("session/prompt", promptArgs(id, "first"))
		waitText(t, s, "first answer")
		cancelPrompt(t, s, id, first)
		waitCalls(t, f, "CancelTask", 1)
		if c := f.callsOf("CancelTask"); len(c) != 1 || c[0].Params["id"] != "t1" {
			t.Errorf("CancelTask %v", c)
		}
	})
}

// TestSteerApprovalInWindow: an approval that parks while the turn is
// detached waits, and is asked of the adopting prompt.
func TestSteerApprovalInWindow(t *testing.T) {
	f := newFake(t)
	api := newSteerAPI()
	f.operator = api
	detached := make(chan struct{})
	f.stream = func(w *sseWriter, c rpcCall) {
		if tid, _ := c.message()["taskId"].(string); tid == "t1" {
			w.artifact("t1", "a1", " Ran it.", true)
			w.status("t1", "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "Working.", false)
		select {
		case <-detached:
		case <-time.After(20 * time.Second):
		}
		parkApproval(w, "t1", "Approve shell command?", "make")
	}
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected("approve") }}}
	s := startShim(t, f.url, withGrace(10*time.Second), perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	first, _ := s.Start("session/prompt", promptArgs(id, "build it"))
	waitText(t, s, "Working.")
	cancelPrompt(t, s, id, first)
	close(detached)
	// The park arrives while detached: nobody may be asked yet. Wait until
	// shim says the approval waits for an adopting prompt (or, wrongly,
	// asked already).
	deadline := time.Now().Add(20 * time.Second)
	for !s.logged("the approval waits for a prompt to adopt the turn") && perms.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if perms.count() != 0 {
		t.Fatalf("asked while detached")
	}
	if !s.logged("the approval waits for a prompt to adopt the turn") {
		t.Fatalf("the park was never read while detached")
	}
	second, _ := s.Start("session/prompt", promptArgs(id, "and run make"))
	if got := stopReason(t, s.Wait(second, "second")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if perms.count() != 1 {
		t.Errorf("want the approval asked of the adopting prompt, got %d requests", perms.count())
	}
	got := resumes(f)
	if len(got) != 2 || got[1] != `task=t1 text="approved" meta={"hitl_resume":true}` {
		t.Errorf("sent %q", got)
	}
}

// TestSteerBufferBounded: a turn that streams megabytes while detached is
// buffered with a bound; the adopting prompt gets what fit and a note
// saying what was dropped, even when the editor reads slowly.
func TestSteerBufferBounded(t *testing.T) {
	f := newFake(t)
	api := newSteerAPI()
	f.operator = api
	cancelled := make(chan struct{})
	chunk := strings.Repeat("y", 64<<10)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "start ", false)
		select {
		case <-cancelled:
		case <-time.After(20 * time.Second):
		}
		for i := 0; i < 64; i++ { // 4 MiB while detached
			w.artifact("t1", "a1", chunk, true)
		}
		w.artifact("t1", "a1", "END", true)
		select {
		case <-api.posts:
		case <-time.After(20 * time.Second):
		}
		w.artifact("t1", "a1", " after", true)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, withGrace(30*time.Second), nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	first, _ := s.Start("session/prompt", promptArgs(id, "go"))
	waitText(t, s, "start ")
	cancelPrompt(t, s, id, first)
	close(cancelled)
	// Let the detached turn read the whole burst before the steer: 8
	// chunks fill the head half of the 1 MiB buffer, the latest 7 chunks
	// and "END" the tail half; the 49 in the middle are dropped.
	wantDropped := 49 * len(chunk)
	deadline := time.Now().Add(30 * time.Second)
	for {
		kept, dropped := s.server().store.Session(id).Current().Buffered()
		if dropped == wantDropped && kept == 15*len(chunk)+len("END") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("buffered %d, dropped %d", kept, dropped)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.slow(time.Millisecond)
	second, _ := s.Start("session/prompt", promptArgs(id, "steer"))
	if got := stopReason(t, s.Wait(second, "second")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	text := answer(s.Updates(id), "agent_message_chunk")
	if len(text) > steerBufferMax+64<<10 {
		t.Errorf("the buffer was not bounded: %d bytes shown", len(text))
	}
	head := "start " + strings.Repeat(chunk, 8)
	note := "\n\n[While your new message was on its way, " + strconv.Itoa(wantDropped) + " bytes of the answer came, more than shim keeps: they are not shown here.]\n\n"
	want := head + note + strings.Repeat(chunk, 7) + "END after\n\n↪ steering: steer\n\n"
	if text != want {
		t.Errorf("text: %d bytes, want %d; around the note: %q", len(text), len(want), text[len(head)-10:min(len(text), len(head)+len(note)+10)])
	}
}

// waitCalls waits (generously) until the fake saw n calls of a method.
func waitCalls(t *testing.T, f *fakeAgent, method string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(f.callsOf(method)) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSteerRerunSameArtifactID: a steer still pending at turn end runs as
// a new task in the same turn; its answer is shown even when it reuses the
// first task's artifact id (what was shown is per task).
func TestSteerRerunSameArtifactID(t *testing.T) {
	f := newFake(t)
	api := newSteerAPI()
	api.removed = true
	f.operator = api
	f.stream = func(w *sseWriter, c rpcCall) {
		if c.text() == "look at B instead" {
			w.task("t2", "TASK_STATE_SUBMITTED")
			w.artifact("t2", "answer", "B", false)
			w.artifact("t2", "answer", "B answer.", false)
			w.status("t2", "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "answer", "A answer, longer than B's.", false)
		select {
		case <-api.posts:
		case <-time.After(20 * time.Second):
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, withGrace(10*time.Second), nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	first, _ := s.Start("session/prompt", promptArgs(id, "look at A"))
	waitText(t, s, "A answer")
	second := sendNow(t, s, id, first, "look at B instead")
	if got := stopReason(t, s.Wait(second, "the steering prompt")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if got, want := answer(s.Updates(id), "agent_message_chunk"), "A answer, longer than B's.\n\nB answer."; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}
