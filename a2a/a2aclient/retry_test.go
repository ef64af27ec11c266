package a2aclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
)

// refusedAddr returns a loopback address nothing listens on.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// dialCounter is a transport that counts its dials.
func dialCounter(n *atomic.Int32) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		n.Add(1)
		return d.DialContext(ctx, network, addr)
	}}
}

func TestUnaryConnectionRefused(t *testing.T) {
	addr := refusedAddr(t)
	var dials atomic.Int32
	c := newClient(t, Config{Endpoint: "http://" + addr + "/a2a", Token: "sekret", Transport: dialCounter(&dials)})
	start := time.Now()
	_, err := c.GetTask(ctxT(t), "t1", 0)
	var ue *a2a.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("want *UnreachableError, got %T %v", err, err)
	}
	if n := dials.Load(); n != 3 {
		t.Errorf("%d connection attempts, want 3", n)
	}
	if ue.Attempts != 3 || !strings.Contains(ue.URL, addr) {
		t.Errorf("error: %+v", ue)
	}
	if strings.Contains(err.Error(), "sekret") {
		t.Errorf("the error names the token: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	// The same for the card.
	dials.Store(0)
	c = newClient(t, Config{URL: "http://" + addr, Transport: dialCounter(&dials)})
	if _, err := c.Discover(ctxT(t)); !errors.As(err, &ue) || dials.Load() != 3 {
		t.Errorf("card: %v after %d dials", err, dials.Load())
	}
}

// statusServer answers every request with status, content type and body,
// and counts them.
func statusServer(t *testing.T, hits *atomic.Int32, status int, ctype, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing: send none
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const htmlBadGateway = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.25.3</center></body></html>`

func TestUnaryStatusHandling(t *testing.T) {
	rpcErr := `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
		hits   int32
		check  func(t *testing.T, err error)
	}{
		{"502 retried", 502, "text/plain", "bad gateway", 3, wantHTTP(502, false)},
		{"503 retried", 503, "text/plain", "unavailable", 3, wantHTTP(503, false)},
		{"504 retried", 504, "text/plain", "timeout", 3, wantHTTP(504, false)},
		{"HTML 502 from a proxy", 502, "text/html", htmlBadGateway, 3, func(t *testing.T, err error) {
			wantHTTP(502, true)(t, err)
			var he *a2a.HTTPError
			errors.As(err, &he)
			msg := err.Error()
			if !strings.Contains(msg, "HTML") || !strings.Contains(msg, "502 Bad Gateway") {
				t.Errorf("message does not say HTML page / title: %q", msg)
			}
			if strings.Contains(msg, "invalid character") || strings.Contains(msg, "undecodable") {
				t.Errorf("reported as a JSON parse error: %q", msg)
			}
		}},
		{"HTML without content type", 502, "", htmlBadGateway, 3, wantHTTP(502, true)},
		{"HTML labelled text/plain", 502, "text/plain", "<html><body>Bad gateway</body></html>", 3, wantHTTP(502, true)},
		{"500 with JSON-RPC error not retried", 500, "application/json", rpcErr, 1, func(t *testing.T, err error) {
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) || rpc.Code != a2a.CodeTaskNotFound || rpc.Message != "task not found" {
				t.Errorf("want *RPCError -32001, got %T %v", err, err)
			}
		}},
		{"200 with JSON-RPC error", 200, "application/json", rpcErr, 1, func(t *testing.T, err error) {
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) || rpc.Code != a2a.CodeTaskNotFound {
				t.Errorf("want *RPCError, got %T %v", err, err)
			}
		}},
		{"500 with a plain body", 500, "text/plain", "internal oops", 1, func(t *testing.T, err error) {
			wantHTTP(500, false)(t, err)
			if !strings.Contains(err.Error(), "internal oops") {
				t.Errorf("the body is not in the message: %v", err)
			}
		}},
		{"500 with non-JSON-RPC JSON", 500, "application/json", `{"detail":"boom"}`, 1, wantHTTP(500, false)},
		{"401", 401, "application/json", `{"error":"unauthorized"}`, 1, wantUnauthorized},
		{"403", 403, "text/plain", "forbidden", 1, wantUnauthorized},
		{"401 even with a JSON-RPC body", 401, "application/json", rpcErr, 1, wantUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := statusServer(t, &hits, tt.status, tt.ctype, tt.body)
			c := newClient(t, Config{Endpoint: srv.URL + "/a2a", Token: "sekret"})
			_, err := c.GetTask(ctxT(t), "t1", 0)
			if err == nil {
				t.Fatal("no error")
			}
			tt.check(t, err)
			if n := hits.Load(); n != tt.hits {
				t.Errorf("server hit %d times, want %d", n, tt.hits)
			}
		})
	}
}

