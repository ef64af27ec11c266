package bridge

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

// Gemini CLI's A2A server (SPEC §12.5), played by a fake that answers with
// the frames @google/gemini-cli-a2a-server 0.25.2 sent
// (a2a/gemini/testdata/captures/gemini-cli).

func geminiCaptured(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "a2a", "gemini", "testdata", "captures", "gemini-cli", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type geminiServer struct {
	t      *testing.T
	url    string
	mu     sync.Mutex
	bodies []string
	calls  []rpcCall
	// dropped gets a value when a held stream's connection closes.
	dropped chan struct{}
}

// startGemini serves the captured card and answers each message/stream
// with the next body; "" holds the stream open until the client drops it.
func startGemini(t *testing.T, bodies ...string) *geminiServer {
	g := &geminiServer{t: t, bodies: bodies, dropped: make(chan struct{}, 4)}
	g.url = startFake(t, g)
	return g
}

func (g *geminiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Replace(geminiCaptured(g.t, "card.json"), "http://localhost:41242/", g.url+"/", 1)))
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	g.mu.Lock()
	g.calls = append(g.calls, rpcCall{ID: req.ID, Method: req.Method, Params: req.Params})
	g.mu.Unlock()
	switch req.Method {
	case "message/stream":
		g.mu.Lock()
		body := ""
		if len(g.bodies) > 0 {
			body, g.bodies = g.bodies[0], g.bodies[1:]
		}
		g.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		if body == "" {
			_, _ = w.Write([]byte(`data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t-slow","contextId":"srv","status":{"state":"working"},"final":false,"metadata":{"coderAgent":{"kind":"state-change"}}}}` + "\n\n" +
				`data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t-slow","contextId":"srv","status":{"state":"working","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"slow chunk 1. "}]}},"final":false,"metadata":{"coderAgent":{"kind":"text-content"}}}}` + "\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			g.dropped <- struct{}{}
			return
		}
		_, _ = w.Write([]byte(body))
	case "tasks/get":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(geminiCaptured(g.t, "tasks-get-after-text.json")))
	default:
		writeRPC(w, req.ID, nil, &rpcErr{Code: -32601, Message: "Method not found"})
	}
}

func (g *geminiServer) messages() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []map[string]any
	for _, c := range g.calls {
		if c.Method == "message/stream" {
			out = append(out, c.message())
		}
	}
	return out
}

func (g *geminiServer) called(method string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.calls {
		if c.Method == method {
			return true
		}
	}
	return false
}

func geminiShim(t *testing.T, g *geminiServer, h acptest.Handler) *testShim {
	s := startShim(t, g.url, func(o *Options, c *a2aclient.Config) { o.SteerGrace = 0 }, h)
	s.init(t)
	return s
}

func TestGeminiTurnEndsAtFinalAndTheNextPromptContinuesTheTask(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "text.sse"), geminiCaptured(t, "text-second-turn.sse"))
	s := geminiShim(t, g, nil)
	cwd := t.TempDir()
	id := s.newSession(t, cwd)
	if got := stopReason(t, s.prompt(t, id, "Say hello.")); got != "end_turn" {
		t.Fatalf("stop = %s", got)
	}
	ups := s.Updates(id)
	if got := answer(ups, "agent_message_chunk"); got != "Hello from the fake Gemini model." {
		t.Fatalf("answer = %q", got)
	}
	first := g.messages()[0]
	settings, _ := first["metadata"].(map[string]any)["coderAgent"].(map[string]any)
	if settings["kind"] != "agent-settings" || settings["workspacePath"] != cwd || first["taskId"] != nil || first["contextId"] != nil {
		t.Fatalf("first message = %v", first)
	}
	if got := stopReason(t, s.prompt(t, id, "Again.")); got != "end_turn" {
		t.Fatalf("second stop = %s", got)
	}
	second := g.messages()[1]
	if second["taskId"] != "a6a0ef65-5f28-4242-9a2f-68fc77e49d9a" || second["contextId"] != "c4dcd50e-83fd-432f-8772-1aea2bfd6bdc" {
		t.Fatalf("second message = %v", second)
	}
	if got := answer(s.Updates(id), "agent_message_chunk"); got != "Hello from the fake Gemini model.Hello from the fake Gemini model." {
		t.Fatalf("answers = %q", got)
	}
}

