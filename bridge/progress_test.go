package bridge

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/shimdev/shim/internal/acptest"
)

// Progress notes are not answers (SPEC §12.8): the text of a working
// status message is a note; the answer is the task's artifacts.

// scripted is an a2a-go executor that runs a script per message.
type scripted func(ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool)

func (f scripted) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { f(ec, yield) }
}

func (scripted) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// startScripted serves exec with the official a2a-go server, in its 1.0
// dialect or its 0.3 compatibility mode.
func startScripted(t *testing.T, dialect string, exec scripted) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	version := a2a.Version
	if dialect == "0.3" {
		version = "0.3"
	}
	card := &a2a.AgentCard{Name: "Framework Agent", Description: "a framework's agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: srv.URL + "/a2a", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: version}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: true}}
	handler := a2asrv.NewHandler(exec)
	mux := http.NewServeMux()
	if dialect == "0.3" {
		mux.Handle("/a2a", a2av0.NewJSONRPCHandler(handler))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
	} else {
		mux.Handle("/a2a", a2asrv.NewJSONRPCHandler(handler))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	}
	srv.Config.Handler = mux
	return srv.URL
}

// workingTask is the first frame such a framework sends: the task,
// working, its status message a progress note.
func workingTask(ec *a2asrv.ExecutorContext, note string) *a2a.Task {
	task := a2a.NewSubmittedTask(ec, ec.Message)
	task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking,
		Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(note))}
	return task
}

// story is what the person reads: runs of thoughts and of answer text,
// each merged, one line each.
func story(ups []acptest.Update) string {
	var b strings.Builder
	last := ""
	for _, u := range ups {
		var kind string
		switch u.Kind() {
		case "agent_message_chunk":
			kind = "answer"
		case "agent_thought_chunk":
			kind = "thought"
		default:
			continue
		}
		if kind != last {
			if last != "" {
				b.WriteString("\n")
			}
			b.WriteString(kind + ": ")
			last = kind
		}
		b.WriteString(u.Text())
	}
	return b.String()
}

