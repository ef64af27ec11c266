package delayproxy

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestDialsSideBySide: a connection's dial to the server does not hold up
// the next connection accepted (dialled at once, each is stamped when
// dialled, as side-by-side handshakes run in a network): with the first
// connection's dial hung, the second one forwards.
func TestDialsSideBySide(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	p, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	hung, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	p.dial = func(network, addr string) (net.Conn, error) {
		if calls.Add(1) == 1 { // the first connection's dial hangs
			close(hung)
			<-release
		}
		return net.Dial(network, addr)
	}
	p.Start(ln.Addr().String())
	defer p.Close()
	defer close(release)
	first, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	<-hung
	second, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := second.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	second.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(second, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("the second connection, with the first's dial hung: %q, %v", buf, err)
	}
}
