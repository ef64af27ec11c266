package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	a2ago "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/cmd/shim/internal/checkup"
	"github.com/shimdev/shim/examples/agent"
)

// rpcLog records the JSON-RPC methods (and other POSTs' paths, GETs as
// "GET path") a server was asked, in order.
type rpcLog struct {
	mu    sync.Mutex
	calls []string
	auth  []string
}

func (l *rpcLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string `json:"method"`
		}
		call := r.Method + " " + r.URL.Path
		if json.Unmarshal(body, &m) == nil && m.Method != "" {
			call = m.Method
		}
		l.mu.Lock()
		l.calls = append(l.calls, call)
		l.auth = append(l.auth, r.Header.Get("Authorization"))
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *rpcLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// startDemo runs the demo agent (a2a-go v2) with opts, its chunks slow
// enough that a cancel finds its task running, behind wrap.
func startDemo(t *testing.T, opts agent.Options, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	if opts.Delay == 0 {
		opts.Delay = 2 * time.Second
	}
	srv.Config.Handler = wrap(agent.NewHandler("http://"+srv.Listener.Addr().String(), opts))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDoctorProbe: `shim doctor --probe` against an a2a-go v2 server that
// follows the spec: it sends "ping", cancels the running task, and says
// streaming works, the time to the first event and that the cancel was
// taken; no departure row; the token goes only to the agent; exit 0.
func TestDoctorProbe(t *testing.T) {
	var log rpcLog
	url := startDemo(t, agent.Options{Name: "Go Agent"}, log.wrap)
	e := newShimEnv(t)
	r := e.run(t, "", "doctor", "--url", url, "--token", "tok-probe-0123456789", "--probe")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := doctorRows(t, r.stdout)
	wantRow(t, rows, "first event", "ok ")
	if !strings.HasSuffix(rows["first event"], ` ms after "ping" was sent`) {
		t.Errorf("first event row %q", rows["first event"])
	}
	wantRow(t, rows, "streaming", "ok works")
	wantRow(t, rows, "probe cancel", "ok the running task was canceled")
	for check := range rows {
		if _, ok := departureRowNames()[check]; ok {
			t.Errorf("a departure row for a server that follows the spec: %s %s", check, rows[check])
		}
	}
	calls := strings.Join(log.list(), ",")
	if !strings.Contains(calls, "SendStreamingMessage,CancelTask") {
		t.Errorf("calls %s: want the message, then its cancel", calls)
	}
	if strings.Contains(r.stdout+r.stderr, "tok-probe-0123456789") {
		t.Error("the token was printed")
	}
	// Without --probe, doctor sends no message.
	n := len(log.list())
	r = e.run(t, "", "doctor", "--url", url)
	for _, c := range log.list()[n:] {
		if c == "SendStreamingMessage" || c == "SendMessage" || c == "CancelTask" {
			t.Errorf("doctor without --probe called %s", c)
		}
	}
	if _, ok := doctorRows(t, r.stdout)["first event"]; ok {
		t.Error("a probe row without --probe")
	}
}

// departureRowNames are the check names of departure rows.
func departureRowNames() map[string]bool {
	out := map[string]bool{}
	for _, d := range []a2a.Departure{a2a.DepartureFailureUnknownTask, a2a.DepartureOldCardPath, a2a.DepartureStreamingNotServed, a2a.DepartureRecordSeparator} {
		out[checkup.DepartureCheck(d)] = true
	}
	return out
}

// TestDoctorProbeDepartures: an a2a-go v2 server (the demo agent) whose
// card is only at the old path and whose streaming call, though the card
// claims it, answers -32601 (what no real server can be made to do, done
// by a wrapper): both departures are warn rows, streaming is said not to
// work, the probe's message is answered on the polled path; exit 0.
func TestDoctorProbeDepartures(t *testing.T) {
	var log rpcLog
	noStream := func(next http.Handler) http.Handler {
		return log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"SendStreamingMessage"`)) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`))
				return
			}
			next.ServeHTTP(w, r)
		}))
	}
	url := startDemo(t, agent.Options{Name: "Go Agent", CardPath: "/.well-known/agent.json"}, noStream)
	r := newShimEnv(t).run(t, "", "doctor", "--url", url, "--probe")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := doctorRows(t, r.stdout)
	wantRow(t, rows, "agent card", "ok Go Agent ("+url+"/.well-known/agent.json)")
	wantRow(t, rows, "old card path", "warn the agent has its agent card only at the old path")
	wantRow(t, rows, "streaming claimed", "warn the agent says it streams but does not answer streaming requests")
	wantRow(t, rows, "streaming", "warn the card says it streams, but it does not")
	wantRow(t, rows, "first event", "ok ")
	calls := strings.Join(log.list(), ",")
	if !strings.Contains(calls, "SendStreamingMessage,SendMessage") {
		t.Errorf("calls %s: want the message sent again without streaming", calls)
	}
	// Without --probe, what discovery saw is still a row; no message is sent.
	n := len(log.list())
	r = newShimEnv(t).run(t, "", "doctor", "--url", url)
	rows = doctorRows(t, r.stdout)
	wantRow(t, rows, "old card path", "warn the agent has its agent card only at the old path")
	if _, ok := rows["streaming claimed"]; ok || r.code != 0 {
		t.Errorf("exit %d, rows %v", r.code, rows)
	}
	for _, c := range log.list()[n:] {
		if c == "SendStreamingMessage" || c == "SendMessage" {
			t.Errorf("doctor without --probe called %s", c)
		}
	}
}