func TestGeminiThoughtIsAThought(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "thought.sse"))
	s := geminiShim(t, g, nil)
	id := s.newSession(t, t.TempDir())
	stopReason(t, s.prompt(t, id, "Think."))
	ups := s.Updates(id)
	if got := answer(ups, "agent_thought_chunk"); !strings.HasPrefix(got, "**Planning the reply**\n\nThe user wants") {
		t.Fatalf("thought = %q", got)
	}
	if got := answer(ups, "agent_message_chunk"); got != "Here is my answer after thinking. It has two chunks." {
		t.Fatalf("answer = %q", got)
	}
}

// cardUpdates returns the tool_call / tool_call_update updates of a card.
func cardUpdates(ups []acptest.Update, id string) []map[string]any {
	var out []map[string]any
	for _, u := range ups {
		if k := u.Kind(); k != "tool_call" && k != "tool_call_update" {
			continue
		}
		var m map[string]any
		_ = json.Unmarshal(u.Update, &m)
		if m["toolCallId"] == id {
			out = append(out, m)
		}
	}
	return out
}

func statuses(cards []map[string]any) string {
	var s []string
	for _, c := range cards {
		if st, ok := c["status"].(string); ok {
			s = append(s, st)
		}
	}
	return strings.Join(s, ",")
}

func TestGeminiReadApprovedOnItsOwnCard(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "read-file.sse"), geminiCaptured(t, "read-file-reply.sse"))
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(optApprove) }}}
	s := geminiShim(t, g, perms.handler)
	id := s.newSession(t, t.TempDir())
	if got := stopReason(t, s.prompt(t, id, "Read hello.txt.")); got != "end_turn" {
		t.Fatalf("stop = %s", got)
	}
	const callID = "read_file-1796113948191-7f0179a061d1d"
	if perms.count() != 1 {
		t.Fatalf("asked %d times", perms.count())
	}
	asked := perms.asked[0]
	if tc, _ := asked["toolCall"].(map[string]any); tc["toolCallId"] != callID {
		t.Fatalf("permission asked about %v", asked["toolCall"])
	}
	var kinds []string
	for _, o := range asked["options"].([]any) {
		kinds = append(kinds, o.(map[string]any)["kind"].(string))
	}
	if got := strings.Join(kinds, ","); got != "allow_once,allow_always,reject_once" {
		t.Fatalf("options = %s", got)
	}
	msgs := g.messages()
	parts, _ := json.Marshal(msgs[1]["parts"])
	if string(parts) != `[{"data":{"callId":"`+callID+`","outcome":"proceed_once"},"kind":"data"}]` {
		t.Fatalf("answer parts = %s", parts)
	}
	ups := s.Updates(id)
	cards := cardUpdates(ups, callID)
	if len(cards) == 0 || cards[0]["kind"] != "read" || cards[0]["title"] != "Read /home/dev/ws/hello.txt" {
		t.Fatalf("cards = %v", cards)
	}
	if got := statuses(cards); got != "pending,in_progress,completed" {
		t.Fatalf("statuses = %s", got)
	}
	if n := count(ups, "tool_call"); n != 1 {
		t.Fatalf("%d cards opened, want only the call's own", n)
	}
	if got := answer(ups, "agent_message_chunk"); got != "Let me read the file.\n\nThe tool read_file ran. That is all I needed." {
		t.Fatalf("answer = %q", got)
	}
}

