package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/roots"
)

// TestCommandNames pins SPEC §11.1's rules: lowercase, runs outside
// [a-z0-9_-] one "-", trimmed, cut at 32, clashes numbered, status
// reserved; the description's first line (at most 200 characters) else
// the skill's name; the first example (at most 80) as the input hint.
func TestCommandNames(t *testing.T) {
	long := strings.Repeat("d", 250)
	card := &a2a.Card{Skills: []a2a.Skill{
		{ID: "Review PR!", Name: "Review", Description: "  Reviews a pull request\nin depth", Examples: []string{"#12 please", "other"}},
		{ID: "review  pr", Name: "Second review"},
		{ID: "status", Name: "Agent status"},
		{ID: "--Ünïcode__and spaces: a very long identifier indeed--", Description: long, Examples: []string{strings.Repeat("é", 100)}},
		{ID: "Status", Name: "Another status", Examples: []string{""}},
		{ID: "***", Name: "Stars"},
	}}
	got := commandsOf(card)
	want := []acp.AvailableCommand{
		{Name: "review-pr", Description: "Reviews a pull request", Input: &acp.CommandInput{Hint: "#12 please"}},
		{Name: "review-pr-2", Description: "Second review"},
		{Name: "status-2", Description: "Agent status"},
		{Name: "n-code__and-spaces-a-very-long-i", Description: strings.Repeat("d", 200), Input: &acp.CommandInput{Hint: strings.Repeat("é", 80)}},
		{Name: "status-3", Description: "Another status"},
		{Name: "stars", Description: "Stars"},
		{Name: "status", Description: got.list[len(got.list)-1].Description},
	}
	if a, b := mustJSON(t, got.list), mustJSON(t, want); a != b {
		t.Errorf("commands\n got %s\nwant %s", a, b)
	}
	for name, id := range map[string]string{"review-pr": "Review PR!", "review-pr-2": "review  pr", "status-2": "status", "stars": "***"} {
		if got.skillOf[name] != id {
			t.Errorf("%s names skill %q, want %q", name, got.skillOf[name], id)
		}
	}
	if _, ok := got.skillOf["status"]; ok {
		t.Error("status is shim's own, not a skill")
	}
	if none := commandsOf(nil); len(none.list) != 1 || none.list[0].Name != "status" {
		t.Errorf("no card: %+v", none.list)
	}
}

// TestCommandsBounded: a card of 5,000 skills that share one id gives a
// list of at most 1,000 commands (SPEC §13 amended), shim's own last, the
// names unique and numbered in order.
func TestCommandsBounded(t *testing.T) {
	card := &a2a.Card{}
	for range 5000 {
		card.Skills = append(card.Skills, a2a.Skill{ID: "Same Skill", Name: "same"})
	}
	got := commandsOf(card)
	if n := len(got.list); n != commandsMax {
		t.Fatalf("%d commands, want %d", n, commandsMax)
	}
	names := map[string]bool{}
	for _, c := range got.list {
		if names[c.Name] {
			t.Fatalf("name %q twice", c.Name)
		}
		names[c.Name] = true
	}
	if a, b, last := got.list[0].Name, got.list[commandsMax-2].Name, got.list[commandsMax-1].Name; a != "same-skill" || b != "same-skill-999" || last != "status" {
		t.Errorf("names %q … %q, %q", a, b, last)
	}
}

// TestCommandNamingLinear: naming n commands tries O(n) names whatever the
// skills are: here the worst case for a numbering that starts at 2 every
// time, k names "x-2" … "x-(k+1)" taken first and then k skills "x" (which
// tried k²/2 names).
func TestCommandNamingLinear(t *testing.T) {
	const k = 2000
	nm := newNamer(statusCommand)
	var bases []string
	for i := range k {
		bases = append(bases, fmt.Sprintf("x-%d", i+2))
	}
	for range k {
		bases = append(bases, "x")
	}
	seen := map[string]bool{}
	for _, b := range bases {
		name := nm.name(b)
		if seen[name] {
			t.Fatalf("name %q given twice", name)
		}
		seen[name] = true
	}
	if nm.tried > 3*len(bases) {
		t.Errorf("%d names tried for %d commands, want at most %d", nm.tried, len(bases), 3*len(bases))
	}
}

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
