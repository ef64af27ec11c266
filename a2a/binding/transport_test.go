package binding

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
)

// Round trips (SPEC §19): the connections a Conn opens, counted where the
// server accepts them; never a time.

// connServer is a test server that counts the connections it accepted and
// the protocol of each request; hold, when set, holds each request until
// it returns.
type connServer struct {
	srv    *httptest.Server
	opened atomic.Int32
	// newConn gets a value for each connection accepted.
	newConn chan struct{}

	mu     sync.Mutex
	protos []string
	hold   func()
}

func newConnServer(t *testing.T, withTLS bool, h http.HandlerFunc) *connServer {
	t.Helper()
	s := &connServer{newConn: make(chan struct{}, 64)}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.protos = append(s.protos, r.Proto)
		hold := s.hold
		s.mu.Unlock()
		if hold != nil {
			hold()
		}
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	}))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.opened.Add(1)
			s.newConn <- struct{}{}
		}
	}
	if withTLS {
		s.srv.EnableHTTP2 = true
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	t.Cleanup(s.srv.Close)
	return s
}

func (s *connServer) setHold(f func()) {
	s.mu.Lock()
	s.hold = f
	s.mu.Unlock()
}

// meetAll holds each of n requests until all n arrived: they were in
// flight at once, each on a connection of its own over HTTP/1.1.
func meetAll(t *testing.T, n int) func() {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func() {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			t.Errorf("only %d of %d requests were in flight at once", arrived, n)
		}
	}
}

// callAtOnce makes n GETs of path at once and waits for their answers.
func callAtOnce(t *testing.T, c *Conn, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, _, err := c.Call(context.Background(), http.MethodGet, url, nil, a2a.V10, ""); err != nil {
				t.Errorf("GET: %v", err)
			}
		})
	}
	wg.Wait()
}

// TestPoolKeepsRequestsSentAtOnce: over HTTP/1.1, requests sent at once
// each open a connection; the pool keeps every one, so the next requests
// sent at once open none.
func TestPoolKeepsRequestsSentAtOnce(t *testing.T) {
	const n = 12
	s := newConnServer(t, false, nil)
	c := New(Options{})
	s.setHold(meetAll(t, n))
	callAtOnce(t, c, s.srv.URL+"/a", n)
	if got := s.opened.Load(); got != n {
		t.Fatalf("%d requests at once opened %d connections", n, got)
	}
	s.setHold(meetAll(t, n))
	callAtOnce(t, c, s.srv.URL+"/b", n)
	if got := s.opened.Load(); got != n {
		t.Errorf("the next %d requests at once opened %d new connections", n, got-n)
	}
}

// TestPreconnect: connections opened ahead are the ones requests sent at
// once then use (no more are opened), and only once per origin.
func TestPreconnect(t *testing.T) {
	const n = 4
	s := newConnServer(t, false, nil)
	c := New(Options{Origin: s.srv.URL})
	c.Preconnect(n)
	for range n {
		select {
		case <-s.newConn:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d connections opened ahead", s.opened.Load(), n)
		}
	}
	c.Preconnect(n) // once per origin: nothing more
	s.setHold(meetAll(t, n))
	callAtOnce(t, c, s.srv.URL+"/a", n)
	if got := s.opened.Load(); got != n {
		t.Errorf("%d requests at once after %d connections opened ahead: %d connections in all", n, n, got)
	}
}

