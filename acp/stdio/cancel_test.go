package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/acp"
)

// waiter is a Handler whose session/list and session/new wait until
// their request's context ends, then answer: session/list with the
// context's error (as a call cut short fails), session/new with a result
// (as a request that got past the point of no return does). Each hands
// the test its context when it starts, and tells when it ended whether it
// was cancelled.
type waiter struct {
	unserved
	started chan context.Context
	ended   chan bool // RequestCancelled of the ended context
}

func (w *waiter) ListSessions(ctx context.Context, req *acp.Request, _ *acp.ListParams) {
	w.started <- ctx
	go func() {
		<-ctx.Done()
		w.ended <- RequestCancelled(ctx)
		_ = w.c.Reply(req, nil, acp.Internal(ctx.Err().Error(), nil))
	}()
}

func (w *waiter) NewSession(ctx context.Context, req *acp.Request, _ *acp.NewSessionParams) {
	w.started <- ctx
	go func() {
		<-ctx.Done()
		w.ended <- RequestCancelled(ctx)
		_ = w.c.Reply(req, acp.NewSessionResult{SessionID: "s1"}, nil)
	}()
}

func (w *waiter) Initialize(ctx context.Context, req *acp.Request, _ *acp.InitializeParams) {
	_ = w.c.Reply(req, struct{}{}, nil)
	w.ended <- RequestCancelled(ctx) // answered: ended, not cancelled
}

// wire is a Conn on pipes: the test writes the client's lines and reads
// shim's.
type wire struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func newWire(t *testing.T, h func(*Conn) acp.Handler) (*Conn, wire) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := NewConn(inR, outW, slog.New(slog.DiscardHandler))
	c.Start(context.Background(), h(c))
	t.Cleanup(func() { inW.Close(); outW.Close() })
	return c, wire{in: inW, out: bufio.NewReader(outR)}
}

func (w wire) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (w wire) next(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		l, _ := w.out.ReadBytes('\n')
		got <- l
	}()
	select {
	case l := <-got:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("nothing written")
	}
	return nil
}

// TestCancelRequestFromClient: $/cancel_request ends the context of the
// request it names: one that then fails answers -32800 "request
// cancelled" whatever its failure, one that answers a result keeps it. A
// string id and a number id of the same digits are different requests; an
// unknown id, an answered one and a malformed notification change
// nothing; answering ends a request's context without marking it
// cancelled.
func TestCancelRequestFromClient(t *testing.T) {
	w := &waiter{started: make(chan context.Context, 4), ended: make(chan bool, 4)}
	_, c := newWire(t, func(c *Conn) acp.Handler { w.c = c; return w })

	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := c.next(t); string(m["id"]) != "1" || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	if <-w.ended {
		t.Fatal("an answered request reads as cancelled")
	}
	c.send(t, `{"jsonrpc":"2.0","id":"7","method":"session/list","params":{}}`)
	c.send(t, `{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	<-w.started
	newCtx := <-w.started
	// Nothing of these reaches a running request.
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":99}}`)
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":null}}`)
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{}}`)
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request"}`)
	// The string id "7" is session/list's. Lines are served in order, so
	// once its context ended, every cancel before it was served.
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"7"}}`)
	if !<-w.ended {
		t.Fatal("the cancelled request's context does not say so")
	}
	if newCtx.Err() != nil {
		t.Fatal("session/new (id 7, a number) was cancelled by the id \"7\" or an unknown one")
	}
	m := c.next(t)
	var e acp.Error
	if string(m["id"]) != `"7"` || json.Unmarshal(m["error"], &e) != nil || e.Code != acp.CodeRequestCancelled || e.Message != "request cancelled" {
		t.Fatalf("cancelled list: %s %s %s", m["id"], m["error"], m["result"])
	}
	c.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`)
	if !<-w.ended {
		t.Fatal("session/new's context does not say it was cancelled")
	}
	if m := c.next(t); string(m["id"]) != "7" || m["result"] == nil || m["error"] != nil {
		t.Fatalf("a cancelled request that answers a result: %v", m)
	}
}