func wantHTTP(status int, html bool) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var he *a2a.HTTPError
		if !errors.As(err, &he) {
			t.Fatalf("want *HTTPError, got %T %v", err, err)
		}
		if he.StatusCode != status || he.HTML != html {
			t.Errorf("got status %d HTML %v, want %d %v", he.StatusCode, he.HTML, status, html)
		}
		if a2a.IsUnauthorized(err) {
			t.Errorf("%d reported as unauthorized", status)
		}
	}
}

func wantUnauthorized(t *testing.T, err error) {
	t.Helper()
	if !a2a.IsUnauthorized(err) {
		t.Errorf("want unauthorized, got %T %v", err, err)
	}
	// What was got, and no advice: the caller knows where the token came
	// from (`shim login` cannot override --token).
	if msg := err.Error(); !strings.Contains(msg, "refused") || !strings.Contains(msg, "answered HTTP 40") || strings.Contains(msg, "shim login") {
		t.Errorf("message: %v", err)
	}
}

func TestCardUnauthorized(t *testing.T) {
	var hits atomic.Int32
	srv := statusServer(t, &hits, 401, "text/plain", "no")
	c := newClient(t, Config{URL: srv.URL, Token: "bad"})
	if _, err := c.Discover(ctxT(t)); !a2a.IsUnauthorized(err) {
		t.Errorf("want unauthorized, got %v", err)
	}
	if err := c.Probe(ctxT(t)); !a2a.IsUnauthorized(err) {
		t.Errorf("Probe: want unauthorized, got %v", err)
	}
}

// TestUnaryRetryRecovers: two 503s then an answer.
func TestUnaryRetryRecovers(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(taskResult))
	}))
	defer srv.Close()
	c := newClient(t, Config{Endpoint: srv.URL + "/a2a"})
	task, err := c.GetTask(ctxT(t), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if task.ID != "t1" || task.Status.State != a2a.StateCompleted || hits.Load() != 3 {
		t.Errorf("task %+v after %d hits", task, hits.Load())
	}
}

// TestRetryAfterBounded: a 503's Retry-After does not stretch the backoff
// beyond its maximum.
func TestRetryAfterBounded(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(taskResult))
	}))
	defer srv.Close()
	c := newClient(t, Config{Endpoint: srv.URL + "/a2a"})
	err := within(t, 10*time.Second, "GetTask after Retry-After: 3600", func() error {
		_, err := c.GetTask(ctxT(t), "t1", 0)
		return err
	})
	if err != nil || hits.Load() != 2 {
		t.Errorf("%v after %d hits", err, hits.Load())
	}
}

// TestUnaryContextCancel: a cancelled context stops the retries and is
// reported as such.
func TestUnaryContextCancel(t *testing.T) {
	var hits atomic.Int32
	srv := statusServer(t, &hits, 503, "text/plain", "busy")
	c := newClient(t, Config{Endpoint: srv.URL + "/a2a", retryWait: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for hits.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	err := within(t, 10*time.Second, "GetTask", func() error { _, err := c.GetTask(ctx, "t1", 0); return err })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
}
