package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

// requestIDs are the ids of the requests shim made of the client with
// method, in order.
func requestIDs(s *testShim, method string) []string { return requestIDsIn(s.Messages(), method) }

func requestIDsIn(ms []acptest.Message, method string) []string {
	var ids []string
	for _, m := range ms {
		if m.Method == method && len(m.ID) > 0 {
			ids = append(ids, string(m.ID))
		}
	}
	return ids
}

// withdrawn are the request ids shim withdrew ($/cancel_request), in order.
func withdrawn(s *testShim) []string { return withdrawnIn(s.Messages()) }

func withdrawnIn(ms []acptest.Message) []string {
	var ids []string
	for _, m := range ms {
		if m.Method == "$/cancel_request" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			ids = append(ids, string(p.RequestID))
		}
	}
	return ids
}

// waitWithdrawn waits until shim withdrew n requests.
func waitWithdrawn(t *testing.T, s *testShim, n int) []string {
	t.Helper()
	s.WaitFor(fmt.Sprintf("%d $/cancel_request", n), func(ms []acptest.Message) bool { return len(withdrawnIn(ms)) >= n })
	return withdrawn(s)
}

// dialogs is a client whose dialogs stay open until shim withdraws them
// (then they answer -32800, as the official client does), unless a reply
// is scripted for them (in order).
type dialogs struct {
	s       func() *testShim
	mu      sync.Mutex
	replies []func() (any, *acptest.RPCError)
	opened  chan string
}

func newDialogs() *dialogs { return &dialogs{opened: make(chan string, 8)} }

func (d *dialogs) handler(method string, params json.RawMessage) (any, *acptest.RPCError) {
	d.mu.Lock()
	var reply func() (any, *acptest.RPCError)
	if len(d.replies) > 0 {
		reply, d.replies = d.replies[0], d.replies[1:]
	}
	d.mu.Unlock()
	d.opened <- method
	if reply != nil {
		return reply()
	}
	// Open until withdrawn: the request is the newest of its method.
	s := d.s()
	id := requestIDs(s, method)
	mine := id[len(id)-1]
	s.WaitFor("the withdrawal of "+mine, func(ms []acptest.Message) bool { return slices.Contains(withdrawnIn(ms), mine) })
	return nil, &acptest.RPCError{Code: -32800, Message: "Request cancelled"}
}

func (d *dialogs) waitOpened(t *testing.T, method string) {
	t.Helper()
	select {
	case m := <-d.opened:
		if m != method {
			t.Fatalf("opened %s, want %s", m, method)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no %s", method)
	}
}

// TestPermissionWithdrawnOnCancel: a permission dialog open when its
// prompt is cancelled is withdrawn ($/cancel_request with its id). With
// no grace window the approval is denied (the task given up); inside a
// grace window (Send Now) the prompt that adopts the turn is asked again
// and its answer resumes the task. A dialog answered is never withdrawn.
func TestPermissionWithdrawnOnCancel(t *testing.T) {
	t.Run("no grace", func(t *testing.T) {
		f := approvalAgent(t)
		d := newDialogs()
		var s *testShim
		d.s = func() *testShim { return s }
		s = startShim(t, f.url, nil, d.handler)
		s.init(t)
		id := s.newSession(t, "/tmp")
		ch, _ := s.Start("session/prompt", promptArgs(id, "run the tests"))
		d.waitOpened(t, "session/request_permission")
		s.Notify("session/cancel", map[string]any{"sessionId": id})
		if got := stopReason(t, s.Wait(ch, "prompt")); got != "cancelled" {
			t.Fatalf("stop %q", got)
		}
		asked := requestIDs(s, "session/request_permission")
		if got := waitWithdrawn(t, s, 1); !slices.Equal(got, asked) {
			t.Fatalf("withdrew %v, asked %v", got, asked)
		}
		for _, r := range resumes(f) {
			if strings.Contains(r, `"approved"`) {
				t.Fatalf("approved without an answer: %q", r)
			}
		}
	})
	t.Run("send now", func(t *testing.T) {
		f := approvalAgent(t)
		api := newSteerAPI()
		f.operator = api
		d := newDialogs()
		var s *testShim
		d.s = func() *testShim { return s }
		s = startShim(t, f.url, withGrace(10*time.Second), d.handler)
		s.init(t)
		id := s.newSession(t, "/tmp")
		first, _ := s.Start("session/prompt", promptArgs(id, "run the tests"))
		d.waitOpened(t, "session/request_permission")
		d.mu.Lock()
		d.replies = append(d.replies, func() (any, *acptest.RPCError) { return selected("approve") })
		d.mu.Unlock()
		cancelPrompt(t, s, id, first)
		waitWithdrawn(t, s, 1)
		second, _ := s.Start("session/prompt", promptArgs(id, "and then lint"))
		d.waitOpened(t, "session/request_permission")
		if got := stopReason(t, s.Wait(second, "second")); got != "end_turn" {
			t.Fatalf("stop %q", got)
		}
		asked := requestIDs(s, "session/request_permission")
		if got := withdrawn(s); len(asked) != 2 || !slices.Equal(got, asked[:1]) {
			t.Fatalf("asked %v, withdrew %v: want the first withdrawn, the second answered", asked, got)
		}
		if got := resumes(f); len(got) != 2 || got[1] != `task=t1 text="approved" meta={"hitl_resume":true}` {
			t.Errorf("sent %q", got)
		}
	})
}

// TestFormWithdrawnOnCancel: a form open when its prompt is cancelled is
// withdrawn; the park is the next prompt's to answer, as before.
func TestFormWithdrawnOnCancel(t *testing.T) {
	f := parkAgent(t, questionPark)
	d := newDialogs()
	var s *testShim
	d.s = func() *testShim { return s }
	s = startShim(t, f.url, withGrace(time.Hour), d.handler)
	s.initWith(t, formCaps)
	id := s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(id, "merge it"))
	d.waitOpened(t, "elicitation/create")
	tr := s.server().store.Session(id).Current()
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(ch, "prompt")); got != "cancelled" {
		t.Fatalf("stop %q", got)
	}
	asked := requestIDs(s, "elicitation/create")
	if got := waitWithdrawn(t, s, 1); !slices.Equal(got, asked) {
		t.Fatalf("withdrew %v, asked %v", got, asked)
	}
	// The turn gives the park back to the session once it gave the form up.
	select {
	case <-tr.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the turn still waits for the withdrawn form")
	}
	s.prompt(t, id, "main")
	if got := resumes(f); len(got) != 2 || got[1] != `task=t1 text="main" meta={"hitl_resume":true}` {
		t.Errorf("sent %q", got)
	}
}

