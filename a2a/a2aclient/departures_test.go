package a2aclient

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	a2ago "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/shimdev/shim/a2a"
)

// strandsCapture reads a recorded exchange of Strands Agents' own A2A
// server (@strands-agents/sdk 1.19.0 on @a2a-js/sdk 0.3.14, Apache-2.0;
// bridge/testdata/frameworks/strands, e2e/lib/frameworks/strands).
func strandsCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../bridge/testdata/frameworks/strands/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// streamFor opens the turn's stream of contextID on a server that answers
// with body, and returns the client with it.
func streamFor(t *testing.T, contextID string, body []byte) (*Client, *Stream) {
	t.Helper()
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, string(body))
	})
	c := newClient(t, Config{Endpoint: ep, Version: "0.3"})
	s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: contextID, Parts: []a2a.Part{{Text: "Break. [scenario:fail]"}}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return c, s
}

// TestStrandsFailureUnderPlaceholderTaskID: Strands Agents (on @a2a-js/sdk
// 0.3.14's request handler) names the task in a `working` task frame,
// then, when its run throws, sends `status-update {state: failed, final:
// true}` under a task id of the SDK's making. The turn's stream gives that
// failure, with its message, as the failure of the task it named first
// (SPEC §16), and the log says so once.
func TestStrandsFailureUnderPlaceholderTaskID(t *testing.T) {
	body := strandsCapture(t, "06-failure-stream.response.sse")
	const task, placeholder = "295267ed-1aaf-4134-9082-083d0e897077", "1ab98820-8f02-4d43-b2d6-a50f5fc6ddc9"
	if !bytes.Contains(body, []byte(placeholder)) {
		t.Fatal("the capture lacks the placeholder id")
	}
	var logs logBuffer
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, string(body))
	})
	c := newClient(t, Config{Endpoint: ep, Version: "0.3", Log: logs.logger()})
	s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: "ctx-capture-1", Parts: []a2a.Part{{Text: "Break. [scenario:fail]"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := drain(t, s)
	if !errors.Is(err, io.EOF) || kinds(evs) != "task:working,status:failed" {
		t.Fatalf("got %s, %v", kinds(evs), err)
	}
	failed := evs[1]
	if failed.TaskID != task || !failed.Final || failed.ContextID != "ctx-capture-1" {
		t.Errorf("the failure is under %q (final %v, context %q), want the turn's task %q", failed.TaskID, failed.Final, failed.ContextID, task)
	}
	if got := failed.Status.Message.Text(); !strings.Contains(got, "The usage limit has been reached") {
		t.Errorf("the failure's message is %q", got)
	}
	if d := c.Departures(); len(d) != 1 || d[0] != a2a.DepartureFailureUnknownTask {
		t.Errorf("departures %v", d)
	}
	if n := strings.Count(logs.String(), string(a2a.DepartureFailureUnknownTask)); n != 1 {
		t.Errorf("%d log lines say it, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), placeholder) {
		t.Errorf("the log does not name the id the server sent:\n%s", logs.String())
	}
}

// TestOtherTaskFramesStillIgnored: a conforming stream is unaffected, and
// only a final failure (or rejection) of the turn's context under an id
// never named is read as the turn's: a non-final failure, a completed
// frame, a frame of another context, a failure before any task was named
// and a resubscription keep their task id, and nothing is said.
func TestOtherTaskFramesStillIgnored(t *testing.T) {
	task := `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}}`
	status := func(id, ctx, state string, final bool) string {
		f := "false"
		if final {
			f = "true"
		}
		return `{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"` + id + `","contextId":"` + ctx + `","status":{"state":"` + state + `"},"final":` + f + `}}`
	}
	sse := func(frames ...string) []byte {
		var b strings.Builder
		for _, f := range frames {
			b.WriteString("data: " + f + "\n\n")
		}
		return []byte(b.String())
	}
	cases := map[string]struct {
		body []byte
		want string // the last event's task id
	}{
		"conforming":             {sse(task, status("t1", "c1", "failed", true)), "t1"},
		"not final":              {sse(task, status("other", "c1", "failed", false)), "other"},
		"completed":              {sse(task, status("other", "c1", "completed", true)), "other"},
		"another context":        {sse(task, status("other", "c2", "failed", true)), "other"},
		"no task named before":   {sse(status("other", "c1", "failed", true)), "other"},
		"a task named before":    {sse(task, status("t2", "c1", "working", false), status("t2", "c1", "failed", true)), "t2"},
		"rejected, conforming":   {sse(task, status("t1", "c1", "rejected", true)), "t1"},
		"canceled under unknown": {sse(task, status("other", "c1", "canceled", true)), "other"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, s := streamFor(t, "c1", tc.body)
			evs, err := drain(t, s)
			if !errors.Is(err, io.EOF) || len(evs) == 0 {
				t.Fatalf("got %s, %v", kinds(evs), err)
			}
			if got := evs[len(evs)-1].TaskID; got != tc.want {
				t.Errorf("last event under %q, want %q", got, tc.want)
			}
			if d := c.Departures(); len(d) != 0 {
				t.Errorf("departures %v", d)
			}
		})
	}
	t.Run("rejected under unknown", func(t *testing.T) {
		c, s := streamFor(t, "c1", sse(task, status("other", "c1", "rejected", true)))
		evs, _ := drain(t, s)
		if got := evs[len(evs)-1].TaskID; got != "t1" || len(c.Departures()) != 1 {
			t.Errorf("last event under %q, departures %v; want t1, one", got, c.Departures())
		}
	})
	t.Run("resubscription", func(t *testing.T) {
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			sseStart(w)
			sseWrite(w, string(sse(task, status("other", "c1", "failed", true))))
		})
		c := newClient(t, Config{Endpoint: ep, Version: "0.3"})
		s, err := c.Resubscribe(ctxT(t), "t1")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		evs, _ := drain(t, s)
		if got := evs[len(evs)-1].TaskID; got != "other" || len(c.Departures()) != 0 {
			t.Errorf("last event under %q, departures %v", got, c.Departures())
		}
	})
}

