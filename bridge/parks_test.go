package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
)

const hitlMime = "application/vnd.protolabs.hitl-v1+json"

func hitlPart(v map[string]any) map[string]any {
	return map[string]any{"data": v, "metadata": map[string]any{"mimeType": hitlMime}, "mediaType": "application/json"}
}

// parkApproval writes an input-required status with the real server's
// shape: a text part first, then the hitl-v1 data part.
func parkApproval(w *sseWriter, taskID, title, detail string) {
	w.status(taskID, "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart(title),
		hitlPart(map[string]any{"kind": "approval", "title": title, "detail": detail, "project": "p"})))
}

// permissions records the permission requests the client saw and answers
// them with the scripted replies in order.
type permissions struct {
	mu      sync.Mutex
	asked   []map[string]any
	replies []func() (any, *acptest.RPCError)
}

func (p *permissions) handler(method string, params json.RawMessage) (any, *acptest.RPCError) {
	if method != "session/request_permission" {
		return nil, &acptest.RPCError{Code: -32601, Message: "no"}
	}
	var m map[string]any
	_ = json.Unmarshal(params, &m)
	p.mu.Lock()
	p.asked = append(p.asked, m)
	var reply func() (any, *acptest.RPCError)
	if len(p.replies) > 0 {
		reply, p.replies = p.replies[0], p.replies[1:]
	}
	p.mu.Unlock()
	if reply == nil {
		return selected("deny")
	}
	return reply()
}

func (p *permissions) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

func selected(id string) (any, *acptest.RPCError) {
	return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": id}}, nil
}

func optionIDs(req map[string]any) []string {
	var out []string
	opts, _ := req["options"].([]any)
	for _, o := range opts {
		om := o.(map[string]any)
		out = append(out, fmt.Sprintf("%s/%s", om["optionId"], om["kind"]))
	}
	return out
}

// resumes returns the resume messages the server received: text and metadata.
func resumes(f *fakeAgent) []string {
	var out []string
	for _, c := range f.callsOf("SendStreamingMessage") {
		m := c.message()
		meta, _ := json.Marshal(m["metadata"])
		out = append(out, fmt.Sprintf("task=%v text=%q meta=%s", m["taskId"], c.text(), meta))
	}
	return out
}

// approvalAgent parks t1 on a command approval, then answers the resume.
func approvalAgent(t *testing.T) *fakeAgent {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		if tid, _ := c.message()["taskId"].(string); tid != "" {
			w.status(tid, "TASK_STATE_WORKING", nil)
			w.artifact(tid, "a1", "Resumed with "+c.text()+".", false)
			w.status(tid, "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "started", "args": `{"command": "npm test"}`})
		parkApproval(w, "t1", "Approve shell command?", "npm test\n\nruns via: /bin/sh -c")
	}
	return f
}

// TestApprovalApproved: the approval is asked on the card of the command
// it is about (SPEC §18, amending §6's card of its own): the dialog names
// that card with its kind, its title (the command) and input, the
// approval's words as its content; the card goes pending while the
// dialog is open, then runs again, and ends with the turn; no second card.
func TestApprovalApproved(t *testing.T) {
	f := approvalAgent(t)
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected("approve") }}}
	s := startShim(t, f.url, nil, perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "run the tests")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if perms.count() != 1 {
		t.Fatalf("want one permission request, got %d", perms.count())
	}
	req := perms.asked[0]
	tc := req["toolCall"].(map[string]any)
	if got := optionIDs(req); fmt.Sprint(got) != "[approve/allow_once approve_session/allow_always deny/reject_once]" {
		t.Errorf("options %v", got)
	}
	b, _ := json.Marshal(tc)
	const wantCall = `{"content":[{"content":{"text":"Approve shell command?\n\nnpm test\n\nruns via: /bin/sh -c","type":"text"},"type":"content"}],"kind":"execute","rawInput":{"command":"npm test"},"title":"npm test","toolCallId":"c1"}`
	if string(b) != wantCall {
		t.Errorf("toolCall %s\nwant     %s", b, wantCall)
	}
	want := []string{
		`task=<nil> text="run the tests" meta=null`,
		`task=t1 text="approved" meta={"hitl_resume":true}`,
	}
	if got := resumes(f); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sent %q\nwant %q", got, want)
	}
	ups := s.Updates(id)
	if n := count(ups, "tool_call"); n != 1 {
		t.Errorf("%d cards, want the command's one", n)
	}
	if got := statuses(cardUpdates(ups, "c1")); got != "in_progress,pending,in_progress,completed" {
		t.Errorf("the command's card went %s", got)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Resumed with approved." {
		t.Errorf("text %q", got)
	}
	// The dialog opened while the card was pending, and the card ran
	// again after it.
	if order := kindsInOrder(s.Messages(), "c1"); order != "tool_call tool_call_update request_permission tool_call_update tool_call_update" {
		t.Errorf("order %q", order)
	}
}

