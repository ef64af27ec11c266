package bridge

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

// initWith initializes with the given client capabilities.
func (s *testShim) initWith(t *testing.T, caps map[string]any) {
	t.Helper()
	m := s.Call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "zed", "title": "Zed", "version": "1"},
		"clientCapabilities": caps})
	if m.Error != nil {
		t.Fatalf("initialize: %v", m.Error)
	}
}

var formCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

// elicitations records the elicitation/create requests the client saw
// and answers them with the scripted replies in order (then declines).
type elicitations struct {
	mu      sync.Mutex
	asked   []map[string]any
	raw     []string
	replies []func() (any, *acptest.RPCError)
	perms   permissions
}

func (e *elicitations) handler(method string, params json.RawMessage) (any, *acptest.RPCError) {
	if method == "session/request_permission" {
		return e.perms.handler(method, params)
	}
	if method != "elicitation/create" {
		return nil, &acptest.RPCError{Code: -32601, Message: "no"}
	}
	var m map[string]any
	_ = json.Unmarshal(params, &m)
	e.mu.Lock()
	e.asked = append(e.asked, m)
	e.raw = append(e.raw, string(params))
	var reply func() (any, *acptest.RPCError)
	if len(e.replies) > 0 {
		reply, e.replies = e.replies[0], e.replies[1:]
	}
	e.mu.Unlock()
	if reply == nil {
		return map[string]any{"action": "decline"}, nil
	}
	return reply()
}

func (e *elicitations) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.raw...)
}

func accept(content map[string]any) func() (any, *acptest.RPCError) {
	return func() (any, *acptest.RPCError) { return map[string]any{"action": "accept", "content": content}, nil }
}

// parkAgent parks t1 with park on the first message, answers a resume of
// t1 with what it received, and completes anything else as t2.
func parkAgent(t *testing.T, park func(w *sseWriter)) *fakeAgent {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		tid, _ := c.message()["taskId"].(string)
		switch {
		case tid == "t1":
			w.status("t1", "TASK_STATE_WORKING", nil)
			w.artifact("t1", "a1", "Got "+c.text()+".", false)
			w.status("t1", "TASK_STATE_COMPLETED", nil)
		case len(f.callsOf("SendStreamingMessage")) == 1:
			w.task("t1", "TASK_STATE_SUBMITTED")
			park(w)
		default:
			w.task("t2", "TASK_STATE_SUBMITTED")
			w.status("t2", "TASK_STATE_COMPLETED", nil)
		}
	}
	return f
}

func questionPark(w *sseWriter) {
	w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which branch?"), hitlPart(map[string]any{"question": "Which branch?"})))
}

// twoStepForm is a form of two steps: the first with its own title and
// description, the second with neither (the form's are used).
func twoStepForm(w *sseWriter) {
	w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Deploy?"), hitlPart(map[string]any{
		"kind": "form", "title": "Deploy settings", "description": "Where and how",
		"steps": []any{
			map[string]any{"title": "Target", "description": "Pick the environment", "schema": map[string]any{"type": "object",
				"properties": map[string]any{
					"env":  map[string]any{"title": "Environment", "type": "string", "oneOf": []any{map[string]any{"const": "staging", "title": "Staging"}, map[string]any{"const": "prod", "title": "Production"}}},
					"tags": map[string]any{"title": "Tags", "type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}}},
				"required": []any{"env"}}},
			map[string]any{"schema": map[string]any{"type": "object",
				"properties": map[string]any{
					"replicas": map[string]any{"title": "Replicas", "type": "integer"},
					"dry":      map[string]any{"type": "boolean", "title": "Dry run"},
					"where":    map[string]any{"type": "object", "title": "Where", "description": "a place"}}}},
		}})))
}

