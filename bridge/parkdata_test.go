package bridge

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	a2ago "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/shimdev/shim/internal/acptest"
)

// A park says what it is about (SPEC §12.8): the data parts of an
// input-required status message are shown with the question, the tool
// call they name is a pending card, the answer's schema is a form.

// replayAgent is an A2A 0.3 JSON-RPC server that answers each
// message/stream with the next of its SSE bodies (testdata), the ids in
// them replaced by the ones shim sent.
type replayAgent struct {
	t    *testing.T
	url  string
	card string // a recorded card (its URL's origin replaced), else a 0.3 card of ours
	// stripRS (under mu) removes the U+001E VoltAgent puts before each
	// event's JSON.
	stripRS bool
	mu      sync.Mutex
	bodies  []string
	calls   []rpcCall
}

func startReplay(t *testing.T, files ...string) *replayAgent {
	a := &replayAgent{t: t}
	if len(files) > 0 && strings.HasSuffix(files[0], "card.response.json") {
		b, err := os.ReadFile(filepath.Join("testdata", files[0]))
		if err != nil {
			t.Fatal(err)
		}
		a.card, files = string(b), files[1:]
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		a.bodies = append(a.bodies, string(b))
	}
	a.url = startFake(t, a)
	return a
}

func (a *replayAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json" {
		w.Header().Set("Content-Type", "application/json")
		if a.card != "" {
			_, _ = w.Write([]byte(recordedOrigin.ReplaceAllString(a.card, a.url)))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"name": "assistant", "description": "An agent", "url": a.url + "/a2a/assistant",
			"version": "1.0", "protocolVersion": "0.3.0", "capabilities": map[string]any{"streaming": true},
			"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"}, "skills": []any{}})
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.NotFound(w, r)
		return
	}
	c := rpcCall{ID: req.ID, Method: req.Method, Params: req.Params}
	a.mu.Lock()
	a.calls = append(a.calls, c)
	body := ""
	if req.Method == "message/stream" && len(a.bodies) > 0 {
		body, a.bodies = a.bodies[0], a.bodies[1:]
	}
	stripRS := a.stripRS
	a.mu.Unlock()
	if body == "" {
		writeRPC(w, c.ID, nil, &rpcErr{Code: -32601, Message: "Method not found"})
		return
	}
	msgID, _ := c.message()["messageId"].(string)
	body = strings.NewReplacer("REQUEST_ID", string(c.ID), "CONTEXT_ID", c.contextID(), recordedContext, c.contextID(),
		"USER_MESSAGE_ID", msgID, "RESUME_MESSAGE_ID", msgID).Replace(body)
	body = recordedID.ReplaceAllString(body, `${1}`+string(c.ID))
	if stripRS {
		body = strings.ReplaceAll(body, "data: \x1e", "data: ")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	_, _ = w.Write([]byte(body))
}

// What a recording holds of the session that recorded it: the server's
// origin, the context id and the JSON-RPC id of each frame.
var (
	recordedOrigin  = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	recordedID      = regexp.MustCompile(`(?m)^(data: \{"jsonrpc":"2\.0","id":)\d+`)
	recordedContext = "ctx-capture-1"
)

// messages are the messages shim sent.
func (a *replayAgent) messages() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []map[string]any
	for _, c := range a.calls {
		if c.Method == "message/stream" {
			out = append(out, c.message())
		}
	}
	return out
}

const (
	mastraTask     = "b6f3c1de-2a47-4d0e-9c1f-7e5a8d2b4c90"
	mastraQuestion = "Additional input is required to continue this task."
	mastraData     = "suspendPayload.toolCallId: call_delete_1\nsuspendPayload.toolName: delete_file\nsuspendPayload.args.path: notes.txt"
)

// mastraCard checks the pending card the park opened for its tool call and
// returns its id.
func mastraCard(t *testing.T, ups []acptest.Update) string {
	t.Helper()
	var open map[string]any
	for _, u := range ups {
		if u.Kind() == "tool_call" {
			_ = json.Unmarshal(u.Update, &open)
		}
	}
	raw, _ := json.Marshal(open["rawInput"])
	if open["title"] != "Delete notes.txt" || open["kind"] != "delete" || open["status"] != "pending" || string(raw) != `{"path":"notes.txt"}` {
		t.Fatalf("the park's card: %v", open)
	}
	id, _ := open["toolCallId"].(string)
	if got := cardState(cardUpdates(ups, id))["status"]; got != "completed" {
		t.Errorf("the card ends %v", got)
	}
	return id
}