// TestApprovalBeforeItsCall: a park about a command no card shows yet
// makes one card, titled by the command, that the dialog names; the
// call's later announce of the same command updates it (no second card)
// and its end ends it. A denied park ends its card failed, "Denied", and
// what the agent says of the call after that is not shown (SPEC §18).
func TestApprovalBeforeItsCall(t *testing.T) {
	for _, choice := range []string{"approve", "deny"} {
		t.Run(choice, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				if tid, _ := c.message()["taskId"].(string); tid != "" {
					w.status(tid, "TASK_STATE_WORKING", nil)
					phase, res := "completed", "12 passing"
					if c.text() != "approved" {
						phase, res = "failed", "denied by the user"
					}
					toolFrame(w, map[string]any{"toolCallId": "c7", "name": "run_command", "phase": "started", "args": `{"command": "npm test"}`})
					toolFrame(w, map[string]any{"toolCallId": "c7", "name": "run_command", "phase": phase, "result": res})
					w.status(tid, "TASK_STATE_COMPLETED", nil)
					return
				}
				w.task("t1", "TASK_STATE_SUBMITTED")
				parkApproval(w, "t1", "Approve shell command?", "npm test\n\nruns via: /bin/sh -c")
			}
			perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(choice) }}}
			s := startShim(t, f.url, nil, perms.handler)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "run the tests")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if perms.count() != 1 {
				t.Fatalf("want one permission request, got %d", perms.count())
			}
			tc := perms.asked[0]["toolCall"].(map[string]any)
			cardID, _ := tc["toolCallId"].(string)
			if !strings.HasPrefix(cardID, "approval-t1-") || tc["title"] != "npm test" || tc["kind"] != "execute" {
				t.Errorf("toolCall %v", tc)
			}
			ups := s.Updates(id)
			if n := count(ups, "tool_call"); n != 1 {
				t.Errorf("%d cards, want the command's one", n)
			}
			if got := cardUpdates(ups, "c7"); len(got) != 0 {
				t.Errorf("the announce made a card of its own: %v", got)
			}
			cards := cardUpdates(ups, cardID)
			want := "pending,in_progress,completed"
			if choice == "deny" {
				want = "pending,failed"
			}
			if got := statuses(cards); got != want {
				t.Errorf("the card went %s, want %s", got, want)
			}
			if len(cards) == 0 || cards[0]["title"] != "npm test" || cards[0]["kind"] != "execute" {
				t.Errorf("card %v", cards)
			}
			last, _ := json.Marshal(cards[len(cards)-1])
			if wantText := map[string]string{"approve": "12 passing", "deny": `"text":"Denied"`}[choice]; !strings.Contains(string(last), wantText) {
				t.Errorf("the card ends %s, want %s in it", last, wantText)
			}
		})
	}
}

// kindsInOrder lists, in order, the messages about one tool call id.
func kindsInOrder(ms []acptest.Message, id string) string {
	var out []string
	for _, m := range ms {
		if !strings.Contains(string(m.Raw), id) {
			continue
		}
		switch m.Method {
		case "session/request_permission":
			out = append(out, "request_permission")
		case "session/update":
			var u acptest.Update
			_ = json.Unmarshal(m.Params, &u)
			out = append(out, u.Kind())
		}
	}
	return strings.Join(out, " ")
}

