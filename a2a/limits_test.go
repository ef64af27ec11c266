package a2a

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
	"unicode/utf8"
)

// lowClient is newClient with SSE events and bodies bounded at limit.
func lowClient(t *testing.T, cfg Config, limit int) *Client {
	c := newClient(t, cfg)
	c.eventMax = limit
	return c
}

// openLowStream is openStream on a lowClient.
func openLowStream(t *testing.T, cfg Config, limit int) *Stream {
	t.Helper()
	s, err := lowClient(t, cfg, limit).Stream(ctxT(t), OutMessage{ContextID: "c1", Parts: []Part{{Text: "hi"}}})
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

// TestSSEEventCap: an event past the limit, in short lines or in one
// long line, breaks the stream with ErrTooLarge; the buffer holding it
// never grows past the limit; an event just under it passes; comments of
// any length are skipped without being kept.
func TestSSEEventCap(t *testing.T) {
	const limit = 1 << 20
	t.Run("short lines without a blank line", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() { shortLines(pw, 8*limit); pw.Close() }()
		defer pr.Close()
		_, err := newSSEReader(pr, limit).Next()
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") {
			t.Fatalf("want ErrTooLarge naming the limit, got %v", err)
		}
	})
	t.Run("one long line", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, "data: ")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\n\n")
			pw.Close()
		}()
		defer pr.Close()
		if _, err := newSSEReader(pr, limit).Next(); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %v", err)
		}
	})
	t.Run("just under the limit", func(t *testing.T) {
		var b strings.Builder
		line := strings.Repeat("y", 99)
		n := 0
		for n+len(line)+1 <= limit {
			if n > 0 {
				b.WriteString("\n")
				n++
			}
			b.WriteString("data:" + line)
			n += len(line)
		}
		b.WriteString("\n\ndata: next\n\n")
		r := newSSEReader(strings.NewReader(b.String()), limit)
		ev, err := r.Next()
		if err != nil || len(ev.Data) != n {
			t.Fatalf("an event of %d bytes: %d bytes, %v", n, len(ev.Data), err)
		}
		if cap(ev.Data) > limit {
			t.Errorf("the event's buffer grew to %d bytes, past the %d limit", cap(ev.Data), limit)
		}
		if ev, err := r.Next(); err != nil || string(ev.Data) != "next" {
			t.Errorf("the next event: %q %v", ev.Data, err)
		}
	})
	t.Run("long comments are skipped", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, ":")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\nretry: ")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\ndata: ok\n\n")
			pw.Close()
		}()
		defer pr.Close()
		ev, err := newSSEReader(pr, limit).Next()
		if err != nil || string(ev.Data) != "ok" {
			t.Fatalf("got %q %v", ev.Data, err)
		}
	})
	t.Run("a long id line counts", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, "id: ")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\ndata: x\n\n")
			pw.Close()
		}()
		defer pr.Close()
		if _, err := newSSEReader(pr, limit).Next(); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %v", err)
		}
	})
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
		if ev, err := next(t, s); err != nil || ev.Kind != EventTask {
			t.Fatalf("first frame: %v %v", ev.Kind, err)
		}
		_, err := next(t, s)
		if !errors.Is(err, ErrTooLarge) {
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
		_, err := c.Stream(ctxT(t), OutMessage{Parts: []Part{{Text: "hi"}}})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %T %v", err, err)
		}
		if _, err := c.GetTask(ctxT(t), "t1", 0); !errors.Is(err, ErrTooLarge) {
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
		if !errors.Is(err, ErrBudget) || len(tasks) != 100 || calls.Load() != 100 {
			t.Fatalf("%d tasks in %d calls, %v", len(tasks), calls.Load(), err)
		}
	})
	t.Run("big pages", func(t *testing.T) {
		var calls atomic.Int64
		c := newClient(t, Config{Endpoint: listServer(t, 100<<10, &calls), Version: "1.0"})
		b := NewReadBudget(1<<20, 100)
		tasks, err := c.ListTasks(WithReadBudget(ctxT(t), b), "c", -1)
		if !errors.Is(err, ErrBudget) || !b.Spent() || len(tasks) < 5 || len(tasks) > 10 {
			t.Fatalf("%d tasks in %d calls, %v", len(tasks), calls.Load(), err)
		}
		if tasks[0].ID != "t0" {
			t.Errorf("first task %q", tasks[0].ID)
		}
	})
	t.Run("a budget spent refuses the next call", func(t *testing.T) {
		var calls atomic.Int64
		c := newClient(t, Config{Endpoint: listServer(t, 0, &calls), Version: "1.0"})
		ctx := WithReadBudget(context.Background(), NewReadBudget(1<<20, 1))
		if _, err := c.GetTask(ctx, "t", 0); err != nil && !errors.As(err, new(*RPCError)) && !errors.As(err, new(*DecodeError)) {
			t.Fatalf("first call: %v", err)
		}
		if _, err := c.GetTask(ctx, "t", 0); !errors.Is(err, ErrBudget) {
			t.Fatalf("second call: want ErrBudget, got %v", err)
		}
		if calls.Load() != 1 {
			t.Errorf("%d calls reached the server", calls.Load())
		}
	})
}

