package a2aclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
)

// streamServer serves handler at /a2a; the client is given that endpoint.
func streamServer(t *testing.T, handler http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv, srv.URL + "/a2a"
}

func openStream(t *testing.T, cfg Config) *Stream {
	t.Helper()
	c := newClient(t, cfg)
	s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStreamKeepAliveAndComments: comment-only blocks and `event: ping`
// without data are skipped; frames around them arrive.
func TestStreamKeepAliveAndComments(t *testing.T) {
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, ": keep-alive\n\n")
		sseWrite(w, "id: 1\r\ndata: "+frameTask+"\r\n\r\n")
		sseWrite(w, ":\n\n")
		sseWrite(w, "event: ping\n\n")
		sseWrite(w, "data: "+frameCompleted+"\r\r")
	})
	evs, err := drain(t, openStream(t, Config{Endpoint: ep}))
	if !errors.Is(err, io.EOF) || kinds(evs) != "task:submitted,status:completed" {
		t.Errorf("got %s, %v", kinds(evs), err)
	}
}

// TestStreamMultiLineData: a frame whose JSON is split over data lines.
func TestStreamMultiLineData(t *testing.T) {
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\ndata: \"result\":{\"statusUpdate\":{\"taskId\":\"t1\",\ndata: \"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\n")
	})
	evs, err := drain(t, openStream(t, Config{Endpoint: ep}))
	if !errors.Is(err, io.EOF) || kinds(evs) != "status:completed" {
		t.Errorf("got %s, %v", kinds(evs), err)
	}
}

// TestStreamLargeFrame: a 10 MiB frame passes through Stream.Next, and the
// frame after it still arrives.
func TestStreamLargeFrame(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 10<<20/16)
	frame := artifactFrame(big)
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseFrames(w, frame, frameCompleted)
	})
	s := openStream(t, Config{Endpoint: ep, Stall: 10 * time.Second})
	start := time.Now()
	ev, err := next(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != a2a.EventArtifact || len(ev.Artifact.Parts) != 1 || ev.Artifact.Parts[0].Text != big {
		t.Fatalf("got %s with %d parts", ev.Kind, len(ev.Artifact.Parts))
	}
	t.Logf("10 MiB frame read in %v", time.Since(start))
	if ev, err = next(t, s); err != nil || ev.Status.State != a2a.StateCompleted {
		t.Errorf("after the big frame: %s %v", kinds([]a2a.Event{ev}), err)
	}
}

// TestStreamNonUTF8: a frame with a byte that is not UTF-8 inside a JSON
// string decodes (the byte becomes U+FFFD) and does not stop the stream.
func TestStreamNonUTF8(t *testing.T) {
	bad := strings.Replace(artifactFrame("caf@ ok"), "@", "\xe9", 1)
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseFrames(w, bad, frameCompleted)
	})
	evs, err := drain(t, openStream(t, Config{Endpoint: ep}))
	if !errors.Is(err, io.EOF) || kinds(evs) != "artifact,status:completed" {
		t.Fatalf("got %s, %v", kinds(evs), err)
	}
	if got := evs[0].Artifact.Parts[0].Text; got != "caf\uFFFD ok" {
		t.Errorf("text %q", got)
	}
}

// TestStreamInvalidJSONSkipped: a frame that is not JSON, or not a
// JSON-RPC response, is skipped with a log line; the next frame arrives.
func TestStreamInvalidJSONSkipped(t *testing.T) {
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseFrames(w, frameWorking, `{"jsonrpc":"2.0","result":{"statusUpd`, `{"jsonrpc":"2.0","id":1}`,
			`{"jsonrpc":"2.0","id":1,"result":{"foo":1}}`, "\xff\xfe", frameCompleted)
	})
	logs := &logBuffer{}
	evs, err := drain(t, openStream(t, Config{Endpoint: ep, Log: logs.logger()}))
	if !errors.Is(err, io.EOF) || kinds(evs) != "status:working,status:completed" {
		t.Errorf("got %s, %v", kinds(evs), err)
	}
	if n := strings.Count(logs.String(), "skipping an undecodable stream frame"); n != 4 {
		t.Errorf("%d skip log lines, want 4:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "statusUpd") {
		t.Errorf("the log does not show the frame's start:\n%s", logs.String())
	}
}