// TestOldCardPath: an agent whose card is only at the A2A 0.2 path
// (/.well-known/agent.json; an a2a-go v2 server's card handler mounted
// there) is found after /.well-known/agent-card.json answers 404, and the
// card's endpoint answers; the log says so once (SPEC §16).
func TestOldCardPath(t *testing.T) {
	var rec recorder
	var logs logBuffer
	url := sdkServer(t, echoAgent{}, "/.well-known/agent.json", recording(&rec))
	c := newClient(t, Config{URL: url, Log: logs.logger()})
	s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "ping"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if evs, err := drain(t, s); !errors.Is(err, io.EOF) || !strings.HasSuffix(kinds(evs), "status:completed") {
		t.Fatalf("got %s, %v", kinds(evs), err)
	}
	var paths []string
	for _, r := range rec.all() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	if want := "GET /.well-known/agent-card.json,GET /.well-known/agent.json,POST /a2a"; strings.Join(paths, ",") != want {
		t.Errorf("requests %v, want %s", paths, want)
	}
	if c.CardURL() != url+"/.well-known/agent.json" {
		t.Errorf("CardURL %q", c.CardURL())
	}
	if d := c.Departures(); len(d) != 1 || d[0] != a2a.DepartureOldCardPath {
		t.Errorf("departures %v", d)
	}
	if n := strings.Count(logs.String(), string(a2a.DepartureOldCardPath)); n != 1 {
		t.Errorf("%d log lines say it, want 1:\n%s", n, logs.String())
	}
}

// TestOldCardPathOnlyAfter404: the old path is asked only when the card's
// default place answered 404: not after another answer (500, 401), not
// for a card URL given (--card-url), and a 404 there too is the first
// place's error; a server with its card at the default place is asked
// nothing more.
func TestOldCardPathOnlyAfter404(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		cardURL bool
		want    string // the paths asked
	}{
		{"500", 500, false, "/.well-known/agent-card.json"},
		{"401", 401, false, "/.well-known/agent-card.json"},
		{"card URL given", 404, true, "/cards/x.json"},
		{"404 at both", 404, false, "/.well-known/agent-card.json,/.well-known/agent.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec recorder
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.add(r)
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			cfg := Config{URL: srv.URL}
			if tc.cardURL {
				cfg = Config{CardURL: srv.URL + "/cards/x.json"}
			}
			c := newClient(t, cfg)
			_, err := c.Discover(ctxT(t))
			if err == nil {
				t.Fatal("no error")
			}
			var paths []string
			for _, r := range rec.all() {
				paths = append(paths, r.Path)
			}
			if strings.Join(slices.Compact(paths), ",") != tc.want {
				t.Errorf("asked %v, want %s", paths, tc.want)
			}
			var herr *a2a.HTTPError
			if !errors.As(err, &herr) || herr.StatusCode != tc.status || strings.Contains(herr.URL, "agent.json") {
				t.Errorf("error %v", err)
			}
			if len(c.Departures()) != 0 {
				t.Errorf("departures %v", c.Departures())
			}
		})
	}
	t.Run("card at the default place", func(t *testing.T) {
		var rec recorder
		url := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", recording(&rec))
		c := newClient(t, Config{URL: url})
		if _, err := c.Discover(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if n := rec.count(); n != 1 || len(c.Departures()) != 0 {
			t.Errorf("%d requests, departures %v", n, c.Departures())
		}
	})
}