// TestApprovalFailsClosed: deny, a dismissed dialog, a client error and an
// option shim never offered all resume with "denied".
func TestApprovalFailsClosed(t *testing.T) {
	tests := []struct {
		name  string
		reply func() (any, *acptest.RPCError)
	}{
		{"deny", func() (any, *acptest.RPCError) { return selected("deny") }},
		{"dismissed", func() (any, *acptest.RPCError) {
			return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, nil
		}},
		{"client error", func() (any, *acptest.RPCError) {
			return nil, &acptest.RPCError{Code: -32603, Message: "dialog crashed"}
		}},
		{"unknown option", func() (any, *acptest.RPCError) { return selected("approve_forever") }},
		{"garbage result", func() (any, *acptest.RPCError) { return acptest.Malformed{Value: "yes"}, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := approvalAgent(t)
			perms := &permissions{replies: []func() (any, *acptest.RPCError){tt.reply}}
			s := startShim(t, f.url, nil, perms.handler)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "run the tests")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			got := resumes(f)
			if len(got) != 2 || got[1] != `task=t1 text="denied" meta={"hitl_resume":true}` {
				t.Errorf("sent %q", got)
			}
		})
	}
}

// TestApprovalInterrupted: a client that never answers and then closes
// stdin, and a cancel while the dialog is open, never approve.
func TestApprovalInterrupted(t *testing.T) {
	for _, how := range []string{"stdin closed", "cancel"} {
		t.Run(how, func(t *testing.T) {
			f := approvalAgent(t)
			asked := make(chan struct{})
			block := make(chan struct{})
			defer close(block)
			perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) {
				close(asked)
				<-block
				return selected("approve")
			}}}
			s := startShim(t, f.url, nil, perms.handler)
			s.init(t)
			id := s.newSession(t, "/tmp")
			ch, _ := s.Start("session/prompt", promptArgs(id, "run the tests"))
			select {
			case <-asked:
			case <-time.After(20 * time.Second):
				t.Fatal("no permission request")
			}
			if how == "cancel" {
				s.Notify("session/cancel", map[string]any{"sessionId": id})
				if got := stopReason(t, s.Wait(ch, "prompt")); got != "cancelled" {
					t.Fatalf("stop %q", got)
				}
			} else {
				s.stdin.Close()
				select {
				case <-s.done:
				case <-time.After(10 * time.Second):
					t.Fatal("shim did not stop")
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(f.callsOf("CancelTask")) == 0 && len(resumes(f)) < 2 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			for _, r := range resumes(f) {
				if strings.Contains(r, `"approved"`) {
					t.Fatalf("approved without an answer: %q", r)
				}
			}
			if len(f.callsOf("CancelTask")) == 0 && len(resumes(f)) < 2 {
				t.Errorf("neither denied nor cancelled: %q", resumes(f))
			}
		})
	}
}

// allowForSessionStream is TestAllowForSession's agent: three turns of
// command parks (a delete among them), the third in another session.
func allowForSessionStream(f *fakeAgent) func(w *sseWriter, c rpcCall) {
	var mu sync.Mutex
	turn := 0
	return func(w *sseWriter, c rpcCall) {
		tid, _ := c.message()["taskId"].(string)
		mu.Lock()
		if tid == "" {
			turn++
		}
		n := turn
		mu.Unlock()
		switch {
		case tid == "" && n == 1:
			w.task("t1", "TASK_STATE_SUBMITTED")
			toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "started", "args": `{"command": "ls"}`})
			parkApproval(w, "t1", "Approve shell command?", "ls")
		case tid == "t1" && c.text() == "approved" && strings.Contains(fmt.Sprint(c.message()["metadata"]), "bypass") && len(f.callsOf("SendStreamingMessage")) == 2:
			toolFrame(w, map[string]any{"toolCallId": "c2", "name": "run_command", "phase": "started", "args": `{"command": "make"}`})
			parkApproval(w, "t1", "Approve shell command?", "make")
		case tid == "t1" && len(f.callsOf("SendStreamingMessage")) == 3:
			toolFrame(w, map[string]any{"toolCallId": "c3", "name": "delete_file", "phase": "started", "args": `{"project":"p","path":"old.txt"}`})
			toolFrame(w, map[string]any{"toolCallId": "c4", "name": "run_command", "phase": "started", "args": `{"command": "echo"}`})
			parkApproval(w, "t1", "Approve permanent file delete?", "old.txt")
		case tid == "t1":
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		case tid == "" && n == 2:
			w.task("t2", "TASK_STATE_SUBMITTED")
			parkApproval(w, "t2", "Approve shell command?", "rm -rf build")
		case tid == "t2":
			w.status("t2", "TASK_STATE_COMPLETED", nil)
		case tid == "" && n == 3:
			w.task("t3", "TASK_STATE_SUBMITTED")
			parkApproval(w, "t3", "Approve shell command?", "ls")
		case tid == "t3":
			w.status("t3", "TASK_STATE_COMPLETED", nil)
		}
	}
}

