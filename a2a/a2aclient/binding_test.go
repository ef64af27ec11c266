package a2aclient_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
)

// The same scenarios run over both bindings against the official a2a-go
// v2 server (its JSON-RPC and its HTTP+JSON handlers): nothing a caller
// sees tells which ran.

type seen struct {
	mu    sync.Mutex
	paths []string
}

func (s *seen) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.paths, " ")
}

// startReal runs the demo agent and records each request's method and path.
func startReal(t *testing.T, opts agent.Options) (string, *seen) {
	t.Helper()
	rec := &seen{}
	srv := httptest.NewUnstartedServer(nil)
	h := agent.NewHandler("http://"+srv.Listener.Addr().String(), opts)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.paths = append(rec.paths, r.Method+" "+r.URL.RequestURI())
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

func realClient(t *testing.T, url string, cfg a2aclient.Config) *a2aclient.Client {
	t.Helper()
	cfg.URL = url
	cfg = a2aclient.WithRetryWait(cfg, 5*time.Millisecond)
	c, err := a2aclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// readAll reads a stream to its end.
func readAll(t *testing.T, s *a2aclient.Stream) ([]a2a.Event, error) {
	t.Helper()
	var evs []a2a.Event
	for {
		ev, err := s.Next()
		if err != nil {
			s.Close()
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// answerOf is the text of the last full version of each artifact plus
// what was appended to it, the way the bridge shows it.
func answerOf(evs []a2a.Event) string {
	var b strings.Builder
	var cur string
	for _, ev := range evs {
		if ev.Kind != a2a.EventArtifact {
			continue
		}
		var text string
		for _, p := range ev.Artifact.Parts {
			text += p.Text
		}
		if ev.Append {
			cur += text
		} else {
			cur = text
		}
	}
	b.WriteString(cur)
	return strings.TrimSpace(b.String())
}

func lastState(evs []a2a.Event) a2a.State {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == a2a.EventStatus || evs[i].Kind == a2a.EventTask {
			return evs[i].Status.State
		}
	}
	return ""
}

var bindings = []struct {
	name    string
	binding string // agent.Options.Binding
	tenant  string
	route   string // a path only this binding uses
}{
	{"jsonrpc", "", "", "POST /a2a"},
	{"http+json", "http+json", "", "POST /rest/message:stream"},
	{"http+json tenant", "http+json", "acme", "POST /rest/acme/message:stream"},
}

// TestBindingsRealServer: streaming with a tool call, GetTask read-back,
// ListTasks of the context, a missing task as the JSON-RPC error
// TaskNotFound, reattaching to a running task and cancelling it, the auth
// probe: over JSON-RPC and over HTTP+JSON (with and without a tenant)
// against a2a-go v2's own handlers, chosen from the card with --binding
// auto.
func TestBindingsRealServer(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			url, rec := startReal(t, agent.Options{Name: "Go Agent", Binding: b.binding, Tenant: b.tenant})
			c := realClient(t, url, a2aclient.Config{})
			ctx := tctx(t)
			if err := c.Probe(ctx); err != nil {
				t.Fatalf("probe: %v", err)
			}
			want := map[string]a2a.Binding{"": a2a.BindingJSONRPC, "http+json": a2a.BindingHTTPJSON}[b.binding]
			if card := c.KnownCard(); card.Binding != want || card.Tenant != b.tenant {
				t.Fatalf("card binding %v tenant %q", card.Binding, card.Tenant)
			}
			taskID := streamWithTool(t, ctx, c)
			if !strings.Contains(rec.all(), b.route) {
				t.Errorf("the %s route was not used: %s", b.route, rec.all())
			}
			readBack(t, ctx, c, taskID)
			if id := reattachAndCancel(t, ctx, c); b.binding != "" && !strings.Contains(rec.all(), id+":subscribe") {
				t.Errorf("no HTTP+JSON subscribe: %s", rec.all())
			}
		})
	}
}

// streamWithTool streams an answer with a tool call (TestBindingsRealServer)
// and returns its task's id.
func streamWithTool(t *testing.T, ctx context.Context, c *a2aclient.Client) string {
	t.Helper()
	s, err := c.Stream(ctx, a2a.OutMessage{ContextID: "ctx-1", Parts: []a2a.Part{{Kind: a2a.PartText, Text: "use the tool"}}})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := readAll(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := answerOf(evs); got != "The README says it is a demo project." {
		t.Errorf("answer %q", got)
	}
	if lastState(evs) != a2a.StateCompleted {
		t.Errorf("last state %q", lastState(evs))
	}
	var tools []string
	for _, ev := range evs {
		if ev.Status.Message != nil {
			for _, tc := range ev.Status.Message.ToolCalls() {
				tools = append(tools, tc.Name+":"+string(tc.Phase))
			}
		}
	}
	if strings.Join(tools, ",") != "read_file:started,read_file:started,read_file:completed" {
		t.Errorf("tool calls %v", tools)
	}
	return evs[0].TaskID
}

// readBack reads task taskID back, lists its context, and asks for a
// missing task (TestBindingsRealServer).
func readBack(t *testing.T, ctx context.Context, c *a2aclient.Client, taskID string) {
	t.Helper()
	// GetTask read-back.
	task, err := c.GetTask(ctx, taskID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.StateCompleted || task.ContextID != "ctx-1" || len(task.Artifacts) == 0 {
		t.Errorf("task %+v", task)
	}

	// ListTasks of the context, artifacts included.
	tasks, err := c.ListTasks(ctx, "ctx-1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != taskID || len(tasks[0].Artifacts) == 0 {
		t.Errorf("listed %+v", tasks)
	}

	// A missing task is TaskNotFound, whatever the binding.
	_, err = c.GetTask(ctx, "no-such-task", 0)
	var rpc *a2a.RPCError
	if !errors.As(err, &rpc) || rpc.Code != a2a.CodeTaskNotFound {
		t.Errorf("missing task: %v", err)
	}
}

// reattachAndCancel reattaches to a running task, then cancels it
// (TestBindingsRealServer); it returns the task's id.
func reattachAndCancel(t *testing.T, ctx context.Context, c *a2aclient.Client) string {
	t.Helper()
	first := dropReattachCancel(t, ctx, c, a2a.OutMessage{ContextID: "ctx-1", Parts: []a2a.Part{{Kind: a2a.PartText, Text: "slow please"}}})
	if task, err := c.GetTask(ctx, first.TaskID, 0); err != nil || task.Status.State != a2a.StateCanceled {
		t.Errorf("cancelled task %+v %v", task, err)
	}
	return first.TaskID
}

// dropReattachCancel sends msg, whose task runs until cancelled, drops
// the stream after its first event, reattaches to the task, cancels it
// and reads the reattached stream to its end, which must say cancelled;
// it returns the first event.
func dropReattachCancel(t *testing.T, ctx context.Context, c *a2aclient.Client, msg a2a.OutMessage) a2a.Event {
	t.Helper()
	s, err := c.Stream(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the stream drops
	sub, err := c.Resubscribe(ctx, first.TaskID)
	if err != nil {
		t.Fatalf("resubscribe: %v", err)
	}
	if ev, err := sub.Next(); err != nil || ev.TaskID != first.TaskID {
		t.Fatalf("reattached stream: %+v %v", ev, err)
	}
	if err := c.CancelTask(ctx, first.TaskID); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	rest, err := readAll(t, sub)
	if err != nil {
		t.Fatal(err)
	}
	if got := lastState(rest); got != a2a.StateCanceled {
		t.Errorf("after cancel the reattached stream ended %q", got)
	}
	return first
}

// TestBindingFlag: --binding http+json against a card that offers both
// takes HTTP+JSON; jsonrpc takes JSON-RPC; a card without the binding
// asked for is an error naming it.
func TestBindingFlag(t *testing.T) {
	url, _ := startReal(t, agent.Options{Name: "Go Agent", Binding: "http+json"})
	c := realClient(t, url, a2aclient.Config{Binding: "jsonrpc"})
	_, err := c.Discover(tctx(t))
	if err == nil || !strings.Contains(err.Error(), "JSON-RPC") {
		t.Errorf("--binding jsonrpc on an HTTP+JSON-only card: %v", err)
	}
	c = realClient(t, url, a2aclient.Config{Binding: "http+json"})
	card, err := c.Discover(tctx(t))
	if err != nil || card.Binding != a2a.BindingHTTPJSON || card.Endpoint != url+"/rest" {
		t.Errorf("card %+v %v", card, err)
	}
	if _, err := a2a.ParseBinding("grpc"); err == nil {
		t.Error("grpc accepted")
	}
}

type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func logger(w *strings.Builder, mu *sync.Mutex) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{w, mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