// TestStreamNotJSON: a stream none of whose events is JSON ends saying the
// stream is not JSON, naming the character escaped (never a raw control
// character, never a plain end of stream). A stream that had one good
// frame ends as before (TestStreamInvalidJSONSkipped).
func TestStreamNotJSON(t *testing.T) {
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, "data: \x07\n\ndata: \x07\n\n")
	})
	evs, err := drain(t, openStream(t, Config{Endpoint: ep}))
	var nj *a2a.NotJSONError
	if len(evs) != 0 || !errors.As(err, &nj) {
		t.Fatalf("got %s, %T %v; want *a2a.NotJSONError", kinds(evs), err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "the agent's stream is not JSON: ") {
		t.Errorf("message %q", msg)
	}
	for _, r := range msg {
		if r < 0x20 || r == 0x7f {
			t.Fatalf("the message carries control character %U: %q", r, msg)
		}
	}
	if !strings.Contains(msg, `'\a'`) && !strings.Contains(msg, `'\x07'`) {
		t.Errorf("message %q does not name the character escaped", msg)
	}
}

// TestVoltAgentRecordSeparator: VoltAgent's own A2A server (recorded in
// bridge/testdata/frameworks/voltagent, @voltagent/a2a-server 2.0.3, MIT)
// puts U+001E before the JSON of every event (RFC 7464): the stream reads
// the JSON after it (SPEC §16; it was "the agent's stream is not JSON"
// before), records the departure and says it once in the log.
func TestVoltAgentRecordSeparator(t *testing.T) {
	body, err := os.ReadFile("../../bridge/testdata/frameworks/voltagent/04-answer-stream.response.sse")
	if err != nil {
		t.Fatal(err)
	}
	events := bytes.Count(body, []byte("data: \x1e"))
	if events < 2 {
		t.Fatalf("the capture has %d events starting with U+001E", events)
	}
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, string(body))
	})
	var logs logBuffer
	c := newClient(t, Config{Endpoint: ep, Version: "0.3", Log: logs.logger()})
	s, err := c.Stream(ctxT(t), a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := drain(t, s)
	if !errors.Is(err, io.EOF) || len(evs) != events {
		t.Fatalf("got %d events (%s), %v; want %d", len(evs), kinds(evs), err, events)
	}
	if strings.Contains(logs.String(), "skipping an undecodable stream frame") {
		t.Errorf("frames were skipped:\n%s", logs.String())
	}
	if d := c.Departures(); len(d) != 1 || d[0] != a2a.DepartureRecordSeparator {
		t.Errorf("departures %v", d)
	}
	if n := strings.Count(logs.String(), string(a2a.DepartureRecordSeparator)); n != 1 {
		t.Errorf("%d log lines say it, want 1:\n%s", n, logs.String())
	}
}

// TestStreamErrorFrames: `event: error` frames (a JSON-RPC response, a
// bare error object, plain text) and a JSON-RPC error in a data frame are
// *RPCError; the stream can still be read afterwards.
func TestStreamErrorFrames(t *testing.T) {
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, "event: error\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"task not found\"}}\n\n")
		sseWrite(w, "event: error\ndata: {\"code\":-32603.0,\"message\":\"internal\"}\n\n")
		sseWrite(w, "event: error\ndata: upstream exploded\n\n")
		sseWrite(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32004,\"message\":\"terminal\"}}\n\n")
		sseFrames(w, frameCompleted)
	})
	s := openStream(t, Config{Endpoint: ep})
	want := []struct {
		code int
		msg  string
	}{{-32001, "task not found"}, {-32603, "internal"}, {-32603, "upstream exploded"}, {-32004, "terminal"}}
	for i, w := range want {
		_, err := next(t, s)
		var rpc *a2a.RPCError
		if !errors.As(err, &rpc) || rpc.Code != w.code || rpc.Message != w.msg {
			t.Errorf("frame %d: want RPCError %d %q, got %T %v", i, w.code, w.msg, err, err)
		}
	}
	if ev, err := next(t, s); err != nil || ev.Status.State != a2a.StateCompleted {
		t.Errorf("after the error frames: %v %v", ev.Kind, err)
	}
}