func TestGeminiShellDeniedFailsClosed(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "shell-deny.sse"), geminiCaptured(t, "shell-deny-reply.sse"))
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) {
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, nil
	}}}
	s := geminiShim(t, g, perms.handler)
	id := s.newSession(t, t.TempDir())
	if got := stopReason(t, s.prompt(t, id, "Run it.")); got != "end_turn" {
		t.Fatalf("stop = %s", got)
	}
	parts, _ := json.Marshal(g.messages()[1]["parts"])
	if !strings.Contains(string(parts), `"outcome":"cancel"`) {
		t.Fatalf("a dismissed dialog must send cancel: %s", parts)
	}
	cards := cardUpdates(s.Updates(id), "run_shell_command-1796113948946-7a0ee54cc38c8")
	if len(cards) == 0 || cards[0]["kind"] != "execute" || !strings.HasPrefix(cards[0]["title"].(string), "echo shell-was-run") {
		t.Fatalf("cards = %v", cards)
	}
	if got := statuses(cards); got != "pending,failed" {
		t.Fatalf("statuses = %s", got)
	}
}

func TestGeminiShellApprovedShowsItsOutput(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "shell-approve.sse"), geminiCaptured(t, "shell-approve-reply.sse"))
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(optApproveSession) }}}
	s := geminiShim(t, g, perms.handler)
	id := s.newSession(t, t.TempDir())
	stopReason(t, s.prompt(t, id, "Run it."))
	parts, _ := json.Marshal(g.messages()[1]["parts"])
	if !strings.Contains(string(parts), `"outcome":"proceed_always"`) {
		t.Fatalf("allow always: %s", parts)
	}
	if meta := g.messages()[1]["metadata"]; meta != nil {
		t.Fatalf("the answer carries metadata %v: the agent remembers the allowance itself", meta)
	}
	cards := cardUpdates(s.Updates(id), "run_shell_command-1796113948586-269a6546dceca")
	if got := statuses(cards); got != "pending,in_progress,completed" {
		t.Fatalf("statuses = %s", got)
	}
	b, _ := json.Marshal(cards)
	if !strings.Contains(string(b), "shell-was-run") {
		t.Fatalf("no output on the card: %s", b)
	}
}

func TestGeminiCancelDropsTheStreamNotTheTask(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "text.sse"), "", geminiCaptured(t, "text-second-turn.sse"))
	s := geminiShim(t, g, nil)
	id := s.newSession(t, t.TempDir())
	stopReason(t, s.prompt(t, id, "hi"))
	ch, _ := s.Start("session/prompt", promptArgs(id, "slow"))
	s.WaitFor("the slow chunk", func(ms []acptest.Message) bool {
		for _, m := range ms {
			if m.Method == "session/update" && strings.Contains(string(m.Params), "slow chunk 1.") {
				return true
			}
		}
		return false
	})
	s.Notify("session/cancel", map[string]any{"sessionId": id})
	if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("stop = %s", got)
	}
	select {
	case <-g.dropped:
	case <-time.After(10 * time.Second):
		t.Fatal("the running stream's connection was not dropped")
	}
	if g.called("tasks/cancel") {
		t.Fatal("tasks/cancel was sent")
	}
	if got := stopReason(t, s.prompt(t, id, "again")); got != "end_turn" {
		t.Fatalf("the task is not usable after the cancel: %s", got)
	}
	if last := g.messages()[2]; last["taskId"] != "a6a0ef65-5f28-4242-9a2f-68fc77e49d9a" {
		t.Fatalf("the next prompt does not continue the task: %v", last)
	}
}

