// Package delayproxy is the delay proxy of the round-trip bench: a TCP
// proxy on the loopback that holds every byte RTT/2 in each direction and
// models the TCP handshake (a new connection's first byte leaves the client
// one RTT after it dialled). It forwards bytes, so TLS runs end to end
// between shim and the server behind it; it numbers the connections, and
// knows each by the address its own dial to the server has, which is the
// RemoteAddr the server sees. Standard library only.
//
// A sleep here wakes 0.3–0.5 ms late (the runtime's timers through the
// poller), which would add that to every hop of every round trip: each
// hold sleeps that much less, by an estimate of the lateness learnt from
// the sleeps before (hold), so that a byte leaves at RTT/2 give or take
// the estimate's error, and none is spent spinning on the CPUs shim
// shares. Holds reports how far from RTT/2 the holds were.
//
// Goroutines: one accepting (Start), one per connection dialling the
// server then waiting for its two forwarding (one each way); Close ends
// them all and waits. Two locks, the Proxy's over the connections' list
// and the hold's over its estimate and errors, never held together.
package delayproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

type Proxy struct {
	ln     net.Listener
	target string
	rtt    atomic.Int64 // time.Duration
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  []*Conn
	open   map[*Conn]bool
	closed bool

	// dial dials the server (net.Dial; a test's).
	dial func(network, addr string) (net.Conn, error)

	hold hold
}

// hold sleeps until a byte is due, less the lateness its sleeps showed.
type hold struct {
	mu sync.Mutex
	// late is the estimate of how late a sleep wakes (an average of the
	// last ones, weighted to the newest).
	late time.Duration
	// errs are how far from due the last holds let their bytes go
	// (negative: early), at most maxErrs.
	errs []time.Duration
}

const maxErrs = 1 << 16

// until returns at due, give or take the lateness estimate's error.
func (h *hold) until(due time.Time) {
	h.mu.Lock()
	late := h.late
	h.mu.Unlock()
	wake := due.Add(-late)
	d := time.Until(wake)
	if d <= 0 {
		return
	}
	time.Sleep(d)
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.late += (min(max(now.Sub(wake), 0), 2*time.Millisecond) - h.late) / 8
	if len(h.errs) < maxErrs {
		h.errs = append(h.errs, now.Sub(due))
	}
}

// Holds returns how far from RTT/2 each hold since the last call let its
// bytes go (negative: early), and forgets them.
func (p *Proxy) Holds() []time.Duration {
	p.hold.mu.Lock()
	defer p.hold.mu.Unlock()
	out := p.hold.errs
	p.hold.errs = nil
	return out
}

// Conn is what the proxy knows of one connection.
type Conn struct {
	N        int       // 1, 2, … in the order connected to the server
	Accepted time.Time // when the client dialled
	Upstream string    // the local address of the proxy's dial: the server's RemoteAddr
	// bytes forwarded: client → server, server → client
	Up, Down atomic.Int64
	client   net.Conn
	server   net.Conn
}

// Listen listens without accepting yet (Start), so that what
// it forwards to can learn its address first.
func Listen() (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &Proxy{ln: ln, open: map[*Conn]bool{}, dial: net.Dial}, nil
}

// Start accepts connections and forwards each to target.
func (p *Proxy) Start(target string) {
	p.target = target
	p.wg.Add(1)
	go p.serve()
}

// Addr is where the proxy listens (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetRTT changes the delay of the connections accepted from now on.
func (p *Proxy) SetRTT(d time.Duration) { p.rtt.Store(int64(d)) }

// Connections returns the connections accepted so far, in the order
// their dials to the server ended.
func (p *Proxy) Connections() []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Conn(nil), p.conns...)
}

// Close stops accepting, closes the connections still open and waits for
// every goroutine of the proxy to end.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.open {
		c.client.Close()
		c.server.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// serve accepts: each connection is stamped as it is accepted, and its
// dial to the server made on a goroutine of its own, so that connections
// dialled at once are each stamped when dialled (in a network their
// handshakes run side by side), not after the dials before them.
func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		accepted := time.Now()
		rtt := time.Duration(p.rtt.Load())
		p.wg.Add(1)
		go p.connect(client, accepted, rtt)
	}
}

// connect dials the server for a connection accepted, then forwards.
func (p *Proxy) connect(client net.Conn, accepted time.Time, rtt time.Duration) {
	defer p.wg.Done()
	server, err := p.dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		client.Close()
		server.Close()
		return
	}
	c := &Conn{N: len(p.conns) + 1, Accepted: accepted, Upstream: server.LocalAddr().String(), client: client, server: server}
	p.conns = append(p.conns, c)
	p.open[c] = true
	p.mu.Unlock()
	p.run(c, rtt)
}

// run forwards both ways until both have ended, then closes both sockets.
func (p *Proxy) run(c *Conn, rtt time.Duration) {
	var both sync.WaitGroup
	both.Add(2)
	// The handshake: the client's first byte leaves one RTT after its
	// dial (SYN, SYN-ACK), then takes RTT/2 like every other byte.
	go func() { defer both.Done(); pipe(c.server, c.client, c.Accepted.Add(rtt), rtt/2, &c.Up, &p.hold) }()
	go func() { defer both.Done(); pipe(c.client, c.server, time.Time{}, rtt/2, &c.Down, &p.hold) }()
	both.Wait()
	c.client.Close()
	c.server.Close()
	p.mu.Lock()
	delete(p.open, c)
	p.mu.Unlock()
}

type held struct {
	b  []byte
	at time.Time // when it was read from the sender
}

// pipe copies src to dst, each read delivered at max(its read, notBefore)
// + delay, in order. src's end is passed on as a half close (after the
// bytes before it); an error either side closes both.
func pipe(dst, src net.Conn, notBefore time.Time, delay time.Duration, count *atomic.Int64, hold *hold) {
	q := make(chan held, 4096)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				select {
				case q <- held{buf[:n], time.Now()}:
				case <-stop:
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
		}
	}()
	for h := range q {
		at := h.at
		if at.Before(notBefore) {
			at = notBefore
		}
		if delay > 0 || !notBefore.IsZero() {
			hold.until(at.Add(delay))
		}
		if _, err := dst.Write(h.b); err != nil {
			close(stop)
			src.Close()
			dst.Close()
			for range q {
			}
			return
		}
		count.Add(int64(len(h.b)))
	}
	if readErr != nil {
		dst.Close()
		src.Close()
		return
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
}
