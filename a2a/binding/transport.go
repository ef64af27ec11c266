package binding

// The transport of an agent's requests (SPEC §19): one kept-alive
// connection per origin where the server allows it (HTTP/2 over TLS when
// offered), and over HTTP/1.1, which carries one request at a time, room
// in the pool for the requests sent at once and connections opened ahead
// of them (Preconnect), so that none costs a handshake of its own and
// none is opened again after.

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/hashicorp/go-cleanhttp"
)

const (
	// idlePerHost is the connections kept idle per origin: above the
	// requests session/new sends at once, so every one is reused after.
	idlePerHost = 16
	// spareLife is how long a connection opened ahead waits for a
	// request; then it is closed.
	spareLife = 10 * time.Second
	// spareDial bounds the opening of one connection ahead.
	spareDial = 30 * time.Second
)

// NewTransport returns the transport of an agent's requests: pooled,
// HTTP/2 when the server offers it over TLS (ForceAttemptHTTP2: a TLS
// configuration set later keeps it), idlePerHost idle connections kept
// per origin, and a Dialer that can open connections ahead (Preconnect;
// give it to Options.Dialer).
func NewTransport() (*http.Transport, *Dialer) {
	t := cleanhttp.DefaultPooledTransport()
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConnsPerHost = idlePerHost
	t.MaxIdleConns = max(t.MaxIdleConns, idlePerHost)
	d := &Dialer{dial: t.DialContext, proxy: t.Proxy}
	t.DialContext = d.DialContext
	return t, d
}

// Dialer opens the transport's connections, taking one opened ahead for
// the same address first: the first whose handshake ends, so that a
// request never waits for one still under way while another is open.
type Dialer struct {
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	proxy func(*http.Request) (*url.URL, error)

	mu sync.Mutex
	// spares are the connections opened ahead and not taken, per
	// "network addr": under way, or open.
	spares map[string][]*spare
	// waiting counts the requests of each key waiting for a spare's
	// handshake: a request beyond the spares under way dials at once.
	waiting map[string]int
	// ended is closed, then replaced, whenever a spare's handshake ends.
	ended chan struct{}
	// opened lists the origins Preconnect opened connections to (once
	// each).
	opened map[string]bool
}

// spare is one connection opened ahead: conn once open is set (under the
// Dialer's mu).
type spare struct {
	open bool
	conn net.Conn
}

// DialContext is the transport's dial: a connection opened ahead to addr
// when one is open; else, while more are under way than requests wait for
// them, the first to open; else a new one.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	key := network + " " + addr
	d.mu.Lock()
	for {
		s, underWay := d.takeLocked(key)
		if s != nil {
			d.mu.Unlock()
			return s.conn, nil
		}
		if underWay <= d.waiting[key] {
			break
		}
		ended := d.endedLocked()
		if d.waiting == nil {
			d.waiting = map[string]int{}
		}
		d.waiting[key]++
		d.mu.Unlock()
		select {
		case <-ended:
		case <-ctx.Done():
		}
		d.mu.Lock()
		d.waiting[key]--
		if ctx.Err() != nil {
			d.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	d.mu.Unlock()
	return d.dial(ctx, network, addr)
}

// takeLocked removes and returns the oldest open spare of key, else nil
// and how many are under way.
func (d *Dialer) takeLocked(key string) (*spare, int) {
	list := d.spares[key]
	for i, s := range list {
		if s.open {
			d.spares[key] = append(list[:i:i], list[i+1:]...)
			return s, 0
		}
	}
	return nil, len(list)
}

// endedLocked is the channel closed when the next spare's handshake ends.
func (d *Dialer) endedLocked() chan struct{} {
	if d.ended == nil {
		d.ended = make(chan struct{})
	}
	return d.ended
}

// Preconnect opens n connections to origin (scheme://host[:port]) ahead
// of the requests that will take them, once per origin: over plain HTTP
// only (over TLS, HTTP/2 carries requests sent at once on one connection),
// and not through a proxy. A connection no request took within spareLife
// is closed.
func (d *Dialer) Preconnect(origin string, n int) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Host == "" || n <= 0 {
		return
	}
	if d.proxy != nil {
		if p, err := d.proxy(&http.Request{URL: u}); err != nil || p != nil {
			return
		}
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	key := "tcp " + addr
	d.mu.Lock()
	if d.opened[origin] {
		d.mu.Unlock()
		return
	}
	if d.opened == nil {
		d.opened, d.spares = map[string]bool{}, map[string][]*spare{}
	}
	d.opened[origin] = true
	for range n {
		s := &spare{}
		d.spares[key] = append(d.spares[key], s)
		go d.open(key, addr, s)
	}
	d.mu.Unlock()
}

// open dials spare s and tells the requests waiting; a spare that failed
// is dropped (they dial), one no request took within spareLife is closed.
func (d *Dialer) open(key, addr string, s *spare) {
	ctx, cancel := context.WithTimeout(context.Background(), spareDial)
	conn, err := d.dial(ctx, "tcp", addr)
	cancel()
	d.mu.Lock()
	if err != nil {
		d.removeLocked(key, s)
	} else {
		s.open, s.conn = true, conn
	}
	if d.ended != nil {
		close(d.ended)
		d.ended = nil
	}
	d.mu.Unlock()
	if err != nil {
		return
	}
	time.AfterFunc(spareLife, func() {
		d.mu.Lock()
		left := d.removeLocked(key, s)
		d.mu.Unlock()
		if left {
			conn.Close()
		}
	})
}

// removeLocked removes s from key's spares; false when a request took it.
func (d *Dialer) removeLocked(key string, s *spare) bool {
	for i, x := range d.spares[key] {
		if x == s {
			d.spares[key] = append(d.spares[key][:i:i], d.spares[key][i+1:]...)
			return true
		}
	}
	return false
}