// TestParkToolAndSchemaAsAForm: the shape Mastra parks a tool approval in
// (testdata/parks): the delete it asks about is a pending card before the
// question, the resume schema a form about that card with the data shown,
// and the accepted values go back as a data part and as JSON text.
func TestParkToolAndSchemaAsAForm(t *testing.T) {
	a := startReplay(t, "parks/mastra-approval.sse", "parks/mastra-approval-resume.sse")
	el := &elicitations{replies: []func() (any, *acptest.RPCError){accept(map[string]any{"approved": true})}}
	s := startShim(t, a.url, nil, el.handler)
	s.initWith(t, formCaps)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "Delete notes.txt.")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	ups := s.Updates(id)
	card := mastraCard(t, ups)
	reqs := el.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d forms", len(reqs))
	}
	want := `{"sessionId":"` + id + `","toolCallId":"` + card + `","mode":"form","message":` + quote(mastraQuestion+"\n\n"+mastraData) +
		`,"requestedSchema":{"type":"object","properties":{"approved":{"type":"boolean","description":"Controls if the tool call is approved or not, should be true when approved and false when declined"},` +
		`"reason":{"type":"string","description":"Optional explanation for the decision, surfaced to the model when the tool call is declined"}},"required":["approved"]}}`
	if !jsonEqual(json.RawMessage(reqs[0]), json.RawMessage(want)) {
		t.Errorf("form:\n got %s\nwant %s", reqs[0], want)
	}
	msgs := a.messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages sent", len(msgs))
	}
	resume := msgs[1]
	parts, _ := json.Marshal(resume["parts"])
	meta, _ := resume["metadata"].(map[string]any)
	if resume["taskId"] != mastraTask || meta["hitl_resume"] != true ||
		string(parts) != `[{"data":{"approved":true},"kind":"data"},{"kind":"text","text":"{\"approved\":true}"}]` {
		t.Errorf("resume %v parts %s", resume, parts)
	}
	if got, want := story(ups), "thought: Generating response...\nanswer: Deleted notes.txt."; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestParkToolAndSchemaInWords: with a client that draws no forms (or a
// form declined), the same park is its question with the data as key:
// value lines and the schema's fields listed; the next prompt answers it
// in words on the parked task.
func TestParkToolAndSchemaInWords(t *testing.T) {
	for _, caps := range []map[string]any{nil, formCaps} {
		a := startReplay(t, "parks/mastra-approval.sse", "parks/mastra-approval-resume.sse")
		el := &elicitations{} // declines
		s := startShim(t, a.url, nil, el.handler)
		s.initWith(t, caps)
		id := s.newSession(t, "/tmp")
		if got := stopReason(t, s.prompt(t, id, "Delete notes.txt.")); got != "end_turn" {
			t.Fatalf("stop %q", got)
		}
		ups := s.Updates(id)
		mastraCard(t, ups)
		want := "thought: Generating response...\nanswer: **Input needed:** " + mastraQuestion + "\n\n```\n" + mastraData + "\n```\n" +
			"\n- approved (required) — Controls if the tool call is approved or not, should be true when approved and false when declined" +
			"\n- reason — Optional explanation for the decision, surfaced to the model when the tool call is declined"
		if got := story(ups); got != want {
			t.Errorf("forms %v: got:\n%s\nwant:\n%s", caps != nil, got, want)
		}
		if got := stopReason(t, s.prompt(t, id, "yes")); got != "end_turn" {
			t.Fatalf("answer stop %q", got)
		}
		resume := a.messages()[1]
		parts, _ := json.Marshal(resume["parts"])
		if resume["taskId"] != mastraTask || string(parts) != `[{"kind":"text","text":"yes"}]` {
			t.Errorf("answer %v", resume)
		}
	}
}

// TestAuthRequiredShowsItsData: an auth-required status message's data is
// shown with its text, and the tool call it names is a card.
func TestAuthRequiredShowsItsData(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.status("t1", "TASK_STATE_AUTH_REQUIRED", agentMsg(textPart("Sign in to GitHub first."),
			map[string]any{"data": map[string]any{"tool": "create_issue", "input": map[string]any{"repo": "a/b"}, "url": "https://example.com/login"}}))
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if got := stopReason(t, s.prompt(t, id, "File it.")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	ups := s.Updates(id)
	// (The fake writes the data's keys in sorted order.)
	want := "answer: Sign in to GitHub first.\n\n```\ninput.repo: a/b\ntool: create_issue\nurl: https://example.com/login\n```"
	if got := story(ups); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if n := count(ups, "tool_call"); n != 1 {
		t.Errorf("%d cards", n)
	}
}

// TestParkFormRealServer: the official a2a-go server, in both dialects,
// parks with the question, the tool call and the schema in a data part;
// the accepted form's values reach it as a data part it reads, and its
// answer ends the turn.
func TestParkFormRealServer(t *testing.T) {
	schema := `{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}`
	for _, dialect := range []string{"1.0", "0.3"} {
		t.Run(dialect, func(t *testing.T) {
			url := startScripted(t, dialect, func(ec *a2asrv.ExecutorContext, yield func(a2ago.Event, error) bool) {
				if ec.StoredTask != nil {
					answer := "Kept it."
					for _, p := range ec.Message.Parts {
						if v, ok := p.Data().(map[string]any); ok && v["approved"] == true {
							answer = "Deleted notes.txt."
						}
					}
					ev := a2ago.NewArtifactUpdateEvent(ec, "answer", a2ago.NewTextPart(answer))
					ev.Append = false
					if yield(ev, nil) {
						yield(a2ago.NewStatusUpdateEvent(ec, a2ago.TaskStateCompleted, nil), nil)
					}
					return
				}
				if !yield(workingTask(ec, "Generating response..."), nil) {
					return
				}
				yield(a2ago.NewStatusUpdateEvent(ec, a2ago.TaskStateInputRequired, a2ago.NewMessageForTask(a2ago.MessageRoleAgent, ec,
					a2ago.NewTextPart("Approve?"), a2ago.NewDataPart(map[string]any{"suspendPayload": map[string]any{
						"toolName": "delete_file", "args": map[string]any{"path": "notes.txt"}}, "resumeSchema": schema}))), nil)
			})
			el := &elicitations{replies: []func() (any, *acptest.RPCError){accept(map[string]any{"approved": true})}}
			s := startShim(t, url, nil, el.handler)
			s.initWith(t, formCaps)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "Delete notes.txt.")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			ups := s.Updates(id)
			mastraCard(t, ups)
			if got, want := story(ups), "thought: Generating response...\nanswer: Deleted notes.txt."; got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			// (a2a-go writes the data's keys in sorted order.)
			if reqs := el.requests(); len(reqs) != 1 || !strings.Contains(reqs[0], `"message":"Approve?\n\nsuspendPayload.args.path: notes.txt\nsuspendPayload.toolName: delete_file"`) {
				t.Errorf("forms %v", reqs)
			}
		})
	}
}
