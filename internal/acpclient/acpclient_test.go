package acpclient

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
)

// agent is the other end of a Conn: what the client wrote, line by line,
// and a writer for what the agent says.
type agent struct {
	in  chan []byte
	out *io.PipeWriter
}

func newPair(t *testing.T, opts Options) (*Conn, *agent) {
	t.Helper()
	cr, aw := io.Pipe() // agent → client
	ar, cw := io.Pipe() // client → agent
	t.Cleanup(func() { aw.Close(); ar.Close() })
	a := &agent{in: make(chan []byte, 16), out: aw}
	go func() {
		defer close(a.in)
		sc := bufio.NewScanner(ar)
		for sc.Scan() {
			a.in <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	return New(cr, cw, opts), a
}

func (a *agent) next(t *testing.T) map[string]any {
	t.Helper()
	line, ok := <-a.in
	if !ok {
		t.Fatal("the client wrote nothing more")
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("the client wrote %q: %v", line, err)
	}
	return m
}

func (a *agent) say(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(a.out, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// TestCallMatchesResponses: requests are numbered from 1, each response
// reaches its own request whatever the order, an error response is a
// Message with Error set, and Read sees every message first.
func TestCallMatchesResponses(t *testing.T) {
	read := make(chan Message, 8)
	c, a := newPair(t, Options{Read: func(m Message) { read <- m }})
	ch1, id1 := c.Start("initialize", map[string]any{"protocolVersion": 1})
	ch2, id2 := c.Start("session/new", map[string]any{"cwd": "/"})
	if id1 != "1" || id2 != "2" {
		t.Fatalf("ids %q, %q; want 1, 2", id1, id2)
	}
	if m := a.next(t); m["id"] != 1.0 || m["method"] != "initialize" || m["jsonrpc"] != "2.0" {
		t.Errorf("first request: %v", m)
	}
	a.next(t)
	a.say(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}`)
	a.say(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`)
	m2, err := Wait(ch2, 10*time.Second)
	if err != nil || m2.Error == nil || m2.Error.Code != -32602 {
		t.Errorf("the second response: %+v, %v", m2, err)
	}
	m1, err := Wait(ch1, 10*time.Second)
	if err != nil || string(m1.Result) != `{"protocolVersion":1}` {
		t.Errorf("the first response: %+v, %v", m1, err)
	}
	if r := <-read; string(r.ID) != "2" {
		t.Errorf("Read saw %s first, want the response to 2", r.ID)
	}
}

// TestAnswersAgentRequests: the handler's result or error goes back with
// the request's id; with no handler the answer is -32601.
func TestAnswersAgentRequests(t *testing.T) {
	c, a := newPair(t, Options{Handler: func(method string, params json.RawMessage) (any, *RPCError) {
		if method == "session/request_permission" {
			return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, nil
		}
		return nil, &RPCError{Code: -32601, Message: "no " + method}
	}})
	_ = c
	a.say(t, `{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{}}`)
	if m := a.next(t); m["id"] != "p1" || m["result"].(map[string]any)["outcome"].(map[string]any)["outcome"] != "cancelled" {
		t.Errorf("the answer: %v", m)
	}
	a.say(t, `{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{}}`)
	if m := a.next(t); m["id"] != 7.0 || m["error"].(map[string]any)["code"] != -32601.0 {
		t.Errorf("the refusal: %v", m)
	}

	_, b := newPair(t, Options{})
	b.say(t, `{"jsonrpc":"2.0","id":1,"method":"terminal/create","params":{}}`)
	if m := b.next(t); m["error"].(map[string]any)["code"] != -32601.0 {
		t.Errorf("no handler: %v", m)
	}
}

// TestBadLinesAndClose: a line that is not JSON, or that Check refuses, is
// reported; when the agent's output ends, a waiting request fails with
// ErrClosed and Closed runs.
func TestBadLinesAndClose(t *testing.T) {
	bad := make(chan error, 4)
	closed := make(chan struct{})
	checkErr := errors.New("refused")
	c, a := newPair(t, Options{
		Check: func(line []byte, methodOf func(string) string) error {
			if methodOf("1") != "session/prompt" {
				return errors.New("methodOf does not know request 1")
			}
			if string(line) == `{"jsonrpc":"1.0"}` {
				return checkErr
			}
			return nil
		},
		Bad:    func(_ []byte, err error) { bad <- err },
		Closed: func() { close(closed) },
	})
	ch, _ := c.Start("session/prompt", nil)
	a.next(t)
	a.say(t, "not json")
	a.say(t, `{"jsonrpc":"1.0"}`)
	if err := <-bad; !errors.Is(err, ErrNotJSON) {
		t.Errorf("first bad line: %v, want ErrNotJSON", err)
	}
	if err := <-bad; !errors.Is(err, checkErr) {
		t.Errorf("second bad line: %v, want Check's error", err)
	}
	a.out.Close()
	if _, err := Wait(ch, 10*time.Second); !errors.Is(err, ErrClosed) {
		t.Errorf("a request the agent never answered: %v, want ErrClosed", err)
	}
	<-closed
}
