package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Message is one JSON-RPC message the agent wrote.
type Message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
	Raw    []byte          `json:"-"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data) }

// Update is one session/update notification.
type Update struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
}

// Kind returns the update's sessionUpdate.
func (u Update) Kind() string {
	var k struct {
		K string `json:"sessionUpdate"`
	}
	_ = json.Unmarshal(u.Update, &k)
	return k.K
}

// Text returns the text of a content chunk.
func (u Update) Text() string {
	var c struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(u.Update, &c)
	return c.Content.Text
}

// Malformed is an answer a handler gives on purpose against the schema
// (to test how the agent takes a broken client): sent as is, unchecked.
type Malformed struct{ Value any }

// Handler answers a request the agent makes of the client.
type Handler func(method string, params json.RawMessage) (any, *RPCError)

// Client drives an ACP agent over a pair of streams the way an editor
// does, validating every line the agent writes against the ACP schema.
type Client struct {
	t       testing.TB
	w       io.Writer
	wmu     sync.Mutex
	v       *Validator
	handler Handler

	mu      sync.Mutex
	seq     int
	methods map[string]string
	waiters map[string]chan Message
	log     []Message
	cond    *sync.Cond
	closed  bool
	stopped bool
}

// NewClient starts reading r (the agent's stdout) and writes to w (its stdin).
func NewClient(t testing.TB, r io.Reader, w io.Writer, h Handler) *Client {
	t.Helper()
	v, err := Schema()
	if err != nil {
		t.Fatalf("ACP schema: %v", err)
	}
	c := &Client{t: t, w: w, v: v, handler: h, methods: map[string]string{}, waiters: map[string]chan Message{}}
	c.cond = sync.NewCond(&c.mu)
	t.Cleanup(func() { c.mu.Lock(); c.stopped = true; c.mu.Unlock() })
	go c.read(r)
	return c
}

func (c *Client) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			c.errorf("agent wrote a line that is not JSON: %q", line)
			continue
		}
		m.Raw = line
		if err := c.v.AgentLine(line, c.methodOf); err != nil {
			c.errorf("schema: %v\n  line: %s", err, trim(line))
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go c.answer(m)
		case m.Method == "":
			c.mu.Lock()
			ch := c.waiters[string(m.ID)]
			delete(c.waiters, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
		c.mu.Lock()
		c.log = append(c.log, m)
		c.cond.Broadcast()
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// errorf reports a failure unless the test is over.
func (c *Client) errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.t.Errorf(format, args...)
	}
}

func trim(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

func (c *Client) methodOf(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.methods[id]
}

func (c *Client) answer(m Message) {
	var result any
	var rerr *RPCError
	if c.handler != nil {
		result, rerr = c.handler(m.Method, m.Params)
	} else {
		rerr = &RPCError{Code: -32601, Message: "not supported by the test client"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
		// The test's own answers follow the schema too, so that shim is
		// tested against answers a real client can give.
		if bad, ok := result.(Malformed); ok {
			resp["result"] = bad.Value
		} else if b, err := json.Marshal(result); err != nil {
			c.errorf("the test client's answer to %s does not encode: %v", m.Method, err)
		} else if err := c.v.ClientAnswer(m.Method, b); err != nil {
			c.errorf("the test client's answer to %s: %v", m.Method, err)
		}
	}
	b, _ := json.Marshal(resp)
	c.WriteLine(b)
}

// WriteLine writes one raw line to the agent.
func (c *Client) WriteLine(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(append(append([]byte(nil), b...), '\n'))
}

// Start sends a request and returns a channel for its response.
func (c *Client) Start(method string, params any) (chan Message, string) {
	c.mu.Lock()
	c.seq++
	seq := c.seq
	id := strconv.Itoa(seq)
	c.methods[id] = method
	ch := make(chan Message, 1)
	c.waiters[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq, "method": method, "params": params})
	c.WriteLine(b)
	return ch, id
}

// Call sends a request and waits for its response.
func (c *Client) Call(method string, params any) Message {
	c.t.Helper()
	ch, _ := c.Start(method, params)
	return c.Wait(ch, method)
}

// Wait waits for a response.
func (c *Client) Wait(ch chan Message, what string) Message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatalf("no response to %s within 30s", what)
	}
	return Message{}
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.WriteLine(b)
}

// Messages returns every message the agent wrote so far.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.log...)
}

// Updates returns the session/update notifications for a session.
func (c *Client) Updates(sessionID string) []Update {
	var out []Update
	for _, m := range c.Messages() {
		if m.Method != "session/update" {
			continue
		}
		var u Update
		_ = json.Unmarshal(m.Params, &u)
		if sessionID == "" || u.SessionID == sessionID {
			out = append(out, u)
		}
	}
	return out
}

// WaitFor waits until pred holds for the messages so far.
func (c *Client) WaitFor(what string, pred func([]Message) bool) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	timer := time.AfterFunc(30*time.Second, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !pred(c.log) {
		if c.closed || time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s", what)
		}
		c.cond.Wait()
	}
}

// Closed reports whether the agent's output ended.
func (c *Client) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