// TestProgressNoteIsAThought: a framework's first frame is a working task
// whose status message is "Generating response..."; the answer then
// streams as an artifact. The note is a thought, the answer only the
// artifact's text, in both dialects of the official server.
func TestProgressNoteIsAThought(t *testing.T) {
	for _, dialect := range []string{"1.0", "0.3"} {
		t.Run(dialect, func(t *testing.T) {
			url := startScripted(t, dialect, func(ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
				if !yield(workingTask(ec, "Generating response..."), nil) {
					return
				}
				id := a2a.ArtifactID(string(ec.TaskID) + ":response:text")
				for i, chunk := range []string{"The answer", " is 42", "."} {
					ev := a2a.NewArtifactUpdateEvent(ec, id, a2a.NewTextPart(chunk))
					ev.Append = i > 0
					if !yield(ev, nil) {
						return
					}
				}
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
			})
			s := startShim(t, url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "What is the answer?")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if got, want := story(s.Updates(id)), "thought: Generating response...\nanswer: The answer is 42."; got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestProgressNoteOrAnswer: what a working snapshot's status text that
// opens a task turns out to be, by the frames that follow it. A snapshot
// streamer's growing text is answer text, at most one frame behind; a
// note is a thought whatever ends the turn.
func TestProgressNoteOrAnswer(t *testing.T) {
	const w = "TASK_STATE_WORKING"
	user := []any{userMsg("q")}
	for _, tc := range []struct {
		name   string
		frames func(w *sseWriter, wait func(answer string))
		want   string // story, then " | " and the stop or the error
	}{
		{"a streamer grows its status message", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Hel", user))
			s.result(snap(s.ctx, "t1", w, "m1", "Hello wor", user))
			wait("Hello wor") // shown before the next frame
			s.result(snap(s.ctx, "t1", "TASK_STATE_COMPLETED", "m1", "Hello world.", user))
		}, "answer: Hello world. | end_turn"},
		{"a streamer's last snapshot moves its message to the history", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Hel", user))
			s.result(snap(s.ctx, "t1", "TASK_STATE_COMPLETED", "", "", append(user, agentMsgID("m1", "Hello."))))
		}, "answer: Hello. | end_turn"},
		{"one snapshot, then a bare completion", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Just this.", user))
			s.status("t1", "TASK_STATE_COMPLETED", nil)
		}, "answer: Just this. | end_turn"},
		{"a completion whose text grows from it", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "The ans", user))
			s.status("t1", "TASK_STATE_COMPLETED", agentMsgID("m1", "The answer."))
		}, "answer: The answer. | end_turn"},
		{"a completion with another text", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Working on it", user))
			s.status("t1", "TASK_STATE_COMPLETED", agentMsgID("m2", "Done: 42"))
		}, "thought: Working on it\nanswer: Done: 42 | end_turn"},
		{"the note repeated, then the answer as an artifact", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
			s.artifact("t1", "a1", "Hi", false)
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user, [2]string{"a1", "Hi there"}))
			s.status("t1", "TASK_STATE_COMPLETED", nil)
		}, "thought: Generating response...\nanswer: Hi there | end_turn"},
		{"the answer in the next snapshot's artifacts", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
			s.result(snap(s.ctx, "t1", "TASK_STATE_COMPLETED", "", "", user, [2]string{"a1", "Hi"}))
		}, "thought: Generating response...\nanswer: Hi | end_turn"},
		{"the status message replaced by another", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Thinking...", user))
			s.result(snap(s.ctx, "t1", w, "m2", "The answer", user))
			s.result(snap(s.ctx, "t1", "TASK_STATE_COMPLETED", "m2", "The answer is 42.", user))
		}, "thought: Thinking...\nanswer: The answer is 42. | end_turn"},
		{"a working update follows", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
			s.status("t1", w, agentMsgID("m2", "Searching..."))
			s.artifact("t1", "a1", "Found it.", false)
			s.status("t1", "TASK_STATE_COMPLETED", nil)
		}, "thought: Generating response...Searching...\nanswer: Found it. | end_turn"},
		{"a note beside the artifacts of the same snapshot", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Writing...", user, [2]string{"a1", "Hi"}))
			s.result(snap(s.ctx, "t1", w, "m1", "Writing...", user, [2]string{"a1", "Hi you"}))
			s.status("t1", "TASK_STATE_COMPLETED", nil)
		}, "answer: Hi\nthought: Writing...\nanswer:  you | end_turn"},
		{"a park", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
			s.status("t1", "TASK_STATE_INPUT_REQUIRED", agentMsgID("q1", "Which file?"))
		}, "thought: Generating response...\nanswer: **Input needed:** Which file? | end_turn"},
		{"a failure", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
			s.status("t1", "TASK_STATE_FAILED", agentMsgID("f1", "Handler failed: boom"))
		}, "thought: Generating response... | Fake Agent: Handler failed: boom"},
		{"the stream ends at the note", func(s *sseWriter, wait func(string)) {
			s.result(snap(s.ctx, "t1", w, "m1", "Generating response...", user))
		}, "thought: Generating response... | Fake Agent: the connection was lost while the task was still working; it may finish on its own"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			var s *testShim
			var id string
			f.stream = func(w *sseWriter, c rpcCall) { tc.frames(w, func(want string) { waitAnswer(s, id, want) }) }
			f.getTask = func(rpcCall) any {
				return snap("", "t1", w, "m1", "Generating response...", user)["task"]
			}
			s = startShim(t, f.url, nil, nil)
			s.init(t)
			id = s.newSession(t, "/tmp")
			res := s.prompt(t, id, "q")
			end := ""
			if res.Error != nil {
				end = res.Error.Message
			} else {
				end = stopReason(t, res)
			}
			if got := story(s.Updates(id)) + " | " + end; got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
