package acptest

import (
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/internal/acpclient"
)

// Message is one JSON-RPC message the agent wrote.
type Message = acpclient.Message

// RPCError is a JSON-RPC error object.
type RPCError = acpclient.RPCError

// Handler answers a request the agent makes of the client.
type Handler = acpclient.Handler

// Malformed is an answer a handler gives on purpose against the schema
// (to test how the agent takes a broken client): sent as is, unchecked.
type Malformed struct{ Value any }

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

// Client drives an ACP agent over a pair of streams the way an editor
// does (acpclient.Conn), validating every line the agent writes against
// the ACP schema and keeping every message for the test to wait on.
type Client struct {
	*acpclient.Conn
	t testing.TB

	mu      sync.Mutex
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
	c := &Client{t: t}
	c.cond = sync.NewCond(&c.mu)
	t.Cleanup(func() { c.mu.Lock(); c.stopped = true; c.mu.Unlock() })
	c.Conn = acpclient.New(r, w, acpclient.Options{
		Handler: c.checked(h, v),
		Check:   v.AgentLine,
		Bad:     c.bad,
		Read: func(m Message) {
			c.mu.Lock()
			c.log = append(c.log, m)
			c.cond.Broadcast()
			c.mu.Unlock()
		},
		Closed: func() {
			c.mu.Lock()
			c.closed = true
			c.cond.Broadcast()
			c.mu.Unlock()
		},
	})
	return c
}

// checked wraps h so that the test's own answers follow the schema too
// (by the client-side response definition of their method): shim is
// tested against answers a real client can give. A Malformed answer is
// sent as is.
func (c *Client) checked(h Handler, v *Validator) Handler {
	if h == nil {
		return nil
	}
	return func(method string, params json.RawMessage) (any, *RPCError) {
		result, rerr := h(method, params)
		if rerr != nil {
			return result, rerr
		}
		if bad, ok := result.(Malformed); ok {
			return bad.Value, nil
		}
		if b, err := json.Marshal(result); err != nil {
			c.report("the test client's answer to %s does not encode: %v", method, err)
		} else if err := v.ClientAnswer(method, b); err != nil {
			c.report("the test client's answer to %s: %v", method, err)
		}
		return result, nil
	}
}

// report fails the test unless it is over.
func (c *Client) report(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.t.Errorf(format, args...)
	}
}

// bad reports a line that is not JSON or not valid ACP, unless the test is
// over.
func (c *Client) bad(line []byte, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	if err == acpclient.ErrNotJSON {
		c.t.Errorf("agent wrote a line that is not JSON: %q", line)
		return
	}
	c.t.Errorf("schema: %v\n  line: %s", err, trim(line))
}

func trim(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// Call sends a request and waits for its response.
func (c *Client) Call(method string, params any) Message {
	c.t.Helper()
	ch, _ := c.Start(method, params)
	return c.Wait(ch, method)
}

// Wait waits for a response.
func (c *Client) Wait(ch <-chan Message, what string) Message {
	c.t.Helper()
	m, err := acpclient.Wait(ch, 30*time.Second)
	if err != nil {
		c.t.Fatalf("no response to %s: %v", what, err)
	}
	return m
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
