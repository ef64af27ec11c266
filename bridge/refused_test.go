package bridge

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/acptest"
)

// strandsCancel serves Strands Agents' recorded card and the cancel it
// recorded (testdata/frameworks/strands: cancel-2-stream, cancel-2-request,
// after-cancel-prompt-stream): the first message streams "slow 1. slow 2."
// and stays open; tasks/cancel answers as cancelAnswer says (Strands':
// -32004); tasks/get says the task is in state (Strands' record stays
// working); the next message gets the recorded answer.
type strandsCancel struct {
	t           *testing.T
	url         string
	cancelReply string // the tasks/cancel response body
	state       string // what tasks/get says of the cancelled task

	mu      sync.Mutex
	methods []string
}

const strandsCancelled = "363450fb-9913-4b1a-85dd-c924fb5e341a"

func startStrandsCancel(t *testing.T, cancelReply, state string) *strandsCancel {
	f := &strandsCancel{t: t, cancelReply: cancelReply, state: state}
	f.url = startFake(t, f)
	return f
}

func strandsRecorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/frameworks/strands/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (f *strandsCancel) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.methods...)
}

func (f *strandsCancel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(recordedOrigin.ReplaceAllString(strandsRecorded(f.t, "01-card.response.json"), f.url)))
		return
	}
	var req rpcCall
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.methods = append(f.methods, req.Method)
	n := strings.Count(strings.Join(f.methods, " "), "message/stream")
	f.mu.Unlock()
	id := string(req.ID)
	switch req.Method {
	case "message/stream":
		body := strandsRecorded(f.t, "25-cancel-2-stream.response.sse")
		if n > 1 {
			body = strandsRecorded(f.t, "27-after-cancel-prompt-stream.response.sse")
		}
		body = strings.ReplaceAll(body, "ctx-capture-cancel", req.contextID())
		body = recordedID.ReplaceAllString(body, `${1}`+id)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(body))
		w.(http.Flusher).Flush()
		if n == 1 {
			<-r.Context().Done() // Strands runs on; shim gives the stream up
		}
	case "tasks/cancel":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Replace(f.cancelReply, `"id":23`, `"id":`+id, 1)))
	case "tasks/get":
		writeRPC(w, req.ID, map[string]any{"kind": "task", "id": strandsCancelled, "contextId": "c", "status": map[string]any{"state": f.state}}, nil)
	default:
		writeRPC(w, req.ID, nil, &rpcErr{Code: -32601, Message: "Method not found"})
	}
}

// cancelThenPrompt starts a prompt, cancels it once "slow 2." is shown,
// then sends the next prompt; it returns the next prompt's updates.
func cancelThenPrompt(t *testing.T, s *testShim, f *strandsCancel, id string) []acptest.Update {
	t.Helper()
	ch, _ := s.Start("session/prompt", promptArgs(id, "Go slowly."))
	s.WaitFor("the second chunk", func(ms []acptest.Message) bool {
		return strings.Contains(string(lastRaw(ms)), "slow 2.")
	})
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("stop %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(f.calls(), " "), "tasks/cancel") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	n := len(s.Updates(id))
	if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
		t.Fatalf("next prompt: stop %q", got)
	}
	return s.Updates(id)[n:]
}

// beforeAnswer is the text of the updates of kind before the first
// answer chunk.
func beforeAnswer(ups []acptest.Update, kind string) string {
	var b strings.Builder
	for _, u := range ups {
		if u.Kind() == "agent_message_chunk" {
			break
		}
		if u.Kind() == kind {
			b.WriteString(u.Text() + "\n")
		}
	}
	return b.String()
}

// TestStrandsRefusedCancelSaid: Strands Agents (@strands-agents/sdk
// 1.19.0) refuses every tasks/cancel (-32004) and runs on (SPEC §16, a
// refused cancel): the turn ends cancelled at once; the next prompt on
// the session first says, before the agent's answer, that the agent may
// still be finishing the earlier request and that it still is (thoughts:
// this client draws no notices); the log says once what the agent did.
func TestStrandsRefusedCancelSaid(t *testing.T) {
	f := startStrandsCancel(t, strandsRecorded(t, "26-cancel-2-request.response.json"), "working")
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	next := cancelThenPrompt(t, s, f, id)
	said := beforeAnswer(next, "agent_thought_chunk")
	if !strings.Contains(said, "may still be finishing") || !strings.Contains(said, "still finishing the request you cancelled") {
		t.Errorf("before the answer: %q\n%v", said, next)
	}
	if got := textOfKind(next, "agent_message_chunk"); got != "Hello from Strands." {
		t.Errorf("answer %q", got)
	}
	if n := strings.Count(s.logs.String(), "refused to cancel a task that still runs"); n != 1 {
		t.Errorf("%d log lines of the reading, want 1", n)
	}
}

// TestStrandsRefusedCancelNotice: to a client that draws notices, the
// refusal is a notice at once, and the next prompt's note a notice too.
func TestStrandsRefusedCancelNotice(t *testing.T) {
	f := startStrandsCancel(t, strandsRecorded(t, "26-cancel-2-request.response.json"), "working")
	s := startShim(t, f.url, nil, nil)
	s.initCaps(t, noticesCaps)
	id := s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(id, "Go slowly."))
	s.WaitFor("the second chunk", func(ms []acptest.Message) bool {
		return strings.Contains(string(lastRaw(ms)), "slow 2.")
	})
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("stop %q", got)
	}
	s.WaitFor("the refusal's notice", func(ms []acptest.Message) bool {
		return strings.Contains(string(lastRaw(ms)), "may still be finishing what you cancelled")
	})
	n := len(s.Updates(id))
	if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
		t.Fatalf("next prompt: stop %q", got)
	}
	next := s.Updates(id)[n:]
	if th := textOfKind(next, "agent_thought_chunk"); th != "" {
		t.Errorf("thoughts %q", th)
	}
	if next[0].Kind() != "notice" || !strings.Contains(string(next[0].Update), "still finishing your earlier request") {
		t.Errorf("the next prompt's first update: %s", next[0].Update)
	}
}

// TestCancelAcceptedOrOverSaysNothing: an agent that cancels, or refuses
// the cancel of a task already over, is told of by nothing.
func TestCancelAcceptedOrOverSaysNothing(t *testing.T) {
	for _, tc := range []struct{ name, reply, state string }{
		{"accepted", `{"jsonrpc":"2.0","id":23,"result":{"kind":"task","id":"` + strandsCancelled + `","contextId":"c","status":{"state":"canceled"}}}`, "canceled"},
		{"refused-over", `{"jsonrpc":"2.0","id":23,"error":{"code":-32002,"message":"Task cannot be canceled"}}`, "completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startStrandsCancel(t, tc.reply, tc.state)
			s := startShim(t, f.url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			next := cancelThenPrompt(t, s, f, id)
			if th := textOfKind(next, "agent_thought_chunk"); th != "" {
				t.Errorf("thoughts %q", th)
			}
			if strings.Contains(s.logs.String(), "refused to cancel") {
				t.Errorf("the log tells of a refusal")
			}
		})
	}
}
