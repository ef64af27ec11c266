package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/binding"
)

// The Gemini CLI profile, against a fake that answers with the frames
// @google/gemini-cli-a2a-server 0.25.2 sent (testdata/captures/gemini-cli).

const geminiWS = "/home/dev/ws"

func geminiCapture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "captures", "gemini-cli", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// geminiFake serves the card and answers each message/stream with the next
// scripted body; a body of "" holds the stream open until the client
// drops it. It records requests with the connection they came on.
type geminiFake struct {
	t       *testing.T
	srv     *httptest.Server
	card    string
	rec     recorder
	mu      sync.Mutex
	bodies  []string
	conns   []string // RemoteAddr of each JSON-RPC request, in order
	getTask string
	gets    chan string // RemoteAddr of each tasks/get
	dropped chan struct{}
	// hold, when set, holds each tasks/get until it is closed; held gets
	// the RemoteAddr of each tasks/get held.
	hold chan struct{}
	held chan string
}

func newGeminiFake(t *testing.T, card string, bodies ...string) *geminiFake {
	f := &geminiFake{t: t, card: card, bodies: bodies, gets: make(chan string, 100), dropped: make(chan struct{}, 10),
		getTask: geminiCapture(t, "tasks-get-after-text.json")}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *geminiFake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Replace(f.card, "http://localhost:41242/", f.srv.URL+"/", 1)))
		return
	}
	x := f.rec.add(r)
	f.mu.Lock()
	f.conns = append(f.conns, r.RemoteAddr)
	f.mu.Unlock()
	switch x.RPC {
	case "tasks/get":
		f.mu.Lock()
		hold := f.hold
		f.mu.Unlock()
		if hold != nil {
			f.held <- r.RemoteAddr
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(f.getTask))
		f.gets <- r.RemoteAddr
	case "message/stream":
		f.mu.Lock()
		body := ""
		if len(f.bodies) > 0 {
			body, f.bodies = f.bodies[0], f.bodies[1:]
		}
		f.mu.Unlock()
		sseStart(w)
		if body == "" {
			sseFrames(w, `{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"srv-ctx","status":{"state":"working"},"final":false,"metadata":{"coderAgent":{"kind":"state-change"}}}}`)
			<-r.Context().Done()
			f.dropped <- struct{}{}
			return
		}
		sseWrite(w, body)
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`))
	}
}

// client is the profile's binding of the fake's card, as a client would
// build it.
func (f *geminiFake) client(t *testing.T) *testClient {
	return f.clientWith(t, binding.Options{RetryWait: 5 * time.Millisecond})
}

// clientWith is client with the binding's options opts.
func (f *geminiFake) clientWith(t *testing.T, opts binding.Options) *testClient {
	card, err := agentcard.Parse([]byte(strings.Replace(f.card, "http://localhost:41242/", f.srv.URL+"/", 1)), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &testClient{tr: New(binding.New(opts), card), card: card}
}

func (f *geminiFake) streams() []recorded {
	var out []recorded
	for _, r := range f.rec.rpcs() {
		if r.RPC == "message/stream" {
			out = append(out, r)
		}
	}
	return out
}

func sentMessage(r recorded) map[string]any {
	m, _ := r.Params["message"].(map[string]any)
	return m
}

func geminiTurn(t *testing.T, c *testClient, m a2a.OutMessage) []a2a.Event {
	t.Helper()
	s, err := c.Stream(ctxT(t), m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := drain(t, s)
	if err.Error() != "EOF" {
		t.Fatalf("stream ended with %v", err)
	}
	return evs
}

// answerText joins the appended artifact text of events.
func answerText(evs []a2a.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == a2a.EventArtifact && ev.Append {
			b.WriteString(textOf(ev.Artifact))
		}
	}
	return b.String()
}

func toolsOf(evs []a2a.Event) []a2a.ToolCall {
	var out []a2a.ToolCall
	for _, ev := range evs {
		if ev.Kind == a2a.EventStatus {
			out = append(out, ev.Status.Message.ToolCalls()...)
		}
	}
	return out
}

func lastStatus(t *testing.T, evs []a2a.Event) a2a.Event {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Kind != a2a.EventStatus {
		t.Fatalf("the stream does not end with a status: %s", kinds(evs))
	}
	return evs[len(evs)-1]
}

func TestGeminiTextTurnAndSecondTurn(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"), geminiCapture(t, "text-second-turn.sse"))
	c := f.client(t)
	evs := geminiTurn(t, c, a2a.OutMessage{ContextID: "chat-zed-1", Workspace: geminiWS, Parts: []a2a.Part{{Text: "Say hello."}}})
	if got := answerText(evs); got != "Hello from the fake Gemini model." {
		t.Fatalf("answer = %q (%s)", got, kinds(evs))
	}
	end := lastStatus(t, evs)
	if end.Status.State != a2a.StateCompleted || !end.Final {
		t.Fatalf("a final input-required must end the turn as completed, got %s final=%v", end.Status.State, end.Final)
	}
	for _, ev := range evs {
		if ev.ContextID != "chat-zed-1" {
			t.Fatalf("a frame kept the server's context %q: %+v", ev.ContextID, ev)
		}
		if ev.Kind == a2a.EventStatus && ev.Status.State == a2a.StateInputRequired {
			t.Fatalf("an input-required leaked: %s", kinds(evs))
		}
	}
	first := sentMessage(f.streams()[0])
	if _, ok := first["taskId"]; ok {
		t.Fatalf("the first message names a task: %v", first)
	}
	if _, ok := first["contextId"]; ok {
		t.Fatalf("the first message names a context: %v", first)
	}
	want := map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": geminiWS}}
	if b1, b2 := mustJSON(first["metadata"]), mustJSON(want); b1 != b2 {
		t.Fatalf("metadata = %s, want %s", b1, b2)
	}

	evs = geminiTurn(t, c, a2a.OutMessage{ContextID: "chat-zed-1", Workspace: geminiWS, Parts: []a2a.Part{{Text: "Again."}}})
	if got := answerText(evs); got != "Hello from the fake Gemini model." {
		t.Fatalf("second answer = %q", got)
	}
	second := sentMessage(f.streams()[1])
	if second["taskId"] != "a6a0ef65-5f28-4242-9a2f-68fc77e49d9a" || second["contextId"] != "c4dcd50e-83fd-432f-8772-1aea2bfd6bdc" {
		t.Fatalf("the second message does not continue the server's task: %v", second)
	}
	if _, ok := second["metadata"]; ok {
		t.Fatalf("the second message repeats the settings: %v", second)
	}
	if card := c.KnownCard(); !card.NoReplay {
		t.Fatal("the card of Gemini CLI must say its history does not replay")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestGeminiThought(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "thought.sse"))
	evs := geminiTurn(t, f.client(t), a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "Think."}}})
	var thought string
	for _, ev := range evs {
		if ev.Kind == a2a.EventStatus && ev.Status.State == a2a.StateWorking {
			thought += ev.Status.Message.Text()
		}
	}
	want := "**Planning the reply**\n\nThe user wants a short greeting; I will answer in two sentences.\n\n"
	if thought != want {
		t.Fatalf("thought = %q, want %q", thought, want)
	}
	if got := answerText(evs); got != "Here is my answer after thinking. It has two chunks." {
		t.Fatalf("answer = %q", got)
	}
}

func TestGeminiReadApprovedOnTheTasksConnection(t *testing.T) {
	defer func(d time.Duration) { geminiWarmEvery = d }(geminiWarmEvery)
	geminiWarmEvery = 20 * time.Millisecond
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "read-file.sse"), geminiCapture(t, "read-file-reply.sse"))
	c := f.client(t)
	ctx := ctxT(t)
	s, err := c.Stream(ctx, a2a.OutMessage{ContextID: "s", Workspace: geminiWS, Parts: []a2a.Part{{Text: "Read hello.txt."}}})
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := drain(t, s)
	s.Close()
	const callID = "read_file-1796113948191-7f0179a061d1d"
	end := checkReadParked(t, evs, callID)
	// While the person answers, the task's connection stays in use.
	f.mu.Lock()
	parked := f.conns[0]
	f.mu.Unlock()
	for i := 0; i < 2; i++ {
		select {
		case addr := <-f.gets:
			if addr != parked {
				t.Fatalf("keep-alive tasks/get came on %s, the stream on %s", addr, parked)
			}
		case <-ctx.Done():
			t.Fatal("no keep-alive tasks/get while the approval is open")
		}
	}
	evs = geminiTurn(t, c, a2a.OutMessage{ContextID: "s", TaskID: end.TaskID, Resume: true,
		Approval: &a2a.ApprovalAnswer{ToolCallID: callID, Allow: true}})
	checkReadAnswer(t, f, parked, callID)
	checkReadReply(t, evs)
	// Sending the answer stopped the keep-alive.
	g := c.tr
	g.sessions["s"].mu.Lock()
	warm := g.sessions["s"].warm
	g.sessions["s"].mu.Unlock()
	if warm != nil {
		t.Fatal("the keep-alive outlived the answer")
	}
}

// getContexts wraps a binding's transport and sends the context of each
// tasks/get it carries on gets.
func getContexts(gets chan<- context.Context) func(http.RoundTripper) http.RoundTripper {
	return func(base http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Body != nil {
				body, err := io.ReadAll(r.Body)
				if err != nil {
					return nil, err
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				if bytes.Contains(body, []byte(`"tasks/get"`)) {
					select { // the first ones are the tests'; a full channel drops the rest
					case gets <- r.Context():
					default:
					}
				}
			}
			return base.RoundTrip(r)
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// heldKeepAlive parks a read on a fake that holds each tasks/get, and
// returns the session, the parked connection, the turn's cancel and the
// context of the keep-alive's tasks/get held in flight.
func heldKeepAlive(t *testing.T) (*geminiFake, *testClient, string, context.CancelFunc, context.Context) {
	t.Helper()
	t.Cleanup(func(d time.Duration) func() { return func() { geminiWarmEvery = d } }(geminiWarmEvery))
	geminiWarmEvery = 20 * time.Millisecond
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "read-file.sse"), geminiCapture(t, "read-file-reply.sse"))
	f.hold, f.held = make(chan struct{}), make(chan string, 10)
	gets := make(chan context.Context, 10)
	c := f.clientWith(t, binding.Options{RetryWait: 5 * time.Millisecond, Wrap: getContexts(gets)})
	turn, endTurn := context.WithCancel(ctxT(t))
	t.Cleanup(endTurn)
	s, err := c.Stream(turn, a2a.OutMessage{ContextID: "s", Workspace: geminiWS, Parts: []a2a.Part{{Text: "Read hello.txt."}}})
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := drain(t, s)
	s.Close()
	checkReadParked(t, evs, "read_file-1796113948191-7f0179a061d1d")
	var get context.Context
	select {
	case get = <-gets:
	case <-time.After(10 * time.Second):
		t.Fatal("no keep-alive tasks/get while the approval is open")
	}
	f.mu.Lock()
	parked := f.conns[0]
	f.mu.Unlock()
	if addr := within(t, 10*time.Second, "the held tasks/get", func() string { return <-f.held }); addr != parked {
		t.Fatalf("keep-alive tasks/get came on %s, the stream on %s", addr, parked)
	}
	return f, c, parked, endTurn, get
}

// The turn's context ends as the person's answer is sent (the bridge's
// does): a keep-alive tasks/get in flight then is let finish, for a request
// cancelled in flight closes its connection and the server aborts the parked
// run (seen: the approved read "[Operation Cancelled]" in one e2e run of
// four, the answer sent as a tasks/get was under way).
func TestGeminiKeepAliveInFlightOutlivesTheTurn(t *testing.T) {
	f, c, parked, endTurn, get := heldKeepAlive(t)
	endTurn()
	if get.Err() != nil {
		t.Fatal("the keep-alive's tasks/get in flight was cancelled with the turn: its connection closes, and the server aborts the parked run")
	}
	close(f.hold)
	const callID = "read_file-1796113948191-7f0179a061d1d"
	evs := geminiTurn(t, c, a2a.OutMessage{ContextID: "s", TaskID: "f0e82e06-319b-4aed-ab10-f8338be147f5", Resume: true,
		Approval: &a2a.ApprovalAnswer{ToolCallID: callID, Allow: true}})
	checkReadAnswer(t, f, parked, callID)
	checkReadReply(t, evs)
}

// A cancel does not wait for the keep-alive's tasks/get in flight: it
// cancels it (the cancel drops the connection anyway).
func TestGeminiCancelDropsTheKeepAlive(t *testing.T) {
	_, c, _, _, get := heldKeepAlive(t)
	within(t, 5*time.Second, "CancelTask with a keep-alive tasks/get held", func() error {
		return c.CancelTask(ctxT(t), "f0e82e06-319b-4aed-ab10-f8338be147f5")
	})
	if get.Err() == nil {
		t.Fatal("the cancel left the keep-alive's tasks/get in flight")
	}
}

// checkReadParked checks the read's first turn: the call pending twice,
// what its profile says of it, and the park on it; it returns the park.
func checkReadParked(t *testing.T, evs []a2a.Event, callID string) a2a.Event {
	t.Helper()
	tools := toolsOf(evs)
	if len(tools) != 2 || tools[0].ID != callID || tools[0].Phase != a2a.PhasePending || tools[1].Phase != a2a.PhasePending {
		t.Fatalf("tools = %+v", tools)
	}
	if tools[0].Kind != "read" || tools[0].Display != "ReadFile" || tools[0].Subject != "/home/dev/ws/hello.txt" || tools[0].Name != "read_file" {
		t.Fatalf("tool = %+v", tools[0])
	}
	end := lastStatus(t, evs)
	h := end.Status.Message.Hitl()
	if end.Status.State != a2a.StateInputRequired || h == nil || h.Kind != a2a.HitlApproval || h.ToolCallID != callID ||
		h.Title != "Confirm: ReadFile" || h.Detail != "hello.txt" || !h.Always {
		t.Fatalf("the park = %s %+v", end.Status.State, h)
	}
	return end
}

// checkReadAnswer checks the approval's answer: on the parked stream's
// connection, its one data part, the task's and context's ids.
func checkReadAnswer(t *testing.T, f *geminiFake, parked, callID string) {
	t.Helper()
	answer := f.streams()[1]
	f.mu.Lock()
	answerConn := f.conns[len(f.conns)-1]
	f.mu.Unlock()
	if answerConn != parked {
		t.Fatalf("the answer came on %s, the parked stream on %s", answerConn, parked)
	}
	m := sentMessage(answer)
	if got := mustJSON(m["parts"]); got != `[{"data":{"callId":"`+callID+`","outcome":"proceed_once"},"kind":"data"}]` {
		t.Fatalf("answer parts = %s", got)
	}
	if m["taskId"] != "f0e82e06-319b-4aed-ab10-f8338be147f5" || m["contextId"] != "482265cc-747d-4162-8ce3-f4d39c351527" {
		t.Fatalf("answer ids = %v", m)
	}
}

// checkReadReply checks the reply to the approval: the call ran, the
// turn completed with its answer.
func checkReadReply(t *testing.T, evs []a2a.Event) {
	t.Helper()
	var phases []string
	for _, tc := range toolsOf(evs) {
		phases = append(phases, string(tc.Phase))
	}
	if got := strings.Join(phases, ","); got != "pending,started,completed" {
		t.Fatalf("phases = %s", got)
	}
	if end := lastStatus(t, evs); end.Status.State != a2a.StateCompleted {
		t.Fatalf("reply ends %s", end.Status.State)
	}
	if got := answerText(evs); got != "The tool read_file ran. That is all I needed." {
		t.Fatalf("answer = %q", got)
	}
}

func TestGeminiShellDeniedAndApproved(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "shell-deny.sse"), geminiCapture(t, "shell-deny-reply.sse"))
	c := f.client(t)
	evs := geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "Run it."}}})
	tools := toolsOf(evs)
	if len(tools) == 0 || tools[0].Kind != "execute" || tools[0].Display != "Shell" || tools[0].Subject != "echo shell-was-run > shell-out.txt && cat shell-out.txt" {
		t.Fatalf("tools = %+v", tools)
	}
	h := lastStatus(t, evs).Status.Message.Hitl()
	if h == nil || h.Title != "Confirm Shell Command" || h.Detail != "echo shell-was-run > shell-out.txt && cat shell-out.txt" {
		t.Fatalf("park = %+v", h)
	}
	evs = geminiTurn(t, c, a2a.OutMessage{ContextID: "s", TaskID: "x", Approval: &a2a.ApprovalAnswer{ToolCallID: h.ToolCallID}})
	if got := mustJSON(sentMessage(f.streams()[1])["parts"]); !strings.Contains(got, `"outcome":"cancel"`) {
		t.Fatalf("a denial must be sent as cancel: %s", got)
	}
	tools = toolsOf(evs)
	if len(tools) != 1 || tools[0].Phase != a2a.PhaseFailed || !strings.Contains(tools[0].Result, "[Operation Cancelled]") {
		t.Fatalf("tools = %+v", tools)
	}
	if end := lastStatus(t, evs); end.Status.State != a2a.StateCompleted {
		t.Fatalf("after the denial the turn ends %s, want completed (no park left)", end.Status.State)
	}

	f2 := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "shell-approve.sse"), geminiCapture(t, "shell-approve-reply.sse"))
	c2 := f2.client(t)
	evs = geminiTurn(t, c2, a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "Run it."}}})
	h = lastStatus(t, evs).Status.Message.Hitl()
	evs = geminiTurn(t, c2, a2a.OutMessage{ContextID: "s", Approval: &a2a.ApprovalAnswer{ToolCallID: h.ToolCallID, Allow: true, Always: true}})
	if got := mustJSON(sentMessage(f2.streams()[1])["parts"]); !strings.Contains(got, `"outcome":"proceed_always"`) {
		t.Fatalf("allow always = %s", got)
	}
	var output, result string
	for _, tc := range toolsOf(evs) {
		switch tc.Phase {
		case a2a.PhaseOutput:
			output = tc.Output
		case a2a.PhaseCompleted:
			result = tc.Result
		}
	}
	if !strings.HasPrefix(output, "shell-was-run ") || result != "shell-was-run" {
		t.Fatalf("output %q, result %q", output, result)
	}
}

func TestGeminiMCPAlwaysIsProceedAlwaysTool(t *testing.T) {
	s := &geminiSession{awaiting: []geminiAwait{{callID: "c1", confType: "mcp"}}}
	m := s.encode(a2a.OutMessage{Approval: &a2a.ApprovalAnswer{ToolCallID: "c1", Allow: true, Always: true}})
	if got := mustJSON(m["parts"]); got != `[{"data":{"callId":"c1","outcome":"proceed_always_tool"},"kind":"data"}]` {
		t.Fatalf("parts = %s", got)
	}
}

func TestGeminiCancelDropsTheStream(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"), "")
	c := f.client(t)
	geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "slow"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := next(t, s); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelTask(ctxT(t), "a6a0ef65-5f28-4242-9a2f-68fc77e49d9a"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.dropped:
	case <-ctxT(t).Done():
		t.Fatal("the running stream's connection was not dropped")
	}
	for _, r := range f.rec.rpcs() {
		if r.RPC == "tasks/cancel" {
			t.Fatal("tasks/cancel was sent: it makes the task terminal")
		}
	}
}

func TestGeminiGetTaskReadsAsTheTurnsEnd(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"))
	f.getTask = geminiCapture(t, "abort-connection-tasks-get.json")
	c := f.client(t)
	evs := geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	task, err := c.GetTask(ctxT(t), evs[0].TaskID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.StateCompleted || task.ContextID != "s" {
		t.Fatalf("task = %s in %s", task.Status.State, task.ContextID)
	}
}

// A tasks/get on a task's connection whose caller leaves (an editor
// cancelling a thread list) is answered at once and finishes behind: a
// request cancelled in flight would close the connection, and the server
// would abort the task's run with it. The next turn goes on that connection.
func TestGeminiGetTaskOutlivesItsCaller(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"), geminiCapture(t, "text-second-turn.sse"))
	gets := make(chan context.Context, 10)
	c := f.clientWith(t, binding.Options{RetryWait: 5 * time.Millisecond, Wrap: getContexts(gets)})
	evs := geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Workspace: geminiWS, Parts: []a2a.Part{{Text: "Say hello."}}})
	f.mu.Lock()
	f.hold, f.held = make(chan struct{}), make(chan string, 10)
	first := f.conns[0]
	f.mu.Unlock()
	caller, leave := context.WithCancel(ctxT(t))
	answered := make(chan error, 1)
	go func() {
		_, err := c.GetTask(caller, evs[0].TaskID, 0)
		answered <- err
	}()
	if addr := within(t, 10*time.Second, "the held tasks/get", func() string { return <-f.held }); addr != first {
		t.Fatalf("tasks/get came on %s, the task's stream on %s", addr, first)
	}
	get := within(t, 10*time.Second, "the tasks/get's context", func() context.Context { return <-gets })
	leave()
	if get.Err() != nil {
		t.Fatal("the tasks/get in flight was cancelled with its caller: its connection closes, and the server aborts the task's run")
	}
	if err := within(t, 5*time.Second, "GetTask after its caller left", func() error { return <-answered }); !errors.Is(err, context.Canceled) {
		t.Fatalf("GetTask after its caller left = %v, want context.Canceled", err)
	}
	close(f.hold)
	geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Workspace: geminiWS, Parts: []a2a.Part{{Text: "Again."}}})
	f.mu.Lock()
	last := f.conns[len(f.conns)-1]
	f.mu.Unlock()
	if last != first {
		t.Fatalf("the next turn came on %s, the task's connection was %s", last, first)
	}
}

func TestGeminiEditResultIsADiff(t *testing.T) {
	s := &geminiSession{}
	var u geminiToolUpdate
	raw := `{"request":{"callId":"replace-1","name":"replace","args":{"file_path":"/home/dev/ws/a.txt","old_string":"a","new_string":"b"}},
	"status":"success","tool":{"name":"replace","displayName":"Edit","kind":"edit"},
	"response":{"resultDisplay":{"fileDiff":"--- a\n+++ b\n","fileName":"a.txt","originalContent":"a\n","newContent":"b\n"}}}`
	if err := json.Unmarshal([]byte(raw), &u); err != nil {
		t.Fatal(err)
	}
	tc := s.tool(&u)
	if tc.Phase != a2a.PhaseCompleted || tc.Kind != "edit" || tc.Display != "Edit" || tc.Subject != "/home/dev/ws/a.txt" || tc.Diff == nil ||
		*tc.Diff != (a2a.ToolDiff{Path: "/home/dev/ws/a.txt", OldText: "a\n", NewText: "b\n"}) {
		t.Fatalf("tool = %+v diff %+v", tc, tc.Diff)
	}
}

// TestGeminiSessionHasItsOwnConnection: each session's task gets a
// connection of its own (binding.Conn.Dedicated: one connection, also
// under the credentials' transport; TestDedicated).
func TestGeminiSessionHasItsOwnConnection(t *testing.T) {
	f := newGeminiFake(t, geminiCapture(t, "card.json"), geminiCapture(t, "text.sse"))
	c := f.client(t)
	geminiTurn(t, c, a2a.OutMessage{ContextID: "s", Parts: []a2a.Part{{Text: "hi"}}})
	s := c.tr.sessions["s"]
	if s == nil || s.rpc.Conn() == c.tr.Conn() || s.closeIdle == nil {
		t.Fatalf("the session's task has no connection of its own: %+v", s)
	}
}

// TestGeminiToolPaths: the file or folder a Gemini CLI file tool names in
// its args is the call's path (a read's 0-based offset its 1-based line);
// a command's folder is not.
func TestGeminiToolPaths(t *testing.T) {
	for _, tc := range []struct {
		name, kind, args string
		want             []a2a.ToolPath
	}{
		{"read_file", "read", `{"file_path":"/w/a.go"}`, []a2a.ToolPath{{Path: "/w/a.go"}}},
		{"read_file", "read", `{"file_path":"/w/a.go","offset":0,"limit":5}`, []a2a.ToolPath{{Path: "/w/a.go", Line: 1}}},
		{"read_file", "read", `{"file_path":"/w/a.go","offset":41}`, []a2a.ToolPath{{Path: "/w/a.go", Line: 42}}},
		{"read_file", "read", `{"absolute_path":"/w/old.go"}`, []a2a.ToolPath{{Path: "/w/old.go"}}},
		{"write_file", "edit", `{"file_path":"/w/new.txt","content":"x"}`, []a2a.ToolPath{{Path: "/w/new.txt"}}},
		{"replace", "edit", `{"file_path":"rel.txt","old_string":"a","new_string":"b","offset":3}`, []a2a.ToolPath{{Path: "rel.txt"}}},
		{"list_directory", "read", `{"dir_path":"/w/src"}`, []a2a.ToolPath{{Path: "/w/src"}}},
		{"glob", "search", `{"pattern":"*.go","dir_path":"/w"}`, []a2a.ToolPath{{Path: "/w"}}},
		{"search_file_content", "search", `{"pattern":"x","path":"/w/pkg"}`, []a2a.ToolPath{{Path: "/w/pkg"}}},
		{"search_file_content", "search", `{"pattern":"x"}`, nil},
		{"run_shell_command", "execute", `{"command":"ls","dir_path":"/w"}`, nil},
		{"read_file", "read", `{"file_path":"  "}`, nil},
		{"read_file", "read", `{"file_path":7}`, nil},
	} {
		var u geminiToolUpdate
		raw := `{"request":{"callId":"c","name":"` + tc.name + `","args":` + tc.args + `},"status":"executing","tool":{"name":"` + tc.name + `","kind":"` + tc.kind + `"}}`
		if err := json.Unmarshal([]byte(raw), &u); err != nil {
			t.Fatal(err)
		}
		if got := (&geminiSession{}).tool(&u).Paths; !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: paths %+v, want %+v", tc.name, tc.args, got, tc.want)
		}
	}
}

// TestGeminiApprovalTitleIsTheServers: an approval's title is the one the
// server's confirmation gives, or none (the dialog's own default then);
// never one the profile builds from the call.
func TestGeminiApprovalTitleIsTheServers(t *testing.T) {
	for _, tc := range []struct{ details, want string }{
		{``, ""},
		{`,"confirmationDetails":{"type":"info","prompt":"p"}`, ""},
		{`,"confirmationDetails":{"type":"info","title":"Confirm: ReadFile"}`, "Confirm: ReadFile"},
	} {
		var u geminiToolUpdate
		raw := `{"request":{"callId":"c","name":"read_file","args":{"file_path":"/w/a.go"}},"status":"awaiting_approval",` +
			`"tool":{"name":"read_file","displayName":"ReadFile","kind":"read"}` + tc.details + `}`
		if err := json.Unmarshal([]byte(raw), &u); err != nil {
			t.Fatal(err)
		}
		s := &geminiSession{}
		s.tool(&u)
		if len(s.awaiting) != 1 || s.awaiting[0].title != tc.want {
			t.Errorf("%s: awaiting %+v, want the title %q", tc.details, s.awaiting, tc.want)
		}
	}
}