// TestHTTP2OverTLS: over TLS, with the transport's TLS configuration set
// by the caller (a CA of its own), requests sent at once, before and after
// a Preconnect, all go over one HTTP/2 connection.
func TestHTTP2OverTLS(t *testing.T) {
	s := newConnServer(t, true, nil)
	tr, d := NewTransport()
	pool := x509.NewCertPool()
	pool.AddCert(s.srv.Certificate())
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	c := New(Options{Base: tr, Dialer: d, Origin: s.srv.URL})
	c.Preconnect(4)
	callAtOnce(t, c, s.srv.URL+"/a", 1)
	callAtOnce(t, c, s.srv.URL+"/b", 6)
	if got := s.opened.Load(); got != 1 {
		t.Errorf("%d connections, want one", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.protos {
		if p != "HTTP/2.0" {
			t.Fatalf("protocols %q, want HTTP/2.0 only", s.protos)
		}
	}
}

// TestFinishedStreamKeepsItsConnection: a stream whose last event ended
// it (a final status) is read to its end when closed, even when the end of
// its body comes after that event: its connection goes back to the pool,
// and the next stream goes over it.
func TestFinishedStreamKeepsItsConnection(t *testing.T) {
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_COMPLETED"},"final":true}}}`,
	}
	s := newConnServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			fmt.Fprintf(w, "data: %s\n\n", f)
			w.(http.Flusher).Flush()
		}
		// The end of the body comes after the final frame, as from an
		// agent that closes its stream a moment later.
		time.Sleep(20 * time.Millisecond)
	})
	c := New(Options{})
	for i := range 2 {
		st, err := c.Open(context.Background(), Request{Method: http.MethodPost, Target: s.srv.URL, Body: []byte(`{}`), Name: "SendStreamingMessage"},
			&jsonFrames{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for {
			ev, err := st.Next()
			if err != nil {
				t.Fatalf("stream %d: %v", i+1, err)
			}
			if ev.Final {
				break // a turn closes its stream at its outcome
			}
		}
		st.Close()
	}
	if got := s.opened.Load(); got != 1 {
		t.Errorf("two streams one after the other opened %d connections", got)
	}
}

// gatedDial is a Dialer's dial for tests: the i-th call (from 1) waits
// for gate(i) when one is set, then returns a connection named i.
type gatedDial struct {
	calls atomic.Int32
	gates map[int32]chan struct{}
	// started, when set, gets each call's number as it starts.
	started chan int32
}

type namedConn struct {
	net.Conn
	n int32
}

func (namedConn) Close() error { return nil }

func (g *gatedDial) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	n := g.calls.Add(1)
	if g.started != nil {
		g.started <- n
	}
	if gate, ok := g.gates[n]; ok {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return namedConn{n: n}, nil
}

// dialWithin calls d.DialContext and fails the test unless it returns
// within a bound (a dial that waits for a gate never released).
func dialWithin(t *testing.T, d *Dialer) int32 {
	t.Helper()
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := d.DialContext(context.Background(), "tcp", "agent.test:80")
		ch <- res{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("dial: %v", r.err)
		}
		return r.c.(namedConn).n
	case <-time.After(10 * time.Second):
		t.Fatal("the dial waited for a connection still under way while another was open")
		return 0
	}
}

// TestPreconnectFirstOpenServes: a request takes the first connection
// opened ahead whose handshake ended, not the oldest one still under
// way; the one under way serves the next request once open, and a
// request beyond the spares dials anew. (The oldest spare's dial is made
// to start first and hang.)
func TestPreconnectFirstOpenServes(t *testing.T) {
	release := make(chan struct{})
	g := &gatedDial{gates: map[int32]chan struct{}{1: release}, started: make(chan int32, 4)}
	d := &Dialer{dial: g.dial}
	const key, addr = "tcp agent.test:80", "agent.test:80"
	oldest, next := &spare{}, &spare{}
	d.mu.Lock()
	d.spares = map[string][]*spare{key: {oldest, next}}
	d.mu.Unlock()
	go d.open(key, addr, oldest)
	select {
	case <-g.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the oldest spare's dial never started")
	}
	go d.open(key, addr, next)
	if got := dialWithin(t, d); got != 2 {
		t.Fatalf("the first request took connection %d, want 2 (the first opened)", got)
	}
	close(release)
	if got := dialWithin(t, d); got != 1 {
		t.Fatalf("the second request took connection %d, want 1 (opened ahead, now open)", got)
	}
	if got := dialWithin(t, d); got != 3 {
		t.Fatalf("the third request took connection %d, want a new one (3)", got)
	}
}

// TestPreconnectWaitersNoMoreThanSpares: requests wait for the spares
// under way only as many as there are; one more dials at once.
func TestPreconnectWaitersNoMoreThanSpares(t *testing.T) {
	release := make(chan struct{})
	g := &gatedDial{gates: map[int32]chan struct{}{1: release}}
	d := &Dialer{dial: g.dial}
	d.Preconnect("http://agent.test", 1)
	first := make(chan int32, 1)
	go func() {
		c, err := d.DialContext(context.Background(), "tcp", "agent.test:80")
		if err != nil {
			t.Errorf("dial: %v", err)
			first <- 0
			return
		}
		first <- c.(namedConn).n
	}()
	// Wait until the first request waits for the spare.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		w := d.waiting["tcp agent.test:80"]
		d.mu.Unlock()
		if w == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first request never waited for the spare under way")
		}
		time.Sleep(time.Millisecond)
	}
	if got := dialWithin(t, d); got != 2 {
		t.Fatalf("a request beyond the spares under way took connection %d, want a new one (2)", got)
	}
	close(release)
	if got := <-first; got != 1 {
		t.Errorf("the waiting request took connection %d, want the spare (1)", got)
	}
}
