package main

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
	"github.com/shimdev/shim/bench/internal/delayproxy"
	"github.com/shimdev/shim/bench/internal/reqlog"
	"github.com/shimdev/shim/bench/internal/testca"
)

// The proxy's delays are timing and are never asserted here (the bench
// measures them); these tests check what it forwards, what it counts and
// that it ends cleanly.

// newDelayProxy listens on the loopback and forwards to target (host:port)
// (the bench listens first and aims its proxy later: newRTTRig).
func newDelayProxy(target string, rtt time.Duration) (*delayproxy.Proxy, error) {
	p, err := delayproxy.Listen()
	if err != nil {
		return nil, err
	}
	p.SetRTT(rtt)
	p.Start(target)
	return p, nil
}

// byUpstream finds the connection whose dial to the server had this local
// address (an *http.Request's RemoteAddr at the server).
func byUpstream(p *delayproxy.Proxy, addr string) *delayproxy.Conn {
	conns := p.Connections()
	for i := len(conns) - 1; i >= 0; i-- {
		if conns[i].Upstream == addr {
			return conns[i]
		}
	}
	return nil
}

// echoServer greets each connection first, then reads until the client's
// half close and answers with what it read, reversed byte by byte, then
// closes. It reports each connection's remote address.
func echoServer(t *testing.T) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	remotes := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			remotes <- c.RemoteAddr().String()
			go func() {
				defer c.Close()
				if _, err := c.Write([]byte("hello\n")); err != nil {
					return
				}
				b, err := io.ReadAll(c)
				if err != nil {
					return
				}
				c.Write(reversed(b))
			}()
		}
	}()
	return ln.Addr().String(), remotes
}

func reversed(b []byte) []byte {
	r := make([]byte, len(b))
	for i, c := range b {
		r[len(b)-1-i] = c
	}
	return r
}

// TestDelayProxyForwardsBothWays: the server's first bytes, 1 MiB from the
// client, the client's half close, the server's answer and its close all
// pass intact and in order, and each direction's bytes are counted.
func TestDelayProxyForwardsBothWays(t *testing.T) {
	target, remotes := echoServer(t)
	p, err := newDelayProxy(target, 2*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a failure ends the test
	greeting := make([]byte, 6)
	if _, err := io.ReadFull(c, greeting); err != nil || string(greeting) != "hello\n" {
		t.Fatalf("greeting %q, %v", greeting, err)
	}
	data := make([]byte, 1<<20)
	rand.Read(data)
	go func() {
		c.Write(data)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c) // ends only if the server's close came through
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, reversed(data)) {
		t.Fatalf("the answer came back altered: %d bytes, want %d", len(got), len(data))
	}
	conns := p.Connections()
	if len(conns) != 1 {
		t.Fatalf("%d connections counted, want 1", len(conns))
	}
	if up, down := conns[0].Up.Load(), conns[0].Down.Load(); up != int64(len(data)) || down != int64(6+len(data)) {
		t.Errorf("bytes counted: %d up, %d down; want %d, %d", up, down, len(data), 6+len(data))
	}
	if r := <-remotes; conns[0].Upstream != r || byUpstream(p, r) != conns[0] {
		t.Errorf("connection 1's dial is %s, the server saw %s", conns[0].Upstream, r)
	}
}

// TestDelayProxyCountsConnections: each dial is one connection, numbered
// in order, and known by the address the server sees.
func TestDelayProxyCountsConnections(t *testing.T) {
	target, remotes := echoServer(t)
	p, err := newDelayProxy(target, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	seen := map[string]bool{}
	for i := 1; i <= 3; i++ {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, make([]byte, 6)); err != nil {
			t.Fatal(err)
		}
		c.Close()
		r := <-remotes
		seen[r] = true
		got := byUpstream(p, r)
		if got == nil || got.N != i {
			t.Fatalf("the server's connection %d (%s) is the proxy's %+v", i, r, got)
		}
	}
	if n := len(p.Connections()); n != 3 || len(seen) != 3 {
		t.Errorf("%d connections counted, %d distinct at the server; want 3", n, len(seen))
	}
}