// TestDoctorProbeStrands: a scripted server that answers as Strands Agents
// (on @a2a-js/sdk 0.3.14) did in the recording (bridge/testdata/frameworks/
// strands, Apache-2.0): its card, the probe's message failing under a
// placeholder task id after the stream named the real one, `tasks/cancel`
// refused with -32004 and the task's record still working. The failure
// under an unknown task id and the refused cancel are warn rows; exit 0.
func TestDoctorProbeStrands(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile("../../bridge/testdata/frameworks/strands/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	stream := read("06-failure-stream.response.sse")
	first, rest, _ := bytes.Cut(stream, []byte("\n\n"))
	var log rpcLog
	cancelled := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Message struct {
					ContextID string `json:"contextId"`
				} `json:"message"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		// The recording's context is the one the probe's message names.
		ctxOf := func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("ctx-capture-1"), []byte(m.Params.Message.ContextID))
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/.well-known/agent-card.json":
			w.Write(read("01-card.response.json"))
		case m.Method == "message/stream":
			// The working task, then (once the cancel was refused) the
			// failure under the placeholder id, as Strands sent them.
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(ctxOf(append(first, "\n\n"...)))
			w.(http.Flusher).Flush()
			select {
			case <-cancelled:
			case <-r.Context().Done():
				return
			}
			w.Write(ctxOf(rest))
		case m.Method == "tasks/cancel":
			w.Write(read("08-cancel-request.response.json"))
			once.Do(func() { close(cancelled) })
		case m.Method == "tasks/get":
			w.Write(read("21-history-tasks-get-failed.response.json"))
		default:
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`))
		}
	})))
	t.Cleanup(srv.Close)
	r := newShimEnv(t).run(t, "", "doctor", "--url", srv.URL, "--probe")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := doctorRows(t, r.stdout)
	wantRow(t, rows, "failure task id", "warn the agent sent a failure under a task id it never named")
	wantRow(t, rows, "probe cancel", "warn refused while the task still ran")
	wantRow(t, rows, "streaming", "ok works")
	wantRow(t, rows, "dialect", "ok A2A 0.3")
	calls := strings.Join(log.list(), ",")
	if !strings.Contains(calls, "message/stream,tasks/cancel,tasks/get") {
		t.Errorf("calls %s", calls)
	}
}

// TestDoctorProbeFails: a message the agent refuses is a FAIL row and
// exit 1 (a session could not send one either).
func TestDoctorProbeFails(t *testing.T) {
	refuse := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"SendStreamingMessage"`)) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"model not configured"}}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	url := startDemo(t, agent.Options{Name: "Go Agent"}, refuse)
	r := newShimEnv(t).run(t, "", "doctor", "--url", url, "--probe")
	rows := doctorRows(t, r.stdout)
	if r.code != 1 || !strings.HasPrefix(rows["probe message"], "FAIL ") || !strings.Contains(rows["probe message"], "model not configured") {
		t.Errorf("exit %d, probe message row %q", r.code, rows["probe message"])
	}
}

// doneAgent is an a2a-go v2 executor whose task is over in its first
// event: the probe finds nothing running to cancel.
type doneAgent struct{}

func (doneAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2ago.Event, error] {
	return func(yield func(a2ago.Event, error) bool) {
		task := a2ago.NewSubmittedTask(ec, ec.Message)
		task.Status = a2ago.TaskStatus{State: a2ago.TaskStateCompleted, Message: a2ago.NewMessageForTask(a2ago.MessageRoleAgent, ec, a2ago.NewTextPart("pong"))}
		yield(task, nil)
	}
}

func (doneAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2ago.Event, error] {
	return func(yield func(a2ago.Event, error) bool) {}
}

// TestDoctorProbeTaskEndedFirst: a task that ended before a cancel could
// be sent is no departure: no cancel is sent, and the cancel row says why
// (an a2a-go v2 server); exit 0.
func TestDoctorProbeTaskEndedFirst(t *testing.T) {
	var log rpcLog
	srv := httptest.NewUnstartedServer(nil)
	card := &a2ago.AgentCard{Name: "Done Agent", Description: "answers at once", Version: "1",
		SupportedInterfaces: []*a2ago.AgentInterface{{URL: "http://" + srv.Listener.Addr().String() + "/a2a", ProtocolBinding: a2ago.TransportProtocolJSONRPC, ProtocolVersion: a2ago.Version}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}, Capabilities: a2ago.AgentCapabilities{Streaming: true}}
	mux := http.NewServeMux()
	mux.Handle("/a2a", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(doneAgent{})))
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	srv.Config.Handler = log.wrap(mux)
	srv.Start()
	t.Cleanup(srv.Close)
	r := newShimEnv(t).run(t, "", "doctor", "--url", srv.URL, "--probe")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := doctorRows(t, r.stdout)
	wantRow(t, rows, "probe cancel", "skip the task ended (completed) before a cancel could be sent")
	for _, c := range log.list() {
		if c == "CancelTask" {
			t.Error("a cancel was sent for a task that had ended")
		}
	}
}

// TestDepartureRowsNamed: each departure the client reads has a doctor
// row of its own, and the README's table of them names it.
func TestDepartureRowsNamed(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "| server | what it does | read by | doctor row |")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, d := range []a2a.Departure{a2a.DepartureFailureUnknownTask, a2a.DepartureOldCardPath, a2a.DepartureStreamingNotServed, a2a.DepartureRecordSeparator} {
		name := checkup.DepartureCheck(d)
		if name == "" || !strings.Contains(table, "| `"+name+"` |") {
			t.Errorf("departure %q: doctor row %q, not in the README's table", d, name)
		}
	}
}