// TestQuestionAsElicitation: a client that shows forms gets a question as
// elicitation/create with one answer field; the accepted answer resumes
// the task in the same prompt (SPEC §11.3).
func TestQuestionAsElicitation(t *testing.T) {
	for _, park := range []struct {
		name string
		park func(w *sseWriter)
	}{
		{"question", questionPark},
		{"plain text", func(w *sseWriter) { w.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsg(textPart("Which branch?"))) }},
	} {
		t.Run(park.name, func(t *testing.T) {
			f := parkAgent(t, park.park)
			el := &elicitations{replies: []func() (any, *acptest.RPCError){accept(map[string]any{"answer": "main"})}}
			s := startShim(t, f.url, nil, el.handler)
			s.initWith(t, formCaps)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "merge it")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			want := []string{`{"sessionId":"` + id + `","mode":"form","message":"Which branch?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","title":"Answer"}},"required":["answer"]}}`}
			if got := el.requests(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("asked %s\nwant  %s", got, want)
			}
			if got := answer(s.Updates(id), "agent_message_chunk"); got != "Got main." {
				t.Errorf("shown %q", got)
			}
			s.prompt(t, id, "thanks")
			wantSent := []string{
				`task=<nil> text="merge it" meta=null`,
				`task=t1 text="main" meta={"hitl_resume":true}`,
				`task=<nil> text="thanks" meta=null`,
			}
			if got := resumes(f); fmt.Sprint(got) != fmt.Sprint(wantSent) {
				t.Errorf("sent %q\nwant %q", got, wantSent)
			}
		})
	}
}

// TestFormAsElicitations: a form park is one elicitation per step, in
// order, each step's schema reduced to what ACP forms carry; every step
// accepted resumes the task with the JSON of all values merged, with
// bypass_permissions while the session allows commands.
func TestFormAsElicitations(t *testing.T) {
	f := parkAgent(t, twoStepForm)
	el := &elicitations{replies: []func() (any, *acptest.RPCError){
		accept(map[string]any{"env": "prod", "tags": []any{"b"}}),
		accept(map[string]any{"replicas": 3, "dry": false, "where": "eu"}),
	}}
	s := startShim(t, f.url, nil, el.handler)
	s.initWith(t, formCaps)
	id := s.newSession(t, "/tmp")
	if m := s.Call("session/set_mode", map[string]any{"sessionId": id, "modeId": "allow-commands"}); m.Error != nil {
		t.Fatalf("set_mode: %v", m.Error)
	}
	if got := stopReason(t, s.prompt(t, id, "deploy")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	want := []string{
		`{"sessionId":"` + id + `","mode":"form","message":"Target\n\nPick the environment","requestedSchema":{"type":"object","properties":{` +
			`"env":{"type":"string","title":"Environment","enum":["staging","prod"]},` +
			`"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b"]}}},"required":["env"]}}`,
		`{"sessionId":"` + id + `","mode":"form","message":"Deploy settings\n\nWhere and how","requestedSchema":{"type":"object","properties":{` +
			`"dry":{"type":"boolean","title":"Dry run"},` +
			`"replicas":{"type":"integer","title":"Replicas"},` +
			`"where":{"type":"string","title":"Where","description":"a place"}}}}`,
	}
	got := el.requests()
	if len(got) != 2 {
		t.Fatalf("asked %d forms: %s", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("form %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
	wantSent := []string{
		`task=<nil> text="deploy" meta={"bypass_permissions":true}`,
		`task=t1 text="{\"dry\":false,\"env\":\"prod\",\"replicas\":3,\"tags\":[\"b\"],\"where\":\"eu\"}" meta={"bypass_permissions":true,"hitl_resume":true}`,
	}
	if got := resumes(f); fmt.Sprint(got) != fmt.Sprint(wantSent) {
		t.Errorf("sent %q\nwant %q", got, wantSent)
	}
	if n := count(s.Updates(id), "agent_message_chunk"); n != 1 {
		t.Errorf("%d chunks: %q", n, answer(s.Updates(id), "agent_message_chunk"))
	}
}

// TestFormNotAccepted: a declined or cancelled step, a failed request,
// or a client without forms: the park is shown as text, the turn ends
// end_turn, nothing is sent, and the next prompt answers it.
func TestFormNotAccepted(t *testing.T) {
	tests := []struct {
		name    string
		caps    map[string]any
		replies []func() (any, *acptest.RPCError)
		asked   int
	}{
		{"decline", formCaps, []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return map[string]any{"action": "decline"}, nil }}, 1},
		{"cancel at step 2", formCaps, []func() (any, *acptest.RPCError){accept(map[string]any{"env": "prod"}),
			func() (any, *acptest.RPCError) { return map[string]any{"action": "cancel"}, nil }}, 2},
		{"error", formCaps, []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) {
			return nil, &acptest.RPCError{Code: -32603, Message: "form crashed"}
		}}, 1},
		{"no capability", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parkAgent(t, twoStepForm)
			el := &elicitations{replies: tt.replies}
			s := startShim(t, f.url, nil, el.handler)
			s.initWith(t, tt.caps)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "deploy")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if n := len(el.requests()); n != tt.asked {
				t.Errorf("asked %d forms, want %d", n, tt.asked)
			}
			want := "**Input needed:** Deploy settings\n\nWhere and how\n- Environment (required): one of Staging, Production\n- Tags: any of a, b\n- Dry run\n- Replicas\n- Where — a place\n\n(This is a form in the agent's console; reply here in words, or answer it there.)"
			if got := answer(s.Updates(id), "agent_message_chunk"); got != want {
				t.Errorf("shown %q\nwant %q", got, want)
			}
			s.prompt(t, id, "prod please")
			wantSent := []string{
				`task=<nil> text="deploy" meta=null`,
				`task=t1 text="prod please" meta={"hitl_resume":true}`,
			}
			if got := resumes(f); fmt.Sprint(got) != fmt.Sprint(wantSent) {
				t.Errorf("sent %q\nwant %q", got, wantSent)
			}
		})
	}
}

