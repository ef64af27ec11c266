package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/roots"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func reviewSkills() []any {
	return []any{
		map[string]any{"id": "Review PR", "name": "Review", "description": "Reviews a pull request\nin depth", "examples": []any{"#12"}, "tags": []any{}},
		map[string]any{"id": "plan", "name": "Plan", "description": "", "tags": []any{}},
	}
}

// commandsUpdates returns the available_commands_update lists of a session.
func commandsUpdates(t *testing.T, s *testShim, id string) [][]map[string]any {
	t.Helper()
	var out [][]map[string]any
	for _, u := range s.Updates(id) {
		if u.Kind() != "available_commands_update" {
			continue
		}
		var v struct {
			AvailableCommands []map[string]any `json:"availableCommands"`
		}
		_ = json.Unmarshal(u.Update, &v)
		out = append(out, v.AvailableCommands)
	}
	return out
}

func commandNames(list []map[string]any) string {
	var names []string
	for _, c := range list {
		names = append(names, fmt.Sprint(c["name"]))
	}
	return strings.Join(names, " ")
}

// waitCommands waits for the n-th commands update of a session.
func waitCommands(t *testing.T, s *testShim, id string, n int) [][]map[string]any {
	t.Helper()
	s.WaitFor(fmt.Sprintf("commands update %d of %s", n, id), func(ms []acptest.Message) bool {
		seen := 0
		for _, m := range ms {
			var u acptest.Update
			if m.Method == "session/update" && json.Unmarshal(m.Params, &u) == nil && u.SessionID == id && u.Kind() == "available_commands_update" {
				seen++
			}
		}
		return seen >= n
	})
	return commandsUpdates(t, s, id)
}

func commandsUpdatesRaw(s *testShim, id string) []acptest.Update {
	var out []acptest.Update
	for _, u := range s.Updates(id) {
		if u.Kind() == "available_commands_update" {
			out = append(out, u)
		}
	}
	return out
}

// TestCommandsAfterResponses: session/new, load and resume are each
// followed, after their response and never before, by the card's skills
// then status.
func TestCommandsAfterResponses(t *testing.T) {
	api := newOpAPI()
	const loaded = "chat-zed-1-aaa"
	api.setTurns(loaded, opTurn("t0", "TASK_STATE_COMPLETED", "hi", nil, "hi", userMsg("hello")))
	f := withOperator(t, api)
	f.setSkills(reviewSkills()...)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	ch, rid := s.Start("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	m := s.Wait(ch, "new")
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(m.Result, &r)
	lists := waitCommands(t, s, r.SessionID, 1)
	if got := commandNames(lists[0]); got != "review-pr plan status" {
		t.Errorf("commands %q", got)
	}
	if lists[0][0]["description"] != "Reviews a pull request" || lists[0][1]["description"] != "Plan" {
		t.Errorf("descriptions %v", lists[0])
	}
	if in, _ := lists[0][0]["input"].(map[string]any); in["hint"] != "#12" {
		t.Errorf("input %v", lists[0][0]["input"])
	}
	if _, ok := lists[0][1]["input"]; ok {
		t.Errorf("a skill with no example has no input: %v", lists[0][1])
	}
	assertAfter(t, s, rid, r.SessionID, 0)

	for i, method := range []string{"session/load", "session/resume"} {
		ch, rid := s.Start(method, loadArgs(loaded, "/tmp"))
		if m := s.Wait(ch, method); m.Error != nil {
			t.Fatalf("%s: %v", method, m.Error)
		}
		lists := waitCommands(t, s, loaded, i+1)
		if got := commandNames(lists[i]); got != "review-pr plan status" {
			t.Errorf("%s: commands %q", method, got)
		}
		assertAfter(t, s, rid, loaded, i)
	}
}

// assertAfter checks that the response with JSON-RPC id rid is preceded
// by the prior commands updates of the session only, and followed by one.
func assertAfter(t *testing.T, s *testShim, rid, sid string, prior int) {
	t.Helper()
	ms := s.Messages()
	resp := responseIndex(ms, rid)
	after, before := false, 0
	for i, m := range ms {
		if m.Method != "session/update" {
			continue
		}
		var u acptest.Update
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID != sid || u.Kind() != "available_commands_update" {
			continue
		}
		if i < resp {
			before++
		} else {
			after = true
		}
	}
	if before != prior {
		t.Errorf("commands before the response %s", rid)
	}
	if !after {
		t.Errorf("no commands after the response %s", rid)
	}
}

// TestCommandsResentOnCardChange: when the card in use changes (here: a
// new card after authenticate), every open session gets the new list;
// an unchanged card sends nothing again.
func TestCommandsResentOnCardChange(t *testing.T) {
	f := newFake(t)
	f.setSkills(reviewSkills()...)
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	a := s.newSession(t, "/tmp")
	b := s.newSession(t, "/tmp")
	waitCommands(t, s, a, 1)
	waitCommands(t, s, b, 1)
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-credentials"}); m.Error != nil {
		t.Fatalf("authenticate: %v", m.Error)
	}
	f.setSkills(map[string]any{"id": "deploy", "name": "Deploy", "description": "Ships it", "tags": []any{}})
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-credentials"}); m.Error != nil {
		t.Fatalf("authenticate: %v", m.Error)
	}
	for _, id := range []string{a, b} {
		lists := waitCommands(t, s, id, 2)
		if got := commandNames(lists[len(lists)-1]); got != "deploy status" {
			t.Errorf("%s: commands %q", id, got)
		}
	}
	// A prompt in the same session keeps its order behind the re-send.
	answering(f, "ok")
	stopReason(t, s.prompt(t, a, "hello"))
	if n := len(commandsUpdatesRaw(s, a)); n != 2 {
		t.Errorf("the unchanged card re-sent the commands: %d updates", n)
	}
}

