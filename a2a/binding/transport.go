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
	d := &Dialer{dial: t.DialContext, proxy: t.Proxy, spares: map[string][]*spare{}}
	t.DialContext = d.DialContext
	return t, d
}

// Dialer opens the transport's connections, taking one opened ahead for
// the same address first.
type Dialer struct {
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	proxy func(*http.Request) (*url.URL, error)

	mu     sync.Mutex
	spares map[string][]*spare
	// opened lists the origins Preconnect opened connections to (once
	// each).
	opened map[string]bool
}

// spare is one connection opened ahead: conn or err once ready is closed.
type spare struct {
	ready chan struct{}
	conn  net.Conn
	err   error
}

// DialContext is the transport's dial: a connection opened ahead to addr
// when one is left (waiting for its handshake if it is still under way),
// else a new one.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if s := d.take(network + " " + addr); s != nil {
		select {
		case <-s.ready:
			if s.err == nil {
				return s.conn, nil
			}
		case <-ctx.Done():
			go s.discard()
			return nil, ctx.Err()
		}
	}
	return d.dial(ctx, network, addr)
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
		d.opened = map[string]bool{}
	}
	d.opened[origin] = true
	for range n {
		s := &spare{ready: make(chan struct{})}
		d.spares[key] = append(d.spares[key], s)
		go d.open(key, addr, s)
	}
	d.mu.Unlock()
}

// open dials spare s; it is closed if no request took it within spareLife.
func (d *Dialer) open(key, addr string, s *spare) {
	ctx, cancel := context.WithTimeout(context.Background(), spareDial)
	s.conn, s.err = d.dial(ctx, "tcp", addr)
	cancel()
	close(s.ready)
	time.AfterFunc(spareLife, func() {
		if d.remove(key, s) {
			s.discard()
		}
	})
}

// take removes and returns the oldest spare of key, nil when none is left.
func (d *Dialer) take(key string) *spare {
	d.mu.Lock()
	defer d.mu.Unlock()
	list := d.spares[key]
	if len(list) == 0 {
		return nil
	}
	s := list[0]
	d.spares[key] = list[1:]
	return s
}

// remove removes s from key's spares; false when a request took it.
func (d *Dialer) remove(key string, s *spare) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, x := range d.spares[key] {
		if x == s {
			d.spares[key] = append(d.spares[key][:i:i], d.spares[key][i+1:]...)
			return true
		}
	}
	return false
}

// discard closes the spare's connection once it is open.
func (s *spare) discard() {
	<-s.ready
	if s.conn != nil {
		s.conn.Close()
	}
}