// TestDelayProxyRequests: through the proxy, the request log sees every
// request in order with the method a JSON-RPC POST calls, and kept-alive
// requests share one connection while a new client opens another.
func TestDelayProxyRequests(t *testing.T) {
	l := &reqlog.Log{}
	srv, err := benchagent.NewWith(benchagent.Options{Wrap: l.Wrap})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p, err := newDelayProxy(srv.Addr(), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	// The server still serves each request after the log read its body.
	get := func(c *http.Client, req *http.Request, status int, in string) {
		t.Helper()
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status || !strings.Contains(string(body), in) {
			t.Errorf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, body)
		}
	}
	base := "http://" + p.Addr()
	one := &http.Client{Transport: &http.Transport{}}
	defer one.CloseIdleConnections()
	r1, _ := http.NewRequest("GET", base+"/.well-known/agent-card.json", nil)
	get(one, r1, 200, `"bench agent"`)
	r2, _ := http.NewRequest("POST", base+"/a2a", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`))
	get(one, r2, 200, `"Task not found"`)
	r3, _ := http.NewRequest("GET", base+"/api/chat/sessions/0123456789abcdef0123456789abcdef/turns", nil)
	get(one, r3, 200, `"turns"`)
	two := &http.Client{Transport: &http.Transport{}}
	defer two.CloseIdleConnections()
	r4, _ := http.NewRequest("GET", base+"/api/chat/sessions?limit=1", nil)
	get(two, r4, 404, "")

	recs := l.Since(start)
	want := []struct {
		what string
		conn int
	}{
		{"GET /.well-known/agent-card.json", 1},
		{"POST /a2a GetTask", 1},
		{"GET /api/chat/sessions/{id}/turns", 1},
		{"GET /api/chat/sessions?limit=1", 2},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d requests logged, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		c := byUpstream(p, recs[i].Remote)
		if recs[i].What != w.what || c == nil || c.N != w.conn {
			t.Errorf("request %d: %q on %+v, want %q on connection %d", i+1, recs[i].What, c, w.what, w.conn)
		}
	}
	if n := len(p.Connections()); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestDelayProxyTLS: TLS runs end to end through the proxy, the client
// trusting the test CA's file alone, and the server offers HTTP/2.
func TestDelayProxyTLS(t *testing.T) {
	cfg, caFile, err := testca.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &reqlog.Log{}
	srv, err := benchagent.NewWith(benchagent.Options{TLS: cfg, Wrap: l.Wrap})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p, err := newDelayProxy(srv.Addr(), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pemBytes, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("the CA file holds no certificate")
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	defer c.CloseIdleConnections()
	resp, err := c.Get("https://" + p.Addr() + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"bench agent"`)) {
		t.Fatalf("card: %d %s", resp.StatusCode, body)
	}
	if resp.Proto != "HTTP/2.0" {
		t.Errorf("protocol %s, want HTTP/2.0", resp.Proto)
	}
	if recs := l.Since(time.Time{}); len(recs) != 1 || recs[0].Proto != "HTTP/2.0" {
		t.Errorf("the server logged %+v", recs)
	}
	// A client without the CA is refused, and nothing reaches the server.
	if _, err := http.Get("https://" + p.Addr() + "/.well-known/agent-card.json"); err == nil {
		t.Error("a client without the test CA was served")
	}
	if n := len(l.Since(time.Time{})); n != 1 {
		t.Errorf("%d requests logged after the refused one, want 1", n)
	}
}

// TestDelayProxyClose: close ends the connections still open (their
// client reads the end) and every goroutine of the proxy (close
// returns), and the proxy no longer accepts.
func TestDelayProxyClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held sync.WaitGroup
	held.Add(1)
	serverEnd := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			serverEnd <- err
			return
		}
		defer c.Close()
		held.Done()
		_, err = io.ReadAll(c) // the proxy's close reaches the server too
		serverEnd <- err
	}()
	p, err := newDelayProxy(ln.Addr().String(), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("in flight"))
	held.Wait()
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("close did not return: a connection or a goroutine of the proxy is left")
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadAll(c); err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		t.Errorf("the client read %v after close", err)
	}
	if err := <-serverEnd; err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("the server read %v after close", err)
	}
	if c2, err := net.Dial("tcp", p.Addr()); err == nil {
		c2.Close()
		t.Error("the proxy still accepts after close")
	}
}