// TestAllowForSession: "Allow for this session" approves now, puts the
// session in allow-commands (SPEC §11.2): command parks are auto-approved
// from then on, in this turn and later ones, bypass_permissions goes on
// every later message of this session only, it is never offered or applied
// to a delete, and a server that parks anyway is noted once.
func TestAllowForSession(t *testing.T) {
	f := newFake(t)
	f.stream = allowForSessionStream(f)
	perms := &permissions{replies: []func() (any, *acptest.RPCError){
		func() (any, *acptest.RPCError) { return selected("approve_session") }, // turn 1, ls
		func() (any, *acptest.RPCError) { return selected("approve") },         // turn 1, the delete
		func() (any, *acptest.RPCError) { return selected("deny") },            // turn 3, other session
	}}
	s := startShim(t, f.url, nil, perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "first")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	if perms.count() != 2 {
		t.Fatalf("turn 1: want 2 permission requests (the second command auto-approved), got %d", perms.count())
	}
	if got := optionIDs(perms.asked[1]); fmt.Sprint(got) != "[approve/allow_once deny/reject_once]" {
		t.Errorf("a delete must never offer allow_always: %v", got)
	}
	if got := stopReason(t, s.prompt(t, id, "second")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	other := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, other, "third")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	want := []string{
		`task=<nil> text="first" meta=null`,
		`task=t1 text="approved" meta={"bypass_permissions":true,"hitl_resume":true}`,
		`task=t1 text="approved" meta={"bypass_permissions":true,"hitl_resume":true}`,
		`task=t1 text="approved" meta={"bypass_permissions":true,"hitl_resume":true}`,
		`task=<nil> text="second" meta={"bypass_permissions":true}`,
		`task=t2 text="approved" meta={"bypass_permissions":true,"hitl_resume":true}`,
		`task=<nil> text="third" meta=null`,
		`task=t3 text="denied" meta={"hitl_resume":true}`,
	}
	if got := resumes(f); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if perms.count() != 3 {
		t.Errorf("want 3 permission requests in all (turn 2's command auto-approved), got %d", perms.count())
	}
	// The delete was asked on the delete's card, not on the most recent
	// (command) card (SPEC §6, §18).
	if tc := perms.asked[1]["toolCall"].(map[string]any); tc["toolCallId"] != "c3" || tc["kind"] != "delete" || tc["title"] != "Delete p/old.txt" {
		t.Errorf("the delete was asked on %v", tc)
	}
	// Turn 2's command, approved at once, shows no card but the one its
	// park opened: running, ended with the turn (SPEC §18).
	var auto []string
	for _, u := range toolUpdates(t, s.Updates(id)) {
		if id, _ := u["toolCallId"].(string); strings.HasPrefix(id, "approval-t2-") {
			auto = append(auto, fmt.Sprint(u["sessionUpdate"], " ", u["title"], " ", u["status"]))
		}
	}
	if got := strings.Join(auto, ", "); got != "tool_call rm -rf build in_progress, tool_call_update <nil> completed" {
		t.Errorf("the card of the command approved at once: %s", got)
	}
	notes := strings.Count(answer(s.Updates(id), "agent_message_chunk"), "asks before every command")
	if notes != 1 {
		t.Errorf("want the no-skip note once, got %d", notes)
	}
	if strings.Contains(answer(s.Updates(other), "agent_message_chunk"), "skipped") {
		t.Error("another session was told about this session's allowance")
	}
}

