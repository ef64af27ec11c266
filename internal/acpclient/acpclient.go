// Package acpclient is the scripted ACP client of the tests and the demo:
// it drives an agent over a pair of streams the way an editor does
// (newline-delimited JSON-RPC 2.0), numbering its requests from 1,
// matching the responses to them and answering the agent's requests with a
// Handler. internal/acptest wraps it for tests (schema checks, a log to
// wait on); examples/harness prints a transcript with it.
package acpclient

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
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

// Handler answers a request the agent makes of the client.
type Handler func(method string, params json.RawMessage) (any, *RPCError)

// Options says what a Conn does with what the agent writes. Every func
// runs on the goroutine that reads the agent's output, in the order of
// its lines, except Handler, which runs on a goroutine of its own per
// request (an answer may wait for what the agent writes next).
type Options struct {
	// Handler answers the agent's requests; nil answers each with
	// -32601.
	Handler Handler
	// Check, when set, checks each line the agent wrote; methodOf gives
	// the method of the request (of this client) with that id.
	Check func(line []byte, methodOf func(id string) string) error
	// Bad, when set, is told of a line that is not JSON or that Check
	// refused (the line is still handled when it is JSON).
	Bad func(line []byte, err error)
	// Read, when set, sees every message, before it is answered or
	// delivered to the request it answers.
	Read func(Message)
	// Closed, when set, runs once the agent's output has ended; the
	// requests still waiting are failed just before it.
	Closed func()
}

// ErrNotJSON is what Bad is given for a line that is not JSON.
var ErrNotJSON = errors.New("not JSON")

// ErrClosed is the error of a request the agent's output ended before
// answering.
var ErrClosed = errors.New("the agent closed its output")

// Conn is a client connection to one agent.
type Conn struct {
	w    io.Writer
	wmu  sync.Mutex
	opts Options

	mu      sync.Mutex
	seq     int
	methods map[string]string
	waiters map[string]chan Message
}

// New starts reading r (the agent's stdout) and writes to w (its stdin).
func New(r io.Reader, w io.Writer, opts Options) *Conn {
	c := &Conn{w: w, opts: opts, methods: map[string]string{}, waiters: map[string]chan Message{}}
	go c.read(r)
	return c
}

func (c *Conn) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			if c.opts.Bad != nil {
				c.opts.Bad(line, ErrNotJSON)
			}
			continue
		}
		m.Raw = line
		if c.opts.Check != nil {
			if err := c.opts.Check(line, c.methodOf); err != nil && c.opts.Bad != nil {
				c.opts.Bad(line, err)
			}
		}
		if c.opts.Read != nil {
			c.opts.Read(m)
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
	}
	c.mu.Lock()
	for id, ch := range c.waiters {
		close(ch)
		delete(c.waiters, id)
	}
	c.mu.Unlock()
	if c.opts.Closed != nil {
		c.opts.Closed()
	}
}

// MethodOf is the method of the request this client sent with id.
func (c *Conn) MethodOf(id string) string { return c.methodOf(id) }

func (c *Conn) methodOf(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.methods[id]
}

func (c *Conn) answer(m Message) {
	var result any
	var rerr *RPCError
	if c.opts.Handler != nil {
		result, rerr = c.opts.Handler(m.Method, m.Params)
	} else {
		rerr = &RPCError{Code: -32601, Message: "not supported by the test client"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
	}
	b, _ := json.Marshal(resp)
	c.WriteLine(b)
}

// WriteLine writes one raw line to the agent.
func (c *Conn) WriteLine(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(append(append([]byte(nil), b...), '\n'))
}

// Start sends a request and returns a channel for its response and its
// id. The channel is closed, with no response, when the agent's output
// ends first.
func (c *Conn) Start(method string, params any) (chan Message, string) {
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

// Wait waits for a response on ch for at most timeout: an error when the
// agent's output ended first (ErrClosed) or the time ran out.
func Wait(ch <-chan Message, timeout time.Duration) (Message, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return Message{}, ErrClosed
		}
		return m, nil
	case <-timer.C:
		return Message{}, fmt.Errorf("no answer within %s", timeout)
	}
}

// Call sends a request and waits for its response (see Wait). An error
// response is a Message whose Error is set, not an error.
func (c *Conn) Call(method string, params any, timeout time.Duration) (Message, error) {
	ch, _ := c.Start(method, params)
	return Wait(ch, timeout)
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.WriteLine(b)
}