func TestGeminiLoadIsAResumeSaidOnce(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "text.sse"))
	s := geminiShim(t, g, nil)
	cwd := t.TempDir()
	id := s.newSession(t, cwd)
	stopReason(t, s.prompt(t, id, "Say hello."))
	before := len(s.Updates(id))
	for i := 0; i < 2; i++ {
		if m := s.Call("session/load", map[string]any{"sessionId": id, "cwd": cwd, "mcpServers": []any{}}); m.Error != nil {
			t.Fatalf("load: %v", m.Error)
		}
	}
	// A prompt after the loads: its updates come after any note queued
	// behind the load responses.
	g.mu.Lock()
	g.bodies = append(g.bodies, geminiCaptured(t, "text-second-turn.sse"))
	g.mu.Unlock()
	stopReason(t, s.prompt(t, id, "Again."))
	added := s.Updates(id)[before:]
	notes := 0
	for _, u := range added {
		if u.Kind() == "user_message_chunk" {
			t.Fatalf("the thread was replayed: %s", u.Update)
		}
		if strings.Contains(u.Text(), "does not give back a thread's earlier messages") {
			notes++
		}
	}
	if notes != 1 {
		t.Fatalf("%d notes, want 1", notes)
	}
}

// TestGeminiAlwaysIsNotShimsMode: the agent's "allow always" is the
// agent's to remember: choosing it leaves shim's mode alone; shim's own
// allow-commands mode still approves a command (once) without asking.
func TestGeminiAlwaysIsNotShimsMode(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "shell-approve.sse"), geminiCaptured(t, "shell-approve-reply.sse"),
		geminiCaptured(t, "shell-approve.sse"), geminiCaptured(t, "shell-approve-reply.sse"))
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(optApproveSession) }}}
	s := geminiShim(t, g, perms.handler)
	id := s.newSession(t, t.TempDir())
	stopReason(t, s.prompt(t, id, "Run it."))
	for _, u := range s.Updates(id) {
		if u.Kind() == "current_mode_update" || u.Kind() == "config_option_update" {
			t.Fatalf("the agent's always changed shim's mode: %s", u.Update)
		}
	}
	other := s.newSession(t, t.TempDir())
	if m := s.Call("session/set_mode", map[string]any{"sessionId": other, "modeId": "allow-commands"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	stopReason(t, s.prompt(t, other, "Run it."))
	if perms.count() != 1 {
		t.Fatalf("asked %d times, want once (allow-commands approves the second)", perms.count())
	}
	parts, _ := json.Marshal(g.messages()[3]["parts"])
	if !strings.Contains(string(parts), `"outcome":"proceed_once"`) {
		t.Fatalf("allow-commands answer: %s", parts)
	}
}

// TestGeminiDeleteCallIsAlwaysAsked: a park on a call whose own card is a
// delete is a delete: asked even in allow-commands, with no allow-always.
func TestGeminiDeleteCallIsAlwaysAsked(t *testing.T) {
	asDelete := strings.ReplaceAll(geminiCaptured(t, "shell-approve.sse"), `"kind":"execute"`, `"kind":"delete"`)
	g := startGemini(t, asDelete, geminiCaptured(t, "shell-approve-reply.sse"))
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(optApprove) }}}
	s := geminiShim(t, g, perms.handler)
	id := s.newSession(t, t.TempDir())
	if m := s.Call("session/set_mode", map[string]any{"sessionId": id, "modeId": "allow-commands"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	stopReason(t, s.prompt(t, id, "Run it."))
	if perms.count() != 1 {
		t.Fatalf("asked %d times", perms.count())
	}
	var kinds []string
	for _, o := range perms.asked[0]["options"].([]any) {
		kinds = append(kinds, o.(map[string]any)["kind"].(string))
	}
	if got := strings.Join(kinds, ","); got != "allow_once,reject_once" {
		t.Fatalf("options = %s", got)
	}
}

// TestGeminiShellAsTerminal: for a client that draws terminals, Gemini
// CLI's shell card (its own kind, execute) is a terminal: the card embeds
// it, its live output does not replace the terminal block, and its end
// carries the output and the exit code (SPEC §11.6, §12.5).
func TestGeminiShellAsTerminal(t *testing.T) {
	g := startGemini(t, geminiCaptured(t, "shell-approve.sse"), geminiCaptured(t, "shell-approve-reply.sse"))
	perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(optApprove) }}}
	s := startShim(t, g.url, func(o *Options, c *a2aclient.Config) { o.SteerGrace = 0 }, perms.handler)
	s.initWith(t, terminalCaps)
	id := s.newSession(t, t.TempDir())
	stopReason(t, s.prompt(t, id, "Run it."))
	const card = "run_shell_command-1796113948586-269a6546dceca"
	cards := cardUpdates(s.Updates(id), card)
	if len(cards) == 0 {
		t.Fatal("no shell card")
	}
	type term struct {
		TerminalID string `json:"terminal_id"`
		Data       string `json:"data"`
		ExitCode   *int   `json:"exit_code"`
	}
	var ups []struct {
		Content []struct {
			Type       string `json:"type"`
			TerminalID string `json:"terminalId"`
		} `json:"content"`
		Meta struct {
			Info   *term `json:"terminal_info"`
			Output *term `json:"terminal_output"`
			Exit   *term `json:"terminal_exit"`
		} `json:"_meta"`
	}
	b, _ := json.Marshal(cards)
	if err := json.Unmarshal(b, &ups); err != nil {
		t.Fatal(err)
	}
	for i, u := range ups {
		if u.Content != nil && (len(u.Content) != 1 || u.Content[0].Type != "terminal" || u.Content[0].TerminalID != card) {
			t.Errorf("update %d replaces the terminal block: %+v", i, u.Content)
		}
	}
	if in := ups[0].Meta.Info; in == nil || in.TerminalID != card {
		t.Errorf("the card does not announce its terminal: %s", b)
	}
	end := ups[len(ups)-1].Meta
	if end.Output == nil || end.Output.TerminalID != card || !strings.Contains(end.Output.Data, "shell-was-run") ||
		end.Exit == nil || end.Exit.ExitCode == nil || *end.Exit.ExitCode != 0 {
		t.Errorf("the end carries no output and exit code: %s", b)
	}
}