// TestLongTextSpliced: a long text part is escaped into the body exactly
// as encoding/json would (without HTML escaping), invalid UTF-8 and
// line separators included, and the body decodes to the same message.
func TestLongTextSpliced(t *testing.T) {
	for _, s := range []string{"plain", "q\"b\\s\n\r\t\b\f\x01\x1f\x7f", "bad \xff\xfe utf8 \u2028\u2029 é 日本", ""} {
		want, _ := json.Marshal(s)
		want = []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(want)))
		if got := appendJSONString(nil, s); string(got) != string(want) || jsonStringLen(s) != len(want) {
			t.Errorf("%q: got %s (len %d), want %s", s, got, jsonStringLen(s), want)
		}
	}
	long := strings.Repeat("a \"long\" text\n\xff ", longTextMin/10)
	c := &jsonrpcTransport{}
	body := c.encode("SendStreamingMessage", map[string]any{"message": encodeMessage(V10, OutMessage{ContextID: "c",
		Parts: []Part{{Text: long}, {Text: "short"}, {Text: long + "2"}}})})
	var got struct {
		Params struct {
			Message struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	valid := strings.ToValidUTF8(long, "\ufffd")
	if p := got.Params.Message.Parts; len(p) != 3 || p[0].Text != valid || p[1].Text != "short" || p[2].Text != valid+"2" {
		t.Errorf("the parts did not survive the splice")
	}
	if cap(body) != len(body) {
		t.Errorf("the body's buffer is %d bytes for %d", cap(body), len(body))
	}
}

// TestRESTErrorTextBounded: an HTTP+JSON error body's text is kept up to
// 64 KiB (cut at a character's start) and a body past that is not kept
// as the error's data: a 48 MiB detail is never held twice more.
func TestRESTErrorTextBounded(t *testing.T) {
	detail := strings.Repeat("é", 1<<20)
	for name, body := range map[string]string{
		"problem": `{"type": "about:blank", "title": "Bad request", "status": 400, "detail": "` + detail + `"}`,
		"status":  `{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "` + detail + `"}}`,
	} {
		re := parseRESTError(400, []byte(body))
		if re == nil {
			t.Fatalf("%s: not read as an error", name)
		}
		if n := len(re.Message); n > 64<<10 || n < 60<<10 || !utf8.ValidString(re.Message) {
			t.Errorf("%s: a message of %d bytes (valid UTF-8: %v)", name, n, utf8.ValidString(re.Message))
		}
		if re.Data != nil {
			t.Errorf("%s: the %d-byte body kept as data", name, len(re.Data))
		}
	}
	small := parseRESTError(404, []byte(`{"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found"}}`))
	if small == nil || small.Message != "Task not found" || len(small.Data) == 0 {
		t.Errorf("a small error: %+v", small)
	}
}