// TestElicitationCancelledPrompt: a form nobody answers waits; cancelling
// the prompt ends the wait (the prompt answers cancelled), nothing is sent,
// and the next prompt answers the park.
func TestElicitationCancelledPrompt(t *testing.T) {
	f := parkAgent(t, questionPark)
	asked := make(chan struct{})
	release := make(chan struct{})
	el := &elicitations{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) {
		close(asked)
		<-release
		return map[string]any{"action": "accept", "content": map[string]any{"answer": "too late"}}, nil
	}}}
	// A grace window keeps the turn alive after the cancel: only the
	// prompt's cancel ends the form's wait.
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SteerGrace = time.Hour }, el.handler)
	s.initWith(t, formCaps)
	id := s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(id, "merge it"))
	<-asked
	tr := s.server().store.Session(id).Current()
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(ch, "prompt")); got != "cancelled" {
		t.Fatalf("stop %q", got)
	}
	// The park is the session's again once the turn gave up the form.
	select {
	case <-tr.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the turn still waits for the form after its prompt was cancelled")
	}
	close(release)
	s.prompt(t, id, "main")
	wantSent := []string{
		`task=<nil> text="merge it" meta=null`,
		`task=t1 text="main" meta={"hitl_resume":true}`,
	}
	if got := resumes(f); fmt.Sprint(got) != fmt.Sprint(wantSent) {
		t.Errorf("sent %q\nwant %q", got, wantSent)
	}
}

// TestElicitationEditorGone: a form waiting when stdin closes is given up
// (declined): nothing is sent to the agent and shim stops.
func TestElicitationEditorGone(t *testing.T) {
	f := parkAgent(t, questionPark)
	asked := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	el := &elicitations{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) {
		close(asked)
		<-release
		return map[string]any{"action": "decline"}, nil
	}}}
	s := startShim(t, f.url, nil, el.handler)
	s.initWith(t, formCaps)
	id := s.newSession(t, "/tmp")
	s.Start("session/prompt", promptArgs(id, "merge it"))
	<-asked
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("shim did not stop while a form waited")
	}
	if got := resumes(f); len(got) != 1 {
		t.Errorf("sent %q", got)
	}
}
