package gemini

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
)

// testClient calls the profile's binding as the client does for a
// streaming card.
type testClient struct {
	tr   *Binding
	card *a2a.Card
}

func (c *testClient) Stream(ctx context.Context, m a2a.OutMessage) (*binding.Stream, error) {
	return c.tr.SendStreaming(ctx, m)
}

func (c *testClient) GetTask(ctx context.Context, id string, historyLength int) (*a2a.Task, error) {
	return c.tr.GetTask(ctx, id, historyLength)
}

func (c *testClient) CancelTask(ctx context.Context, id string) error {
	return c.tr.CancelTask(ctx, id)
}

func (c *testClient) KnownCard() *a2a.Card { return c.card }

// recorded is one request a fake server received.
type recorded struct {
	Method string // HTTP method
	Path   string
	Header http.Header
	Body   []byte
	RPC    string         // JSON-RPC method, if any
	Params map[string]any // JSON-RPC params, if any
}

// recorder collects the requests a fake server receives.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

func (rec *recorder) add(r *http.Request) recorded {
	body, _ := io.ReadAll(r.Body)
	x := recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var rpc struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if json.Unmarshal(body, &rpc) == nil {
		x.RPC, x.Params = rpc.Method, rpc.Params
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, x)
	rec.mu.Unlock()
	return x
}

// rpcs returns the JSON-RPC requests only.
func (rec *recorder) rpcs() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []recorded
	for _, r := range rec.reqs {
		if r.RPC != "" {
			out = append(out, r)
		}
	}
	return out
}

// sseStart sends the headers of an event stream.
func sseStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// sseWrite writes raw SSE text and flushes it.
func sseWrite(w http.ResponseWriter, raw string) {
	_, _ = io.WriteString(w, raw)
	w.(http.Flusher).Flush()
}

// sseFrames writes each frame as one `data:` event.
func sseFrames(w http.ResponseWriter, frames ...string) {
	for _, f := range frames {
		sseWrite(w, "data: "+f+"\n\n")
	}
}

// within runs f and fails the test if it does not return in d (a hang).
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
		panic("unreachable")
	}
}

type nextResult struct {
	ev  a2a.Event
	err error
}

// next calls s.Next with a hang guard.
func next(t *testing.T, s *binding.Stream) (a2a.Event, error) {
	t.Helper()
	r := within(t, 10*time.Second, "Stream.Next", func() nextResult {
		ev, err := s.Next()
		return nextResult{ev, err}
	})
	return r.ev, r.err
}

// drain reads a stream to its end and returns the events and the final error.
func drain(t *testing.T, s *binding.Stream) ([]a2a.Event, error) {
	t.Helper()
	var evs []a2a.Event
	for i := 0; i < 1000; i++ {
		ev, err := next(t, s)
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("stream never ended")
	return nil, nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func kinds(evs []a2a.Event) string {
	var s []string
	for _, ev := range evs {
		k := ev.Kind.String()
		if ev.Kind == a2a.EventStatus || ev.Kind == a2a.EventTask {
			k += ":" + string(ev.Status.State)
		}
		s = append(s, k)
	}
	return strings.Join(s, ",")
}