// notServingStreams stands before a real server whose card says it
// streams, and answers its streaming call as a server without one does
// (what no real server can be made to do): a JSON-RPC SendStreamingMessage
// with -32601, an HTTP+JSON message:stream with status.
func notServingStreams(rec *recorder, status int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return recording(rec)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			switch {
			case strings.HasSuffix(r.URL.Path, "/message:stream"):
				w.WriteHeader(status)
				return
			case bytes.Contains(body, []byte(`"method":"SendStreamingMessage"`)):
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`))
				return
			}
			next.ServeHTTP(w, r)
		}))
	}
}

// TestStreamingClaimedNotServed: a card that says the agent streams while
// its streaming call is not there (-32601 on JSON-RPC; 404 or 405 on
// HTTP+JSON): the first message is sent again on the non-streaming path
// and its task polled to its answer; every later message (of any context)
// goes there directly; the log says so once (SPEC §16). a2a-go v2 servers,
// their streaming call answered as a server without one answers it.
func TestStreamingClaimedNotServed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		binding a2ago.TransportProtocol
		status  int
		stream  string // the streaming call, as the request log names it
	}{
		{"JSON-RPC -32601", a2ago.TransportProtocolJSONRPC, 0, "SendStreamingMessage"},
		{"HTTP+JSON 404", a2ago.TransportProtocolHTTPJSON, http.StatusNotFound, "/rest/message:stream"},
		{"HTTP+JSON 405", a2ago.TransportProtocolHTTPJSON, http.StatusMethodNotAllowed, "/rest/message:stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec recorder
			var logs logBuffer
			url := sdkServerOn(t, echoAgent{}, "/.well-known/agent-card.json", tc.binding, notServingStreams(&rec, tc.status))
			c := newClient(t, Config{URL: url, Log: logs.logger(), pollInterval: 10 * time.Millisecond})
			calls := func() []string {
				var out []string
				for _, r := range rec.all() {
					switch {
					case r.RPC != "":
						out = append(out, r.RPC)
					case r.Method == http.MethodPost:
						out = append(out, r.Path)
					}
				}
				return out
			}
			for i, ctxID := range []string{"c1", "c1", "c2"} {
				mark := len(calls())
				s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: ctxID, Parts: []a2a.Part{{Text: "ping"}}})
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				evs, err := drain(t, s)
				s.Close()
				if !errors.Is(err, io.EOF) || len(evs) == 0 || evs[len(evs)-1].Status.State != a2a.StateCompleted {
					t.Fatalf("message %d: got %s, %v", i, kinds(evs), err)
				}
				sent := calls()[mark:]
				streamed := slices.Contains(sent, tc.stream)
				if streamed != (i == 0) {
					t.Errorf("message %d: streaming asked %v; calls %v", i, streamed, sent)
				}
				if n := len(slices.DeleteFunc(slices.Clone(sent), func(s string) bool { return s != "SendMessage" && s != "/rest/message:send" })); n != 1 {
					t.Errorf("message %d: sent %d times on the non-streaming path; calls %v", i, n, sent)
				}
			}
			if d := c.Departures(); len(d) != 1 || d[0] != a2a.DepartureStreamingNotServed {
				t.Errorf("departures %v", d)
			}
			if n := strings.Count(logs.String(), string(a2a.DepartureStreamingNotServed)); n != 1 {
				t.Errorf("%d log lines say it, want 1:\n%s", n, logs.String())
			}
		})
	}
}

// TestStreamingServedUnaffected: an a2a-go v2 server that streams is
// streamed, every time, and another error of the streaming call is that
// error, not a fall back (a -32603 here).
func TestStreamingServedUnaffected(t *testing.T) {
	var rec recorder
	url := sdkServer(t, echoAgent{}, "/.well-known/agent-card.json", recording(&rec))
	c := newClient(t, Config{URL: url})
	for i := 0; i < 2; i++ {
		s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "ping"}}})
		if err != nil {
			t.Fatal(err)
		}
		drain(t, s)
		s.Close()
	}
	var rpcs []string
	for _, r := range rec.rpcs() {
		rpcs = append(rpcs, r.RPC)
	}
	if strings.Join(rpcs, ",") != "SendStreamingMessage,SendStreamingMessage" || len(c.Departures()) != 0 {
		t.Errorf("calls %v, departures %v", rpcs, c.Departures())
	}
	var rec2 recorder
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		rec2.add(r)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`))
	})
	c2 := newClient(t, Config{Endpoint: ep})
	_, err := c2.Stream(ctxT(t), a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "ping"}}})
	var rpc *a2a.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32603 || rec2.count() != 1 || len(c2.Departures()) != 0 {
		t.Errorf("err %v, %d requests, departures %v", err, rec2.count(), c2.Departures())
	}
}
