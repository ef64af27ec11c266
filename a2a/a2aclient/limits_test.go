package a2aclient

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
)

// lowClient is newClient with SSE events and bodies bounded at limit.
func lowClient(t *testing.T, cfg Config, limit int) *Client {
	t.Helper()
	if cfg.retryWait == 0 {
		cfg.retryWait = 5 * time.Millisecond
	}
	c, err := newBounded(cfg, limit)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// openLowStream is openStream on a lowClient.
func openLowStream(t *testing.T, cfg Config, limit int) *Stream {
	t.Helper()
	s, err := lowClient(t, cfg, limit).Stream(ctxT(t), a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// shortLines writes n bytes of short data lines with no blank line, made
// on the fly.
func shortLines(w io.Writer, n int) {
	line := []byte("data: " + strings.Repeat("x", 26) + "\n")
	for written := 0; written < n; written += len(line) {
		if _, err := w.Write(line); err != nil {
			return
		}
	}
}

// zeros reads as an endless run of '0'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// TestStreamCapDecoded: the limit counts the decoded bytes of a gzip
// body (the transport inflates it on its own), on a stream and on a
// single JSON body; a frame under the limit still passes.
func TestStreamCapDecoded(t *testing.T) {
	const limit = 1 << 20
	gz := func(w http.ResponseWriter, ct string, fill func(io.Writer)) {
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fill(zw)
		_ = zw.Close()
	}
	t.Run("stream", func(t *testing.T) {
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			gz(w, "text/event-stream", func(w io.Writer) {
				_, _ = io.WriteString(w, "data: "+frameTask+"\n\n")
				shortLines(w, 16*limit)
			})
		})
		s := openLowStream(t, Config{Endpoint: ep}, limit)
		if ev, err := next(t, s); err != nil || ev.Kind != a2a.EventTask {
			t.Fatalf("first frame: %v %v", ev.Kind, err)
		}
		_, err := next(t, s)
		if !errors.Is(err, a2a.ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %v", err)
		}
	})
	t.Run("json body", func(t *testing.T) {
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			gz(w, "application/json", func(w io.Writer) {
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"`)
				_, _ = io.Copy(w, io.LimitReader(zeros{}, 8*limit))
				_, _ = io.WriteString(w, `"}]}]}}`)
			})
		})
		c := lowClient(t, Config{Endpoint: ep}, limit)
		_, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
		if !errors.Is(err, a2a.ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %T %v", err, err)
		}
		if _, err := c.GetTask(ctxT(t), "t1", 0); !errors.Is(err, a2a.ErrTooLarge) {
			t.Fatalf("GetTask: want ErrTooLarge, got %T %v", err, err)
		}
	})
	t.Run("under the limit", func(t *testing.T) {
		text := strings.Repeat("z", limit/2)
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			gz(w, "text/event-stream", func(w io.Writer) {
				_, _ = io.WriteString(w, "data: "+artifactFrame(text)+"\n\n")
			})
		})
		s := openLowStream(t, Config{Endpoint: ep}, limit)
		ev, err := next(t, s)
		if err != nil || ev.Artifact == nil || len(ev.Artifact.Parts[0].Text) != len(text) {
			t.Fatalf("a frame under the limit: %v", err)
		}
	})
}

// listServer answers ListTasks with pages that never run dry, each of
// one task padded with pad bytes.
func listServer(t *testing.T, pad int, calls *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any            `json:"id"`
			Params map[string]any `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		n := calls.Add(1)
		tok, _ := strconv.Atoi(fmt.Sprint(req.Params["pageToken"]))
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
			"tasks": []any{map[string]any{"id": fmt.Sprintf("t%d", tok), "contextId": "c", "status": map[string]any{"state": "TASK_STATE_COMPLETED"},
				"artifacts": []any{map[string]any{"artifactId": "a", "parts": []any{map[string]any{"text": strings.Repeat("p", pad)}}}}}},
			"nextPageToken": strconv.FormatInt(n, 10)}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestListTasksBudget: pages that never run dry stop at 100 requests, or
// at the bytes of the budget, with the tasks read so far and ErrBudget.
func TestListTasksBudget(t *testing.T) {
	t.Run("endless pages", func(t *testing.T) {
		var calls atomic.Int64
		c := newClient(t, Config{Endpoint: listServer(t, 0, &calls), Version: "1.0"})
		tasks, err := c.ListTasks(ctxT(t), "c", -1)
		if !errors.Is(err, a2a.ErrBudget) || len(tasks) != 100 || calls.Load() != 100 {
			t.Fatalf("%d tasks in %d calls, %v", len(tasks), calls.Load(), err)
		}
	})
	t.Run("big pages", func(t *testing.T) {
		var calls atomic.Int64
		c := newClient(t, Config{Endpoint: listServer(t, 100<<10, &calls), Version: "1.0"})
		b := a2a.NewReadBudget(1<<20, 100)
		tasks, err := c.ListTasks(a2a.WithReadBudget(ctxT(t), b), "c", -1)
		if !errors.Is(err, a2a.ErrBudget) || len(tasks) < 5 || len(tasks) > 10 {
			t.Fatalf("%d tasks in %d calls, %v", len(tasks), calls.Load(), err)
		}
		// The budget is spent: the next call drawing on it reaches no server.
		n := calls.Load()
		if _, err := c.GetTask(a2a.WithReadBudget(ctxT(t), b), "t0", 0); !errors.Is(err, a2a.ErrBudget) || calls.Load() != n {
			t.Fatalf("a call on the spent budget: %v (%d calls)", err, calls.Load()-n)
		}
		if tasks[0].ID != "t0" {
			t.Errorf("first task %q", tasks[0].ID)
		}
	})
	t.Run("a budget spent refuses the next call", func(t *testing.T) {
		var calls atomic.Int64
		c := newClient(t, Config{Endpoint: listServer(t, 0, &calls), Version: "1.0"})
		ctx := a2a.WithReadBudget(context.Background(), a2a.NewReadBudget(1<<20, 1))
		if _, err := c.GetTask(ctx, "t", 0); err != nil && !errors.As(err, new(*a2a.RPCError)) && !errors.As(err, new(*a2a.DecodeError)) {
			t.Fatalf("first call: %v", err)
		}
		if _, err := c.GetTask(ctx, "t", 0); !errors.Is(err, a2a.ErrBudget) {
			t.Fatalf("second call: want ErrBudget, got %v", err)
		}
		if calls.Load() != 1 {
			t.Errorf("%d calls reached the server", calls.Load())
		}
	})
}