// cardState folds a card's updates as an editor does: each field an
// update carries replaces the one before.
func cardState(cards []map[string]any) map[string]any {
	st := map[string]any{}
	for _, c := range cards {
		for k, v := range c {
			st[k] = v
		}
	}
	return st
}

// TestGeminiReadFollowsTheFile: the captured read_file of a file in the
// session's folder (its path in request.args.file_path) ends as a
// completed card that carries the file's absolute location, for the
// editor to follow; the same read of a file outside the folder carries
// none.
func TestGeminiReadFollowsTheFile(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("Hello from the workspace.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inWS := func(name string) string { return strings.ReplaceAll(geminiCaptured(t, name), "/home/dev/ws", ws) }
	const callID = "read_file-1796113948191-7f0179a061d1d"
	for _, tc := range []struct {
		name, cwd string
		want      any
	}{
		{"in the session's folder", ws, []any{map[string]any{"path": filepath.Join(ws, "hello.txt")}}},
		{"outside it", t.TempDir(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := startGemini(t, inWS("read-file.sse"), inWS("read-file-reply.sse"))
			perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(optApprove) }}}
			s := geminiShim(t, g, perms.handler)
			id := s.newSession(t, tc.cwd)
			if got := stopReason(t, s.prompt(t, id, "Read hello.txt.")); got != "end_turn" {
				t.Fatalf("stop = %s", got)
			}
			cards := cardUpdates(s.Updates(id), callID)
			card := cardState(cards)
			if card["status"] != "completed" || card["title"] != "Read "+filepath.Join(ws, "hello.txt") {
				t.Fatalf("card = %v", card)
			}
			if !jsonEqual(card["locations"], tc.want) {
				t.Fatalf("locations = %v, want %v (updates %v)", card["locations"], tc.want, cards)
			}
		})
	}
}
