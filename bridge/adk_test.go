package bridge

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/threads"
)

// TestADKRecorded: Google ADK for TypeScript's own A2A server
// (testdata/frameworks/adk, @google/adk 2.0.0, Apache-2.0; see the README
// there) parks a delete on its tool confirmation: an input-required status
// whose one data part is ADK's function call adk_request_confirmation,
// its args the real call. The person sees the real call as a pending card
// (Delete notes/old.txt, kind delete, its args) and the data as key: value
// lines, never a running adk_request_confirmation card (SPEC §12.8); ADK
// takes no answer over A2A and parks again, asked again. As text, the
// next prompt answers it; as a form (the client draws forms), about the
// card, answered in the same prompt, then declined.
func TestADKRecorded(t *testing.T) {
	const dir = "frameworks/adk/"
	for _, tc := range []struct {
		name    string
		caps    map[string]any
		prompts []string
		replies []func() (any, *acptest.RPCError)
	}{
		{"adk-approval-words", nil, []string{"Delete the old notes.", "yes"}, nil},
		{"adk-approval-form", formCaps, []string{"Delete the old notes."},
			[]func() (any, *acptest.RPCError){accept(map[string]any{"answer": "yes"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := startReplay(t, dir+"01-card.response.json", dir+"09-approval-park-stream.response.sse",
				dir+"10-approval-resume-text-stream.response.sse")
			el := &elicitations{replies: tc.replies}
			s := startShim(t, a.url, nil, el.handler)
			s.initWith(t, tc.caps)
			id := s.newSession(t, "/tmp")
			got := ""
			for _, p := range tc.prompts {
				got += "stop " + stopReason(t, s.prompt(t, id, p)) + "\n"
			}
			got = shown(id, s.Updates(id), el.requests()) + got
			for _, m := range a.messages()[1:] {
				parts, _ := json.Marshal(m["parts"])
				meta, _ := json.Marshal(m["metadata"])
				got += "resume taskId " + m["taskId"].(string) + " parts " + string(parts) + " metadata " + string(meta) + "\n"
			}
			checkParksGolden(t, tc.name, got)
		})
	}
}

// adkRecorded reads a recorded ADK response body.
func adkRecorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/frameworks/adk/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// adkTasks serves ADK's recorded card and answers tasks/get from task
// (the task of an id, with its history or as the server gives it without
// historyLength: none); it returns its URL.
func adkTasks(t *testing.T, task func(id string, history bool) json.RawMessage) string {
	card := adkRecorded(t, "01-card.response.json")
	var url string
	url = startFake(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json" {
			_, _ = w.Write([]byte(recordedOrigin.ReplaceAllString(card, url)))
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
		}
		if r.URL.Path != "/jsonrpc" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.NotFound(w, r)
			return
		}
		id, _ := req.Params["id"].(string)
		_, history := req.Params["historyLength"]
		if res := task(id, history); req.Method == "tasks/get" && res != nil {
			writeRPC(w, req.ID, res, nil)
			return
		}
		writeRPC(w, req.ID, nil, &rpcErr{Code: -32001, Message: "Task not found"})
	}))
	return url
}

// loadADK loads thread (its tasks recorded in the index) from url and
// returns what the replay showed.
func loadADK(t *testing.T, url, thread string, taskIDs ...string) string {
	ix := threads.Open(t.TempDir(), nil)
	must(t, ix.Update(url, thread, func(e *threads.Entry) { e.Title, e.CWD, e.TaskIDs = "Q", "/w", taskIDs }))
	s := startShim(t, url, withIndex(ix, url, nil), nil)
	s.init(t)
	if m := s.Call("session/load", loadArgs(thread, "/w")); m.Error != nil {
		t.Fatalf("load: %v", m.Error)
	}
	return transcript(decodeUpdates(t, s.Updates(thread)))
}

// TestADKRecordedHistory: a thread of ADK for TypeScript is loaded from
// the tasks the index recorded (SPEC §4.5), read back from its @a2a-js/sdk
// 0.3 server as recorded: tasks/get without historyLength gives
// `history: []`, with it the task's user message. The replay shows the
// question before the answer: shim asks a 0.3 server for the history.
func TestADKRecordedHistory(t *testing.T) {
	const taskID = "9388e91c-8696-445a-a366-c37ca0f893b9"
	withHistory := adkRecorded(t, "12-history-tasks-get-1.response.json")
	without := adkRecorded(t, "16-history-tasks-get-1-no-history-length.response.json")
	url := adkTasks(t, func(id string, history bool) json.RawMessage {
		if id != taskID {
			return nil
		}
		body := without
		if history {
			body = withHistory
		}
		var rec struct{ Result json.RawMessage }
		_ = json.Unmarshal([]byte(body), &rec)
		return rec.Result
	})
	want := "user_message_chunk Say hello.\nagent_message_chunk Hello from ADK.\n"
	if got := loadADK(t, url, "ctx-capture-1", taskID); got != want {
		t.Errorf("replay:\n%s\nwant:\n%s", got, want)
	}
}

// TestADKRecordedParkReplayed: a thread whose last task is parked on
// ADK's tool confirmation (the task as its server keeps it: the user
// message and the park's status message in its history, the park its
// status; from the recorded stream) replays as the question with the
// call's data (SPEC §4.5, §12.8), never as a card of the
// adk_request_confirmation wrapper.
func TestADKRecordedParkReplayed(t *testing.T) {
	// The task as the server keeps it, its JSON values as recorded.
	var task map[string]json.RawMessage
	var history []json.RawMessage
	state := ""
	for _, line := range strings.Split(adkRecorded(t, "09-approval-park-stream.response.sse"), "\n") {
		var f struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &f) != nil {
			continue
		}
		switch string(f.Result["kind"]) {
		case `"task"`:
			task = f.Result
			_ = json.Unmarshal(task["history"], &history)
		case `"status-update"`:
			var st struct {
				State   string          `json:"state"`
				Message json.RawMessage `json:"message"`
			}
			_ = json.Unmarshal(f.Result["status"], &st)
			task["status"], state = f.Result["status"], st.State
			if st.Message != nil {
				history = append(history, st.Message)
			}
		}
	}
	if task == nil || state != "input-required" {
		t.Fatalf("the recording does not end parked: %q", state)
	}
	task["history"], _ = json.Marshal(history)
	var taskID string
	_ = json.Unmarshal(task["id"], &taskID)
	url := adkTasks(t, func(id string, history bool) json.RawMessage {
		if id != taskID {
			return nil
		}
		b, _ := json.Marshal(task)
		return b
	})
	got := loadADK(t, url, "ctx-capture-1", taskID)
	want := "user_message_chunk Delete the old notes. [scenario:delete]\n" +
		"agent_message_chunk **Input needed:** The agent is waiting for your answer.\n\n```\n" +
		"name: adk_request_confirmation\nargs.originalFunctionCall.name: delete_file\nargs.originalFunctionCall.args.path: notes/old.txt\n"
	if !strings.HasPrefix(got, want) || strings.Contains(got, "tool_call") {
		t.Errorf("replay:\n%s\nwant it to start:\n%s", got, want)
	}
}