// TestStreamGoSubscribeError: a2a-go answers SubscribeToTask on a finished
// task with an SSE stream whose only frame is a JSON-RPC error.
func TestStreamGoSubscribeError(t *testing.T) {
	raw, err := os.ReadFile("../wire/testdata/captures/go-errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	var block string
	for _, chunk := range strings.Split(string(raw), "\n\n") {
		if c := strings.TrimSpace(chunk); strings.HasPrefix(c, "id:") {
			block = c + "\n\n"
		}
	}
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseWrite(w, block)
	})
	c := newClient(t, Config{Endpoint: ep})
	s, err := c.Resubscribe(ctxT(t), "t1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = next(t, s)
	var rpc *a2a.RPCError
	if !errors.As(err, &rpc) || rpc.Code != a2a.CodeTaskNotFound {
		t.Errorf("want RPCError -32001, got %v", err)
	}
	if _, err := next(t, s); !errors.Is(err, io.EOF) {
		t.Errorf("then: want io.EOF, got %v", err)
	}
}

// TestStreamJSONBody: a streaming request answered with one JSON body
// instead of SSE (an error with HTTP 200, as the js SDK does; or 500).
func TestStreamJSONBody(t *testing.T) {
	capture, err := os.ReadFile("../wire/testdata/captures/stream-v1-noheader.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := bytes.Cut(capture, []byte("\r\n\r\n"))
	if !ok {
		_, body, _ = bytes.Cut(capture, []byte("\n\n"))
	}
	for _, status := range []int{200, 500} {
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(status)
			_, _ = w.Write(body)
		})
		c := newClient(t, Config{Endpoint: ep})
		_, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
		var rpc *a2a.RPCError
		if !errors.As(err, &rpc) || rpc.Code != -32009 || !strings.Contains(rpc.Message, "not supported") {
			t.Errorf("HTTP %d: want RPCError -32009, got %T %v", status, err, err)
		}
	}
	// An HTML page instead of a stream is an HTTP error that says so.
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(htmlBadGateway))
	})
	c := newClient(t, Config{Endpoint: ep})
	_, err = c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
	var he *a2a.HTTPError
	if !errors.As(err, &he) || !he.HTML || he.StatusCode != 502 {
		t.Errorf("HTML page: want HTTPError HTML 502, got %T %v", err, err)
	}
}

// hold blocks a handler until the client goes away or the test ends.
func hold(r *http.Request, done <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-done:
	}
}

// TestStreamStall: a stream that goes silent returns ErrStalled after the
// stall timeout instead of hanging.
func TestStreamStall(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		sseFrames(w, frameWorking)
		hold(r, done)
	})
	s := openStream(t, Config{Endpoint: ep, Stall: 200 * time.Millisecond})
	if ev, err := next(t, s); err != nil || ev.Kind != a2a.EventStatus {
		t.Fatalf("first frame: %v %v", ev.Kind, err)
	}
	start := time.Now()
	_, err := next(t, s) // fails the test if it takes over 10 s
	if !errors.Is(err, a2a.ErrStalled) {
		t.Fatalf("want ErrStalled, got %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("stall noticed after %v", d)
	}
	if _, err := next(t, s); err == nil {
		t.Error("a stalled stream returned an event afterwards")
	}
}

// TestStreamStallBeforeHeaders: a server that accepts the request but
// never answers is a stall too.
func TestStreamStallBeforeHeaders(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) { hold(r, done) })
	c := newClient(t, Config{Endpoint: ep, Stall: 200 * time.Millisecond})
	err := within(t, 10*time.Second, "Stream", func() error {
		_, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
		return err
	})
	if !errors.Is(err, a2a.ErrStalled) {
		t.Errorf("want ErrStalled, got %v", err)
	}
}