// TestQuestionPark: a question is shown, the turn ends, the next prompt
// answers it once, the prompt after that is a fresh turn.
func TestQuestionPark(t *testing.T) {
	tests := []struct {
		name string
		park func(w *sseWriter)
		want string
	}{
		{"question", func(w *sseWriter) {
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which branch?"), hitlPart(map[string]any{"question": "Which branch?"})))
		}, "**Input needed:** Which branch?"},
		{"plain text", func(w *sseWriter) {
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which branch?")))
		}, "**Input needed:** Which branch?"},
		{"form", func(w *sseWriter) {
			w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which environment?"), hitlPart(map[string]any{
				"kind": "form", "title": "Which environment should I deploy to?", "description": "",
				"steps": []any{map[string]any{"schema": map[string]any{"type": "object",
					"properties": map[string]any{
						"env":   map[string]any{"title": "Environment", "type": "string", "enum": []any{"staging", "prod"}},
						"notes": map[string]any{"title": "Notes", "type": "string", "description": "anything else"}},
					"required": []any{"env"}}}}})))
		}, "**Input needed:** Which environment should I deploy to?\n- Environment (required): one of staging, prod\n- Notes — anything else\n\n(This is a form in the agent's console; reply here in words, or answer it there.)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w *sseWriter, c rpcCall) {
				tid, _ := c.message()["taskId"].(string)
				switch {
				case tid == "t1":
					w.artifact("t1", "a1", "Thanks.", false)
					w.status("t1", "TASK_STATE_COMPLETED", nil)
				case len(f.callsOf("SendStreamingMessage")) == 1:
					w.task("t1", "TASK_STATE_SUBMITTED")
					tt.park(w)
				default:
					w.task("t2", "TASK_STATE_SUBMITTED")
					w.status("t2", "TASK_STATE_COMPLETED", nil)
				}
			}
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "deploy")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != tt.want {
				t.Errorf("shown %q\nwant %q", got, tt.want)
			}
			s.prompt(t, id, "staging, no notes")
			s.prompt(t, id, "thanks")
			want := []string{
				`task=<nil> text="deploy" meta=null`,
				`task=t1 text="staging, no notes" meta={"hitl_resume":true}`,
				`task=<nil> text="thanks" meta=null`,
			}
			if got := resumes(f); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("sent %q\nwant %q", got, want)
			}
		})
	}
}

// TestAuthRequired: the status text is shown and the stream is read to its
// end before the turn ends.
func TestAuthRequired(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.status("t1", "TASK_STATE_AUTH_REQUIRED", agentMsg(textPart("Sign in at https://idp.example/x")))
		w.status("t1", "TASK_STATE_WORKING", agentMsg(textPart("still waiting")))
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "hi")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	ups := s.Updates(id)
	if got := answer(ups, "agent_message_chunk"); got != "Sign in at https://idp.example/x" {
		t.Errorf("text %q", got)
	}
	if got := answer(ups, "agent_thought_chunk"); got != "still waiting" {
		t.Errorf("the stream was not read to its end: thoughts %q", got)
	}
	if n := len(f.callsOf("GetTask")); n != 1 {
		t.Errorf("auth-required must not be read back: %d GetTask", n)
	}
}

// TestRealServerApproval: the approve and deny paths against the a2a-go v2
// server, whose executor parks in input-required and resumes on the answer.
func TestRealServerApproval(t *testing.T) {
	for _, choice := range []string{"approve", "deny"} {
		t.Run(choice, func(t *testing.T) {
			url := startAgent(t, agent.Options{Name: "Go Agent"})
			perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(choice) }}}
			s := startShim(t, url, nil, perms.handler)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "please approve the tests")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if perms.count() != 1 {
				t.Fatalf("permission requests: %d", perms.count())
			}
			word := map[string]string{"approve": "approved", "deny": "denied"}[choice]
			if got := answer(s.Updates(id), "agent_message_chunk"); got != "You answered: "+word+". Done." {
				t.Errorf("text %q", got)
			}
			// One card, the command's (SPEC §18): approved, it runs and
			// completes; denied, it fails.
			ups := s.Updates(id)
			want := map[string]string{"approve": "in_progress,pending,in_progress,completed", "deny": "in_progress,pending,failed"}[choice]
			if got := statuses(cardUpdates(ups, "c1")); count(ups, "tool_call") != 1 || got != want {
				t.Errorf("%d cards; the command's went %s, want %s", count(ups, "tool_call"), got, want)
			}
		})
	}
}

// TestPermissionIDsStartAtOne: shim's own calls to the client never use
// JSON-RPC id 0 (some clients treat it as absent); they count from 1.
func TestPermissionIDsStartAtOne(t *testing.T) {
	f := approvalAgent(t)
	perms := &permissions{}
	s := startShim(t, f.url, nil, perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	stopReason(t, s.prompt(t, id, "run the tests"))
	s.prompt(t, id, "again")
	var ids []string
	for _, m := range s.Messages() {
		if m.Method == "session/request_permission" {
			ids = append(ids, string(m.ID))
		}
	}
	if fmt.Sprint(ids) != "[1 2]" {
		t.Errorf("permission request ids %v, want [1 2]", ids)
	}
}
