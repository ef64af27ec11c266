package a2aclient

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// snapshot is a task snapshot of the fake non-streaming agent.
func snapshot(state, status, answer string) map[string]any {
	t := map[string]any{"id": "t1", "contextId": "c1", "status": map[string]any{"state": state}}
	if status != "" {
		t["status"].(map[string]any)["message"] = map[string]any{"messageId": "s-" + status, "role": "ROLE_AGENT", "parts": []any{map[string]any{"text": status}}}
	}
	if answer != "" {
		t["artifacts"] = []any{map[string]any{"artifactId": "a1", "parts": []any{map[string]any{"text": answer}}}}
	}
	return t
}

// TestNonStreamingPolls: a card with streaming: false gets a send that
// asks to return at once (1.0 returnImmediately, 0.3 blocking: false);
// the working task is then polled with GetTask and each snapshot gives
// only what is new, until a terminal state. A server that blocks anyway
// answers the finished task, which is given as before, with no poll.
func TestNonStreamingPolls(t *testing.T) {
	for _, dialect := range []string{"1.0", "0.3"} {
		for _, blocks := range []bool{false, true} {
			name := dialect + map[bool]string{false: " polled", true: " blocking"}[blocks]
			t.Run(name, func(t *testing.T) {
				snaps := []map[string]any{
					snapshot("TASK_STATE_WORKING", "", ""),
					snapshot("TASK_STATE_WORKING", "reading", "Hel"),
					snapshot("TASK_STATE_WORKING", "reading", "Hel"),
					snapshot("TASK_STATE_WORKING", "writing", "Hello, wor"),
					snapshot("TASK_STATE_COMPLETED", "", "Hello, world"),
				}
				var polls atomic.Int32
				rec := &recorder{}
				mux := http.NewServeMux()
				mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
					if dialect == "0.3" {
						io.WriteString(w, card03("http://"+r.Host+"/rpc", false))
					} else {
						io.WriteString(w, card10("http://"+r.Host+"/rpc", "", false))
					}
				})
				mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
					x := rec.add(r)
					var result any
					switch x.RPC {
					case "SendMessage", "message/send":
						result = map[string]any{"task": snaps[0]}
						if blocks {
							result = map[string]any{"task": snaps[len(snaps)-1]}
						}
					case "GetTask", "tasks/get":
						n := int(polls.Add(1))
						result = snaps[min(n, len(snaps)-1)]
					}
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": result})
					w.Header().Set("Content-Type", "application/json")
					w.Write(b)
				})
				srv := httptest.NewServer(mux)
				defer srv.Close()
				c := newClient(t, Config{URL: srv.URL, Version: dialect, pollInterval: 1})
				s, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hi"}}})
				if err != nil {
					t.Fatal(err)
				}
				evs, err := drain(t, s)
				if !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				send := rec.rpcs()[0]
				conf, _ := send.Params["configuration"].(map[string]any)
				if dialect == "1.0" && conf["returnImmediately"] != true || dialect == "0.3" && conf["blocking"] != false {
					t.Errorf("send params %v", send.Params)
				}
				var shown []string
				for _, ev := range evs {
					switch ev.Kind {
					case a2a.EventArtifact:
						shown = append(shown, "artifact "+ev.Artifact.Parts[0].Text)
					case a2a.EventStatus:
						s := "status " + string(ev.Status.State)
						if ev.Status.Message != nil {
							s += " " + ev.Status.Message.Text()
						}
						shown = append(shown, s)
					}
				}
				want := "status working|artifact Hel|status working reading|artifact Hello, wor|status working writing|artifact Hello, world|status completed"
				if blocks {
					want = "artifact Hello, world|status completed"
					if polls.Load() != 0 {
						t.Errorf("a blocking answer was polled %d times", polls.Load())
					}
				}
				if got := strings.Join(shown, "|"); got != want {
					t.Errorf("events\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}