// TestCallWithdrawn: a call whose context ends before the client answers
// is withdrawn with $/cancel_request naming its id, and returns the
// context's error; a call answered in time sends no $/cancel_request, and
// Withdraw sends it once however often it is called.
func TestCallWithdrawn(t *testing.T) {
	conn, c := newWire(t, func(c *Conn) acp.Handler { return unserved{c} })
	// jsonrpc2 learns its connection from Start; a call needs it.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var res struct{}
		done <- conn.Call(ctx, acp.MethodRequestPermission, map[string]any{"sessionId": "s1"}, &res)
	}()
	m := c.next(t)
	if string(m["method"]) != `"session/request_permission"` || string(m["id"]) != "1" {
		t.Fatalf("call: %v", m)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn call: %v", err)
	}
	m = c.next(t)
	if string(m["method"]) != `"$/cancel_request"` || string(m["params"]) != `{"requestId":1}` || m["id"] != nil {
		t.Fatalf("withdrawal: %v", m)
	}
	// The client's late answer (-32800) is taken and dropped.
	c.send(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}`)

	o, err := conn.Ask(acp.MethodElicitationCreate, map[string]any{"mode": "url"})
	if err != nil {
		t.Fatal(err)
	}
	if m := c.next(t); string(m["id"]) != "2" {
		t.Fatalf("second call: %v", m)
	}
	c.send(t, `{"jsonrpc":"2.0","id":2,"result":{"action":"accept"}}`)
	var res struct {
		Action string `json:"action"`
	}
	if err := o.Wait(context.Background(), &res); err != nil || res.Action != "accept" {
		t.Fatalf("answered call: %v %+v", err, res)
	}
	o.Withdraw()
	o.Withdraw()
	if err := conn.NotifyClient("probe/end", struct{}{}); err != nil {
		t.Fatal(err)
	}
	m = c.next(t)
	if string(m["method"]) != `"$/cancel_request"` || string(m["params"]) != `{"requestId":2}` {
		t.Fatalf("withdrawal of an answered call: %v", m)
	}
	if m := c.next(t); string(m["method"]) != `"probe/end"` {
		t.Fatalf("Withdraw sent more than once: %v", m)
	}
}

// FuzzCancelRequest feeds arbitrary params to $/cancel_request: it never
// panics, and it ends the context of a running request only when the
// params name that request's id exactly (a number for a number, a string
// for a string).
func FuzzCancelRequest(f *testing.F) {
	for _, seed := range []string{`{"requestId":3}`, `{"requestId":"3"}`, `{"requestId":null}`, `{}`, `[]`, `{"requestId":3.5}`,
		`{"requestId":-3}`, `{"requestId":{"a":1}}`, `{"requestId":"x","_meta":{}}`, `null`, `"`, ``} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, params string) {
		c := newConn(strings.NewReader(""), io.Discard, slog.New(slog.DiscardHandler), lineMaxBytes)
		num := &acp.Request{ID: acp.ID{Num: 3}, Method: acp.MethodSessionList}
		str := &acp.Request{ID: acp.ID{Str: "x", IsString: true}, Method: acp.MethodSessionList}
		numCtx := c.running.begin(context.Background(), num)
		strCtx := c.running.begin(context.Background(), str)
		raw := json.RawMessage(params)
		req := &acp.Request{Method: acp.MethodCancelRequest, Notif: true}
		if params != "" {
			req.Params = &raw
		}
		c.cancelRequest(req)
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		named := ""
		if json.Unmarshal(raw, &p) == nil {
			named = string(bytes.TrimSpace(p.RequestID))
		}
		if got, want := RequestCancelled(numCtx), named == "3"; got != want {
			t.Fatalf("%s: the request with id 3 cancelled %v", params, got)
		}
		if got, want := RequestCancelled(strCtx), named == `"x"`; got != want {
			t.Fatalf("%s: the request with id \"x\" cancelled %v", params, got)
		}
		c.running.end(num)
		c.running.end(str)
		if len(c.running.reqs) != 0 {
			t.Fatalf("answered requests kept: %v", c.running.reqs)
		}
	})
}
