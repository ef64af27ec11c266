package bridge

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
)

// The turn-side readings of SPEC §16 (servers as they are), each tested
// on what the server that does it sent (testdata/frameworks, recorded by
// e2e/lib/frameworks/capture.mjs; sources and licences in its README),
// and on a server that follows the spec, which is read as before.

// replayFrames serves the card of cardFile and, to the first
// message/stream, the results frames as a stream.
func replayFrames(t *testing.T, cardFile string, frames ...string) *replayAgent {
	a := startReplay(t, cardFile)
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(`data: {"jsonrpc":"2.0","id":1,"result":` + f + "}\n\n")
	}
	a.mu.Lock()
	a.bodies = append(a.bodies, b.String())
	a.mu.Unlock()
	return a
}

// kindsByMessage are the kinds of the updates of each message id, in order.
func kindsByMessage(ups []acptest.Update) map[string][]string {
	out := map[string][]string{}
	for _, u := range ups {
		var m struct {
			ID string `json:"messageId"`
		}
		_ = json.Unmarshal(u.Update, &m)
		if m.ID != "" {
			out[m.ID] = append(out[m.ID], u.Kind())
		}
	}
	return out
}

// textOfKind is the text of a session's updates of one kind.
func textOfKind(ups []acptest.Update, kind string) string {
	var b strings.Builder
	for _, u := range ups {
		if u.Kind() == kind {
			b.WriteString(u.Text())
		}
	}
	return b.String()
}

// TestBeeAIAnswerInHistoryShownOnce: BeeAI (beeai-framework 0.1.30)
// re-sends its submitted task snapshot with the answer in its history,
// then completes with the same message (SPEC §16, one message, one
// place): the answer is shown once, as the answer, never as a thought
// too; the log says once what the agent did.
func TestBeeAIAnswerInHistoryShownOnce(t *testing.T) {
	const dir = "frameworks/beeai/"
	for _, f := range []string{"03-answer-stream.response.sse", "09-approval-park-stream.response.sse"} {
		t.Run(f, func(t *testing.T) {
			a := startReplay(t, dir+"01-card.response.json", dir+f)
			s := startShim(t, a.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
				t.Fatalf("stop %s", got)
			}
			ups := s.Updates(id)
			want := map[string]string{"03-answer-stream.response.sse": "Hello from BeeAI.", "09-approval-park-stream.response.sse": "The tool delete_file ran."}[f]
			if got := textOfKind(ups, "agent_message_chunk"); got != want {
				t.Errorf("answer %q, want %q", got, want)
			}
			if got := textOfKind(ups, "agent_thought_chunk"); got != "" {
				t.Errorf("the answer was also a thought: %q", got)
			}
			for mid, kinds := range kindsByMessage(ups) {
				for _, k := range kinds {
					if k != kinds[0] {
						t.Errorf("message %s shown as %v", mid, kinds)
						break
					}
				}
			}
			if n := strings.Count(s.logs.String(), "sent its answer again in a task's history"); n != 1 {
				t.Errorf("%d log lines of the reading, want 1:\n%s", n, s.logs.String())
			}
		})
	}
}

// TestHistoryMessageOfConformingServer: a snapshot whose history holds a
// working note of the agent, followed by artifact text, shows the note as
// a thought and the artifact as the answer, as before; nothing is logged.
func TestHistoryMessageOfConformingServer(t *testing.T) {
	a := replayFrames(t, "frameworks/beeai/01-card.response.json",
		`{"kind":"task","id":"t1","contextId":"CONTEXT_ID","status":{"state":"submitted"},"history":[{"kind":"message","role":"user","messageId":"USER_MESSAGE_ID","parts":[{"kind":"text","text":"Say hello."}]}]}`,
		`{"kind":"task","id":"t1","contextId":"CONTEXT_ID","status":{"state":"working"},"history":[{"kind":"message","role":"user","messageId":"USER_MESSAGE_ID","parts":[{"kind":"text","text":"Say hello."}]},{"kind":"message","role":"agent","messageId":"n1","parts":[{"kind":"text","text":"Looking it up."}]}]}`,
		`{"kind":"artifact-update","taskId":"t1","contextId":"CONTEXT_ID","artifact":{"artifactId":"a1","parts":[{"kind":"text","text":"Hello."}]}}`,
		`{"kind":"status-update","taskId":"t1","contextId":"CONTEXT_ID","status":{"state":"completed"},"final":true}`,
	)
	s := startShim(t, a.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
		t.Fatalf("stop %s", got)
	}
	ups := s.Updates(id)
	if got, th := textOfKind(ups, "agent_message_chunk"), textOfKind(ups, "agent_thought_chunk"); got != "Hello." || th != "Looking it up." {
		t.Errorf("answer %q thought %q", got, th)
	}
	if strings.Contains(s.logs.String(), "departs from the A2A spec") {
		t.Errorf("a reading logged for a conforming server:\n%s", s.logs.String())
	}
}

// TestMastraNoteInALaterFrame: Mastra's recorded answer (its working
// snapshot "Generating response...", then artifact text) after a first
// frame of the task that carries no text, as the SDK's own working
// status is sent: the note is still held one frame and shown as a
// thought, never as answer text (SPEC §16, progress notes anywhere in
// the task; §12.8); the log says so once.
func TestMastraNoteInALaterFrame(t *testing.T) {
	rec, err := os.ReadFile("testdata/frameworks/mastra/04-answer-stream.response.sse")
	if err != nil {
		t.Fatal(err)
	}
	const task = "e2fc0fdb-aa56-4f57-94d5-a04eae51d137"
	a := replayFrames(t, "frameworks/mastra/01-card.response.json",
		`{"kind":"status-update","taskId":"`+task+`","contextId":"CONTEXT_ID","status":{"state":"working"},"final":false}`)
	a.mu.Lock()
	a.bodies[0] += string(rec)
	a.mu.Unlock()
	s := startShim(t, a.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
		t.Fatalf("stop %s", got)
	}
	ups := s.Updates(id)
	if got, th := textOfKind(ups, "agent_message_chunk"), textOfKind(ups, "agent_thought_chunk"); got != "Hello from Mastra." || th != "Generating response..." {
		t.Errorf("answer %q thought %q", got, th)
	}
	if n := strings.Count(s.logs.String(), "status text after its task's first frame"); n != 1 {
		t.Errorf("%d log lines of the reading, want 1", n)
	}
}

// TestSnapshotStreamerAfterAFirstFrame: a snapshot streamer (SPEC
// §12.4) whose status message grows across frames after a first frame
// with no text is still shown as answer text, no thought.
func TestSnapshotStreamerAfterAFirstFrame(t *testing.T) {
	snap := func(state, text string) string {
		return `{"kind":"task","id":"t1","contextId":"CONTEXT_ID","status":{"state":"` + state + `","message":{"kind":"message","role":"agent","messageId":"s1","parts":[{"kind":"text","text":"` + text + `"}]}}}`
	}
	a := replayFrames(t, "frameworks/mastra/01-card.response.json",
		`{"kind":"status-update","taskId":"t1","contextId":"CONTEXT_ID","status":{"state":"working"},"final":false}`,
		snap("working", "Hello"), snap("working", "Hello from"), snap("completed", "Hello from the streamer."))
	s := startShim(t, a.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
		t.Fatalf("stop %s", got)
	}
	ups := s.Updates(id)
	if got, th := textOfKind(ups, "agent_message_chunk"), textOfKind(ups, "agent_thought_chunk"); got != "Hello from the streamer." || th != "" {
		t.Errorf("answer %q thought %q", got, th)
	}
}