// TestStreamKeepAliveResetsStall: comment keep-alives count as activity,
// so a stream that only keeps alive for longer than the stall timeout is
// not stalled.
func TestStreamKeepAliveResetsStall(t *testing.T) {
	const stall = 500 * time.Millisecond
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		end := time.Now().Add(3 * stall)
		for time.Now().Before(end) {
			sseWrite(w, ": ping\n\n")
			time.Sleep(20 * time.Millisecond)
		}
		sseFrames(w, frameCompleted)
	})
	s := openStream(t, Config{Endpoint: ep, Stall: stall})
	start := time.Now()
	ev, err := next(t, s)
	if err != nil || ev.Status.State != a2a.StateCompleted {
		t.Fatalf("got %v %v after %v", ev.Kind, err, time.Since(start))
	}
	if d := time.Since(start); d < stall {
		t.Fatalf("the server did not keep alive past the stall timeout (%v)", d)
	}
}

// TestStreamCut: a stream cut mid-way ends with an error, never a hang.
// A server that ends the response cleanly gives io.EOF; a connection that
// breaks in the middle of the chunked body (here, of a frame) gives a
// non-EOF error that says the stream broke. The partial frame is dropped.
func TestStreamCut(t *testing.T) {
	t.Run("clean end", func(t *testing.T) {
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			sseStart(w)
			sseFrames(w, frameWorking)
		})
		evs, err := drain(t, openStream(t, Config{Endpoint: ep}))
		if !errors.Is(err, io.EOF) || kinds(evs) != "status:working" {
			t.Errorf("got %s, %v", kinds(evs), err)
		}
	})
	t.Run("connection broken mid-frame", func(t *testing.T) {
		_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			sseStart(w)
			sseFrames(w, frameWorking)
			sseWrite(w, "data: "+frameCompleted[:40])
			panic(http.ErrAbortHandler) // drops the connection, no final chunk
		})
		logs := &logBuffer{}
		evs, err := drain(t, openStream(t, Config{Endpoint: ep, Log: logs.logger()}))
		if kinds(evs) != "status:working" {
			t.Errorf("events %s", kinds(evs))
		}
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, a2a.ErrStalled) {
			t.Fatalf("want a broken-stream error, got %v", err)
		}
		if !strings.Contains(err.Error(), "stream broke") {
			t.Errorf("error %q", err)
		}
	})
}

// TestStreamClose: Close unblocks a pending Next.
func TestStreamClose(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		sseStart(w)
		hold(r, done)
	})
	s := openStream(t, Config{Endpoint: ep})
	ch := make(chan error, 1)
	go func() { _, err := s.Next(); ch <- err }()
	time.Sleep(50 * time.Millisecond) // let Next block (not required for correctness)
	s.Close()
	select {
	case err := <-ch:
		if err == nil || errors.Is(err, a2a.ErrStalled) {
			t.Errorf("Next after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not unblock Next")
	}
}

// TestStreamRetryBeforeWrite: a streaming POST whose connection failed
// before the request was written (refused) is retried.
func TestStreamRetryBeforeWrite(t *testing.T) {
	var hits atomic.Int32
	srv, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		sseStart(w)
		sseFrames(w, frameCompleted)
	})
	refused := refusedAddr(t)
	var dials atomic.Int32
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return d.DialContext(ctx, network, refused) // connection refused
		}
		return d.DialContext(ctx, network, addr)
	}}
	c := newClient(t, Config{Endpoint: ep, Transport: tr})
	s, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer s.Close()
	if evs, err := drain(t, s); !errors.Is(err, io.EOF) || kinds(evs) != "status:completed" {
		t.Errorf("got %s %v", kinds(evs), err)
	}
	if dials.Load() != 2 || hits.Load() != 1 {
		t.Errorf("%d dials, %d server hits; want 2 and 1", dials.Load(), hits.Load())
	}
	_ = srv

	// Refused every time: three attempts, then unreachable.
	dials.Store(0)
	tr2 := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, refused)
	}}
	c = newClient(t, Config{Endpoint: ep, Transport: tr2})
	_, err = c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
	var ue *a2a.UnreachableError
	if !errors.As(err, &ue) || dials.Load() != 3 {
		t.Errorf("want UnreachableError after 3 dials, got %v after %d", err, dials.Load())
	}
}

