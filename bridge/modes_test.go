package bridge

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/acptest"
)

func withModels(models ...string) func(*Options, *a2aclient.Config) {
	return func(o *Options, _ *a2aclient.Config) { o.Models = models }
}

// sessionState reads configOptions and modes from a response.
type sessionState struct {
	ConfigOptions []struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		Category     string `json:"category"`
		Type         string `json:"type"`
		CurrentValue string `json:"currentValue"`
		Options      []struct {
			Value string `json:"value"`
			Name  string `json:"name"`
		} `json:"options"`
	} `json:"configOptions"`
	Modes struct {
		CurrentModeID  string `json:"currentModeId"`
		AvailableModes []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"availableModes"`
	} `json:"modes"`
}

// summary is "id=value[v1,v2] … | mode [m1,m2]".
func (st sessionState) summary() string {
	var b strings.Builder
	for _, o := range st.ConfigOptions {
		var vals []string
		for _, v := range o.Options {
			vals = append(vals, v.Value+":"+v.Name)
		}
		b.WriteString(o.ID + "(" + o.Name + "," + o.Category + "," + o.Type + ")=" + o.CurrentValue + "[" + strings.Join(vals, ",") + "] ")
	}
	var modes []string
	for _, m := range st.Modes.AvailableModes {
		modes = append(modes, m.ID+":"+m.Name)
	}
	b.WriteString("| " + st.Modes.CurrentModeID + " [" + strings.Join(modes, ",") + "]")
	return b.String()
}

func stateOf(t *testing.T, m acptest.Message) sessionState {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %v", m.Error)
	}
	var st sessionState
	if err := json.Unmarshal(m.Result, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

const (
	permsAsk   = "permissions(Permissions,mode,select)=ask[ask:Ask every time,allow-commands:Allow commands this session] "
	permsAllow = "permissions(Permissions,mode,select)=allow-commands[ask:Ask every time,allow-commands:Allow commands this session] "
	modesList  = " [ask:Ask every time,allow-commands:Allow commands this session]"
)

// TestConfigOptionsOnResponses: new, load and resume answer with the
// complete options in SPEC's order (the model picker only with --models)
// and modes in the same state; a loaded thread starts in ask.
func TestConfigOptionsOnResponses(t *testing.T) {
	api := newOpAPI()
	const loaded = "chat-zed-1-aaa"
	api.setTurns(loaded, opTurn("t0", "TASK_STATE_COMPLETED", "hi", nil, "hi", userMsg("hello")))
	f := withOperator(t, api)

	s := startShim(t, f.url, nil, nil)
	s.init(t)
	got := stateOf(t, s.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})).summary()
	if want := permsAsk + "| ask" + modesList; got != want {
		t.Errorf("new without --models:\n got %s\nwant %s", got, want)
	}

	s = startShim(t, f.url, withModels("gpt-x", "claude-y"), nil)
	s.init(t)
	models := "model(Model,model,select)=default[default:Agent's default,gpt-x:gpt-x,claude-y:claude-y] "
	for _, call := range []struct {
		method string
		args   map[string]any
	}{
		{"session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}},
		{"session/load", loadArgs(loaded, "/tmp")},
		{"session/resume", loadArgs(loaded, "/tmp")},
	} {
		got := stateOf(t, s.Call(call.method, call.args)).summary()
		if want := permsAsk + models + "| ask" + modesList; got != want {
			t.Errorf("%s:\n got %s\nwant %s", call.method, got, want)
		}
	}
}

// modeAgent answers each turn: a message with "cmd" parks on a command
// approval, "del" on a delete; a resume completes.
func modeAgent(t *testing.T) *fakeAgent {
	f := newFake(t)
	var mu sync.Mutex
	n := 0
	f.stream = func(w *sseWriter, c rpcCall) {
		if tid, _ := c.message()["taskId"].(string); tid != "" {
			w.status(tid, "TASK_STATE_COMPLETED", nil)
			return
		}
		mu.Lock()
		n++
		tid := "t" + string(rune('0'+n))
		mu.Unlock()
		w.task(tid, "TASK_STATE_SUBMITTED")
		switch {
		case strings.Contains(c.text(), "cmd"):
			toolFrameTask(w, tid, map[string]any{"toolCallId": "c-" + tid, "name": "run_command", "phase": "started", "args": `{"command": "ls"}`})
			parkApproval(w, tid, "Approve shell command?", "ls")
		case strings.Contains(c.text(), "del"):
			toolFrameTask(w, tid, map[string]any{"toolCallId": "d-" + tid, "name": "delete_file", "phase": "started", "args": `{"path": "x"}`})
			parkApproval(w, tid, "Approve permanent file delete?", "x")
		default:
			w.status(tid, "TASK_STATE_COMPLETED", nil)
		}
	}
	return f
}

func toolFrameTask(w *sseWriter, taskID string, payload map[string]any) {
	w.status(taskID, "TASK_STATE_WORKING", map[string]any{"role": "ROLE_AGENT", "messageId": "m",
		"metadata": map[string]any{toolExt: payload}})
}

// TestSetMode: set_mode allow-commands sends bypass_permissions on every
// later message and auto-approves command approvals (a delete is still
// asked); the config picker hears of it after the answer; back to ask
// stops both from the next message on.
func TestSetMode(t *testing.T) {
	f := modeAgent(t)
	perms := &permissions{}
	s := startShim(t, f.url, nil, perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	if m := s.Call("session/set_mode", map[string]any{"sessionId": id, "modeId": "allow-commands"}); m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("set_mode: %v %s", m.Error, m.Result)
	}
	stopReason(t, s.prompt(t, id, "run cmd"))
	if perms.count() != 0 {
		t.Fatalf("a command in allow-commands was asked: %v", perms.asked)
	}
	stopReason(t, s.prompt(t, id, "now del"))
	if perms.count() != 1 {
		t.Fatalf("a delete must be asked in allow-commands too: %d asks", perms.count())
	}
	if m := s.Call("session/set_mode", map[string]any{"sessionId": id, "modeId": "ask"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	stopReason(t, s.prompt(t, id, "cmd again"))
	if perms.count() != 2 {
		t.Errorf("back in ask, the command must be asked: %d asks", perms.count())
	}
	want := []string{
		`task=<nil> text="run cmd" meta={"bypass_permissions":true}`,
		`task=t1 text="approved" meta={"bypass_permissions":true,"hitl_resume":true}`,
		`task=<nil> text="now del" meta={"bypass_permissions":true}`,
		`task=t2 text="denied" meta={"bypass_permissions":true,"hitl_resume":true}`,
		`task=<nil> text="cmd again" meta=null`,
		`task=t3 text="denied" meta={"hitl_resume":true}`,
	}
	if got := resumes(f); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var values []string
	for _, u := range s.Updates(id) {
		if u.Kind() == "config_option_update" {
			var v struct {
				ConfigOptions []struct {
					ID           string `json:"id"`
					CurrentValue string `json:"currentValue"`
				} `json:"configOptions"`
			}
			_ = json.Unmarshal(u.Update, &v)
			values = append(values, v.ConfigOptions[0].ID+"="+v.ConfigOptions[0].CurrentValue)
		}
	}
	if strings.Join(values, " ") != "permissions=allow-commands permissions=ask" {
		t.Errorf("config_option_update after set_mode: %v", values)
	}
	if n := strings.Count(answer(s.Updates(id), "agent_message_chunk"), "asks before every command"); n != 1 {
		t.Errorf("the no-skip note %d times", n)
	}
}

// TestSetModeAutoApprovalAtOnce: a mode change while a turn runs leaves
// its message alone but auto-approval follows it at once.
func TestSetModeAutoApprovalAtOnce(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	f.stream = func(w *sseWriter, c rpcCall) {
		if tid, _ := c.message()["taskId"].(string); tid != "" {
			w.status(tid, "TASK_STATE_COMPLETED", nil)
			return
		}
		w.task("t1", "TASK_STATE_SUBMITTED")
		<-release
		toolFrame(w, map[string]any{"toolCallId": "c1", "name": "run_command", "phase": "started", "args": `{"command": "ls"}`})
		parkApproval(w, "t1", "Approve shell command?", "ls")
	}
	perms := &permissions{}
	s := startShim(t, f.url, nil, perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	ch, _ := s.Start("session/prompt", promptArgs(id, "go"))
	waitCalls(t, f, "SendStreamingMessage", 1)
	if m := s.Call("session/set_mode", map[string]any{"sessionId": id, "modeId": "allow-commands"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	close(release)
	stopReason(t, s.Wait(ch, "prompt"))
	if perms.count() != 0 {
		t.Errorf("auto-approval must follow the mode at once: %d asks", perms.count())
	}
	want := []string{
		`task=<nil> text="go" meta=null`,
		`task=t1 text="approved" meta={"bypass_permissions":true,"hitl_resume":true}`,
	}
	if got := resumes(f); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAllowSwitchesMode: "Allow for this session" in the permission
// dialog puts the session in allow-commands and tells the editor with
// current_mode_update and config_option_update (the complete list).
func TestAllowSwitchesMode(t *testing.T) {
	f := approvalAgent(t)
	perms := &permissions{replies: []func() (any, *acptest.RPCError){
		func() (any, *acptest.RPCError) { return selected("approve_session") },
	}}
	s := startShim(t, f.url, withModels("m1"), perms.handler)
	s.init(t)
	id := s.newSession(t, "/tmp")
	stopReason(t, s.prompt(t, id, "test it"))
	var kinds []string
	for _, u := range s.Updates(id) {
		switch u.Kind() {
		case "current_mode_update", "config_option_update":
			var v map[string]any
			_ = json.Unmarshal(u.Update, &v)
			b, _ := json.Marshal(v)
			kinds = append(kinds, string(b))
		}
	}
	want := []string{
		`{"currentModeId":"allow-commands","sessionUpdate":"current_mode_update"}`,
		`{"configOptions":[{"category":"mode","currentValue":"allow-commands","id":"permissions","name":"Permissions","options":[{"name":"Ask every time","value":"ask"},{"name":"Allow commands this session","value":"allow-commands"}],"type":"select"},` +
			`{"category":"model","currentValue":"default","id":"model","name":"Model","options":[{"name":"Agent's default","value":"default"},{"name":"m1","value":"m1"}],"type":"select"}],"sessionUpdate":"config_option_update"}`,
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
}

// TestSetConfigOption: the model picker sends metadata model from the
// next message ("default" sends none); permissions set through it is
// the mode (the mode picker hears of it); the answer is the complete
// list; unknown session, option or value are -32602.
func TestSetConfigOption(t *testing.T) {
	f := newFake(t)
	answering(f, "ok")
	s := startShim(t, f.url, withModels("gpt-x"), nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	set := func(configID string, value any) acptest.Message {
		return s.Call("session/set_config_option", map[string]any{"sessionId": id, "configId": configID, "value": value})
	}
	st := stateOf(t, set("model", "gpt-x"))
	if got, want := st.summary(), permsAsk+"model(Model,model,select)=gpt-x[default:Agent's default,gpt-x:gpt-x] |  []"; got != want {
		t.Errorf("set model:\n got %s\nwant %s", got, want)
	}
	stopReason(t, s.prompt(t, id, "one"))
	st = stateOf(t, set("permissions", "allow-commands"))
	if !strings.HasPrefix(st.summary(), permsAllow) {
		t.Errorf("set permissions: %s", st.summary())
	}
	s.WaitFor("current_mode_update", func(ms []acptest.Message) bool {
		for _, m := range ms {
			if strings.Contains(string(m.Raw), `"current_mode_update"`) && strings.Contains(string(m.Raw), `"allow-commands"`) {
				return true
			}
		}
		return false
	})
	stateOf(t, set("model", "default"))
	stopReason(t, s.prompt(t, id, "two"))
	want := []string{
		`task=<nil> text="one" meta={"model":"gpt-x"}`,
		`task=<nil> text="two" meta={"bypass_permissions":true}`,
	}
	if got := resumes(f); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []map[string]any{
		{"sessionId": "nope", "configId": "model", "value": "gpt-x"},
		{"sessionId": id, "configId": "temperature", "value": "1"},
		{"sessionId": id, "configId": "model", "value": "gpt-z"},
		{"sessionId": id, "configId": "permissions", "value": "yolo"},
		{"sessionId": id, "configId": "permissions", "type": "boolean", "value": true},
	} {
		if m := s.Call("session/set_config_option", bad); m.Error == nil || m.Error.Code != -32602 {
			t.Errorf("%v: %v", bad, m.Error)
		}
	}
	for _, bad := range []map[string]any{{"sessionId": "nope", "modeId": "ask"}, {"sessionId": id, "modeId": "yolo"}} {
		if m := s.Call("session/set_mode", bad); m.Error == nil || m.Error.Code != -32602 {
			t.Errorf("%v: %v", bad, m.Error)
		}
	}
	// Without --models there is no model option.
	s2 := startShim(t, f.url, nil, nil)
	s2.init(t)
	id2 := s2.newSession(t, "/tmp")
	if m := s2.Call("session/set_config_option", map[string]any{"sessionId": id2, "configId": "model", "value": "default"}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("model without --models: %v", m.Error)
	}
}