// TestDialogWithdrawnElsewhere: a permission dialog or a form open while
// the park is answered elsewhere (the operator API's summary: the chat's
// task is no longer waiting for input) is withdrawn; nothing is sent for
// it, the editor is told, and the turn follows the task to its end.
// While the summary says the park still waits, the dialog stays open and
// its answer resumes the task.
func TestDialogWithdrawnElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		caps   map[string]any
		park   func(w *sseWriter)
	}{
		{"permission", "session/request_permission", nil, func(w *sseWriter) { parkApproval(w, "t1", "Approve shell command?", "make") }},
		{"form", "elicitation/create", formCaps, questionPark},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newOpAPI()
			var mu sync.Mutex
			state := "TASK_STATE_INPUT_REQUIRED"
			polled := make(chan struct{}, 64)
			api.summary = func(id string) (int, any) {
				mu.Lock()
				defer mu.Unlock()
				polled <- struct{}{}
				return 200, map[string]any{"session_id": id, "active": false, "turn_count": 1, "last_updated": "2026-09-25T02:57:17+00:00", "last_state": state}
			}
			f := parkAgent(t, tc.park)
			f.operator = api
			f.subscribe = func(w *sseWriter, c rpcCall) {
				w.task("t1", "TASK_STATE_WORKING")
				w.artifact("t1", "a9", "Done elsewhere.", false)
				w.status("t1", "TASK_STATE_COMPLETED", nil)
			}
			d := newDialogs()
			var s *testShim
			d.s = func() *testShim { return s }
			s = startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { setBusyPoll(o, fastPoll) }, d.handler)
			caps := tc.caps
			if caps == nil {
				caps = map[string]any{}
			}
			s.initWith(t, caps)
			id := s.newSession(t, "/tmp")
			ch, _ := s.Start("session/prompt", promptArgs(id, "merge it"))
			d.waitOpened(t, tc.method)
			// Polled while the park still waits: the dialog stays.
			for range 3 {
				<-polled
			}
			if got := withdrawn(s); len(got) != 0 {
				t.Fatalf("withdrawn while the park waits: %v", got)
			}
			mu.Lock()
			state = "TASK_STATE_WORKING"
			mu.Unlock()
			asked := requestIDs(s, tc.method)
			if got := waitWithdrawn(t, s, 1); !slices.Equal(got, asked) {
				t.Fatalf("withdrew %v, asked %v", got, asked)
			}
			if got := stopReason(t, s.Wait(ch, "prompt")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			text := answer(s.Updates(id), "agent_message_chunk")
			if !strings.Contains(text, "answered in another window") || !strings.Contains(text, "Done elsewhere.") {
				t.Errorf("shown %q", text)
			}
			if got := resumes(f); len(got) != 1 {
				t.Errorf("sent %q: the park answered elsewhere is not answered again", got)
			}
			if n := len(f.callsOf("SubscribeToTask")); n != 1 {
				t.Errorf("%d SubscribeToTask", n)
			}
		})
	}
}
