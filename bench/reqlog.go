package main

// The request log of the round-trip bench: every request the server
// behind the delay proxy receives, in order, with the connection it came
// on (its RemoteAddr, which the proxy maps to its connection number) and,
// for a JSON-RPC POST, the method it calls.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

type reqRecord struct {
	at     time.Time // when the server read the request's head
	remote string    // the server's RemoteAddr: the proxy's dial
	what   string    // "GET /path?query" or "POST /a2a Method"
	proto  string    // "HTTP/1.1", "HTTP/2.0"
}

type reqLog struct {
	mu   sync.Mutex
	recs []reqRecord
}

// wrap records each request before h serves it.
func (l *reqLog) wrap(h http.Handler) http.Handler {
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
		l.recs = append(l.recs, reqRecord{at: at, remote: r.RemoteAddr, what: what, proto: r.Proto})
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// since returns the requests read at or after t, in order.
func (l *reqLog) since(t time.Time) []reqRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []reqRecord
	for _, r := range l.recs {
		if !r.at.Before(t) {
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