// TestStreamNoRetryAfterWrite: once the request was written, a broken
// connection is not retried (the server may have started the task).
func TestStreamNoRetryAfterWrite(t *testing.T) {
	var hits atomic.Int32
	_, ep := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.ReadAll(r.Body)
		panic(http.ErrAbortHandler) // close the connection without answering
	})
	c := newClient(t, Config{Endpoint: ep})
	_, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
	if err == nil {
		t.Fatal("no error")
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("server hit %d times, want 1 (no retry once written)", n)
	}
}

// TestStreamingFalseCard: a card with capabilities.streaming false makes
// Stream a blocking SendMessage (message/send for 0.3) whose result comes
// back as the events a stream would have carried.
func TestStreamingFalseCard(t *testing.T) {
	task10 := `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1",
		"status":{"state":"TASK_STATE_COMPLETED","message":{"messageId":"m9","role":"ROLE_AGENT","parts":[{"text":"done"}]}},
		"artifacts":[{"artifactId":"a1","parts":[{"text":"Hello"},{"text":" world"}]},{"artifactId":"a2","parts":[{"data":{"x":1}}]}],
		"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]},{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"thinking"}]},{"messageId":"m9","role":"ROLE_AGENT","parts":[{"text":"done"}]}]}}}`
	task03 := `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1",
		"status":{"state":"completed"},
		"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"Hello world"}]}]}}`
	tests := []struct {
		name, card, answer, method, want string
	}{
		{"1.0", "10", task10, "SendMessage", "status:working,artifact,artifact,status:completed"},
		{"0.3", "03", task03, "message/send", "artifact,status:completed"},
		{"message result", "10", `{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m1","role":"ROLE_AGENT","contextId":"c1","parts":[{"text":"hi"}]}}}`, "SendMessage", "message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.add(r)
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.Method == http.MethodGet && tt.card == "10":
					_, _ = w.Write([]byte(card10(srv.URL+"/rpc", "", false)))
				case r.Method == http.MethodGet:
					_, _ = w.Write([]byte(card03(srv.URL+"/rpc", false)))
				default:
					_, _ = w.Write([]byte(tt.answer))
				}
			}))
			defer srv.Close()
			c := newClient(t, Config{URL: srv.URL})
			s, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Text: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			evs, err := drain(t, s)
			if !errors.Is(err, io.EOF) || kinds(evs) != tt.want {
				t.Fatalf("got %s %v, want %s", kinds(evs), err, tt.want)
			}
			if r := rec.rpcs(); len(r) != 1 || r[0].RPC != tt.method {
				t.Fatalf("calls %+v", r)
			}
			if tt.name == "1.0" {
				checkTaskAsEvents10(t, evs)
			}
		})
	}
}

// checkTaskAsEvents10 checks the events of TestStreamingFalseCard's 1.0
// task: its history's agent message, its first artifact whole, its final
// status.
func checkTaskAsEvents10(t *testing.T, evs []a2a.Event) {
	t.Helper()
	if m := evs[0].Status.Message; m == nil || m.Text() != "thinking" {
		t.Errorf("history message: %+v", m)
	}
	a := evs[1].Artifact
	if a.ID != "a1" || len(a.Parts) != 2 || a.Parts[0].Text+a.Parts[1].Text != "Hello world" || !evs[1].LastChunk || evs[1].Append {
		t.Errorf("artifact event: %+v", evs[1])
	}
	last := evs[len(evs)-1]
	if !last.Final || last.Status.Message.Text() != "done" || last.TaskID != "t1" || last.ContextID != "c1" {
		t.Errorf("final status: %+v", last)
	}
}
