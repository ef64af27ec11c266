// Package reqlog is the request log of the round-trip bench: every request
// the server behind the delay proxy receives, in order, with the
// connection it came on (its RemoteAddr, which the proxy maps to its
// connection number) and, for a JSON-RPC POST, the method it calls.
// Standard library only.
//
// No goroutine of its own (Wrap's handler runs on the server's); one lock,
// the Log's over its records.
package reqlog

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Record is one request the server read.
type Record struct {
	At     time.Time // when the server read the request's head
	Remote string    // the server's RemoteAddr: the proxy's dial
	What   string    // "GET /path?query" or "POST /a2a Method"
	Proto  string    // "HTTP/1.1", "HTTP/2.0"
}

// Log is the requests read so far; its zero value is empty and ready.
type Log struct {
	mu   sync.Mutex
	recs []Record
}

// Wrap records each request before h serves it.
func (l *Log) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		what := r.Method + " " + shortPath(r.URL.Path)
		if r.URL.RawQuery != "" {
			what += "?" + r.URL.RawQuery
		}
		if r.Header.Get("If-None-Match") != "" {
			what += " (If-None-Match)" // a remembered card asked again
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err == nil {
				var m struct {
					Method string `json:"method"`
				}
				if json.Unmarshal(body, &m) == nil && m.Method != "" {
					what += " " + m.Method
				}
				r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
			}
		}
		l.mu.Lock()
		l.recs = append(l.recs, Record{At: at, Remote: r.RemoteAddr, What: what, Proto: r.Proto})
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// Since returns the requests read at or after t, in order.
func (l *Log) Since(t time.Time) []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Record
	for _, r := range l.recs {
		if !r.At.Before(t) {
			out = append(out, r)
		}
	}
	return out
}

// shortPath writes a path's long segments (ids) as {id}.
func shortPath(p string) string {
	seg := strings.Split(p, "/")
	for i, s := range seg {
		if len(s) > 24 && !strings.Contains(s, ".") {
			seg[i] = "{id}"
		}
	}
	return strings.Join(seg, "/")
}