// TestStatusCommand: /status is answered by shim (no A2A message): the
// agent's name, URL, dialect and binding, endpoint, where the credentials
// came from (never the token), the permission mode and model; end_turn.
func TestStatusCommand(t *testing.T) {
	f := newFake(t)
	f.setSkills(reviewSkills()...)
	const secret = "s3cret-token-value"
	s := startShim(t, f.url, func(o *Options, c *a2aclient.Config) {
		c.Token = secret
		o.Models = []string{"gpt-x"}
		o.CredentialSource = func() string { return "the --token flag" }
	}, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if m := s.Call("session/set_config_option", map[string]any{"sessionId": id, "configId": "model", "value": "gpt-x"}); m.Error != nil {
		t.Fatalf("set model: %v", m.Error)
	}
	if got := stopReason(t, s.prompt(t, id, "/status")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	text := answer(s.Updates(id), "agent_message_chunk")
	for _, want := range []string{"Fake Agent", "URL: " + f.url, "A2A 1.0, JSON-RPC", "Endpoint: " + f.url + "/a2a",
		"Credentials: the --token flag", "Permissions: Ask every time (ask)", "Model: gpt-x"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	for _, m := range s.Messages() {
		if strings.Contains(string(m.Raw), secret) {
			t.Errorf("the token reached the editor: %s", m.Raw)
		}
	}
	if n := len(f.callsOf("SendStreamingMessage")); n != 0 {
		t.Errorf("/status sent %d A2A messages", n)
	}
}

// TestSkillHint: a prompt that starts with a skill's command keeps its
// text as typed (after the preamble) and carries the skill's original id
// as skillHint; any other /word is sent as typed with no hint.
func TestSkillHint(t *testing.T) {
	f := newFake(t)
	f.setSkills(reviewSkills()...)
	answering(f, "done")
	root := t.TempDir()
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) {
		o.RootOverrides = []roots.Root{{Name: "p", Path: root}}
	}, nil)
	s.init(t)
	id := s.newSession(t, root)
	for _, text := range []string{"/review-pr #12 now", "/unknown thing", "/plan", "please /plan"} {
		stopReason(t, s.prompt(t, id, text))
	}
	calls := f.callsOf("SendStreamingMessage")
	preamble := "[Context: the user is talking to you from Zed opened on your project `p` (" + root + "). Paths you read or search there are shown to them in the editor.]\n\n"
	want := []struct{ text, hint string }{
		{preamble + "/review-pr #12 now", "Review PR"},
		{"/unknown thing", ""},
		{"/plan", "plan"},
		{"please /plan", ""},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d sends", len(calls))
	}
	for i, w := range want {
		meta, _ := calls[i].message()["metadata"].(map[string]any)
		hint, _ := meta["skillHint"].(string)
		if calls[i].text() != w.text || hint != w.hint {
			t.Errorf("send %d: text %q hint %q, want %q %q", i, calls[i].text(), hint, w.text, w.hint)
		}
	}
}

// TestCommandsFromExtendedCard: the extended card read after the probe
// gives the skills; a session opened before it was read gets them again
// when it replaces the public card.
func TestCommandsFromExtendedCard(t *testing.T) {
	f := newFake(t)
	f.setSkills(reviewSkills()...)
	f.mu.Lock()
	f.extended = []any{map[string]any{"id": "deploy", "name": "Deploy", "description": "Ships it", "tags": []any{}}}
	f.mu.Unlock()
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	lists := waitCommands(t, s, id, 1)
	if got := commandNames(lists[0]); got != "deploy status" {
		t.Errorf("commands %q", got)
	}
	// authenticate reads the cards again: the public one first (its
	// skills), then the extended one; the session ends on the extended.
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-credentials"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	f.mu.Lock()
	f.extended = []any{map[string]any{"id": "rollback", "name": "Rollback", "tags": []any{}}}
	f.mu.Unlock()
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-credentials"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	s.WaitFor("the extended card's commands", func(ms []acptest.Message) bool {
		for _, m := range ms {
			if strings.Contains(string(m.Raw), `"available_commands_update"`) && strings.Contains(string(m.Raw), `"rollback"`) {
				return true
			}
		}
		return false
	})
}
