package a2aclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// adkRecorded reads a response Google ADK for TypeScript's own A2A server
// sent (bridge/testdata/frameworks/adk, @google/adk 2.0.0 with its
// @a2a-js/sdk 0.3.14, Apache-2.0).
func adkRecorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../bridge/testdata/frameworks/adk/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGetTaskWholeHistory: GetTask(HistoryAll) gets a task's history from
// a 0.3 server that sends none when historyLength is left out (the
// @a2a-js/sdk 0.3 server of Google ADK for TypeScript, replayed from its
// recorded answers: with historyLength, the task's user message; without,
// `history: []`), over JSON-RPC and over HTTP+JSON: 0.3 requests send
// history03Max. A 1.0 request leaves it out (unset is no limit in 1.0); a
// length asked for is sent as is in both.
func TestGetTaskWholeHistory(t *testing.T) {
	card := adkRecorded(t, "01-card.response.json")
	withHistory := adkRecorded(t, "12-history-tasks-get-1.response.json")
	without := adkRecorded(t, "16-history-tasks-get-1-no-history-length.response.json")
	const taskID = "9388e91c-8696-445a-a366-c37ca0f893b9"
	origin := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	for _, binding := range []string{"jsonrpc", "http+json"} {
		t.Run("0.3 "+binding, func(t *testing.T) {
			rec := &recorder{}
			var queries []string // guarded by the test: one request at a time
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				x := rec.add(r)
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.URL.Path == "/.well-known/agent-card.json":
					_, _ = w.Write([]byte(origin.ReplaceAllString(card, srv.URL)))
				case r.URL.Path == "/jsonrpc" && x.RPC == "tasks/get":
					body := without
					if _, ok := x.Params["historyLength"]; ok {
						body = withHistory
					}
					_, _ = w.Write([]byte(body))
				case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/rest/") && strings.HasSuffix(r.URL.Path, "/tasks/"+taskID):
					// The recorded JSON-RPC result, as an HTTP+JSON body.
					body := without
					if r.URL.Query().Has("historyLength") {
						body = withHistory
					}
					queries = append(queries, r.URL.RawQuery)
					var rpc struct{ Result json.RawMessage }
					_ = json.Unmarshal([]byte(body), &rpc)
					_, _ = w.Write(rpc.Result)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			c := newClient(t, Config{URL: srv.URL, Binding: binding})
			task, err := c.GetTask(ctxT(t), taskID, a2a.HistoryAll)
			if err != nil {
				t.Fatal(err)
			}
			if len(task.History) != 1 || task.History[0].Text() != "Say hello." {
				t.Fatalf("history %+v", task.History)
			}
			if _, err := c.GetTask(ctxT(t), taskID, 3); err != nil {
				t.Fatal(err)
			}
			got := queries
			for _, r := range rec.all() {
				if r.RPC == "tasks/get" {
					got = append(got, fmt.Sprint(r.Params["historyLength"]))
				}
			}
			want := []string{"1000", "3"}
			if binding == "http+json" {
				want = []string{"historyLength=1000", "historyLength=3"}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("historyLength sent: %q, want %q", got, want)
			}
		})
	}
	t.Run("1.0", testGetTaskWholeHistory10)
}

// testGetTaskWholeHistory10: a 1.0 GetTask of the whole history leaves
// historyLength out; a length asked for is sent (TestGetTaskWholeHistory).
func testGetTaskWholeHistory10(t *testing.T) {
	rec := &recorder{}
	srv := agentServer(t, rec, "", func(base string) string { return card10(base+"/a2a", "", true) })
	c := newClient(t, Config{URL: srv.URL})
	for _, n := range []int{a2a.HistoryAll, 3} {
		if _, err := c.GetTask(ctxT(t), "t1", n); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, r := range rec.all() {
		if r.RPC == "GetTask" {
			got = append(got, fmt.Sprint(r.Params["historyLength"]))
		}
	}
	if strings.Join(got, " ") != "<nil> 3" {
		t.Errorf("historyLength sent: %q", got)
	}
}
