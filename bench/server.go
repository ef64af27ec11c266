package main

// The local A2A server the bench drives shim against: an A2A 1.0 card, a
// JSON-RPC endpoint whose SendStreamingMessage streams what the prompt's
// text asks for (so concurrent sessions can stream at once), and the one
// operator route replay reads (/api/chat/sessions/{id}/turns). Every other
// operator route answers 404, which shim reads as "absent".

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shimdev/shim/internal/turnsbody"
)

// streamSpec is what one SendStreamingMessage streams. The prompt carries
// it as "bench:" followed by a URL query (n=…&size=…&pace=…&replace=1).
type streamSpec struct {
	n       int     // appended text chunks
	size    int     // bytes of text per chunk; 0: a short numbered chunk
	pace    float64 // chunks per second; 0: as fast as the socket takes them
	replace bool    // end with one full replace of the whole text
	stamp   bool    // each chunk's text starts with [t=<wall clock, ns>]
	flush   bool    // flush every frame (always when paced)
	gate    bool    // after the first chunk, wait for open() (at most 10 s)
}

func (s streamSpec) prompt() string {
	v := url.Values{}
	v.Set("n", strconv.Itoa(s.n))
	v.Set("size", strconv.Itoa(s.size))
	v.Set("pace", strconv.FormatFloat(s.pace, 'f', -1, 64))
	if s.replace {
		v.Set("replace", "1")
	}
	if s.stamp {
		v.Set("stamp", "1")
	}
	if s.flush {
		v.Set("flush", "1")
	}
	if s.gate {
		v.Set("gate", "1")
	}
	return "bench:" + v.Encode()
}

func parseSpec(text string) (streamSpec, bool) {
	i := strings.Index(text, "bench:")
	if i < 0 {
		return streamSpec{}, false
	}
	q := strings.Fields(text[i+len("bench:"):])
	if len(q) == 0 {
		return streamSpec{}, false
	}
	v, err := url.ParseQuery(q[0])
	if err != nil {
		return streamSpec{}, false
	}
	var s streamSpec
	s.n, _ = strconv.Atoi(v.Get("n"))
	s.size, _ = strconv.Atoi(v.Get("size"))
	s.pace, _ = strconv.ParseFloat(v.Get("pace"), 64)
	s.replace = v.Get("replace") == "1"
	s.stamp = v.Get("stamp") == "1"
	s.flush = v.Get("flush") == "1" || s.pace > 0
	s.gate = v.Get("gate") == "1"
	return s, true
}

// a2aServer is the bench's agent.
type a2aServer struct {
	ln   net.Listener
	srv  *http.Server
	base string

	// The thread /turns serves (any session id): every turn, and whether
	// ?limit= is honoured (the newest limit turns, as protoAgent does) or
	// ignored (every turn, the worst case).
	mu        sync.Mutex
	turnsAll  []byte
	turnCount int
	honour    bool

	// operatorGets counts the operator API requests answered 404 (the
	// busy check among them).
	operatorGets atomic.Int64
	// gate holds a gated stream after its first chunk (open).
	gate chan struct{}
}

// open lets a gated stream go on.
func (s *a2aServer) open() {
	select {
	case s.gate <- struct{}{}:
	default:
	}
}

func newA2AServer() (*a2aServer, error) { return newA2AServerWith(serverOpts{}) }

// serverOpts are the round-trip bench's changes to the server: the URL its
// card names (a delay proxy's, in front of it), TLS, and a handler around
// its routes (the request log).
type serverOpts struct {
	base string
	tls  *tls.Config
	wrap func(http.Handler) http.Handler
}

func newA2AServerWith(o serverOpts) (*a2aServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &a2aServer{ln: ln, base: o.base, gate: make(chan struct{}, 1)}
	if s.base == "" {
		s.base = "http://" + ln.Addr().String()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", s.card)
	mux.HandleFunc("POST /a2a", s.rpc)
	mux.HandleFunc("GET /api/chat/sessions/{id}/turns", s.turns)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			s.operatorGets.Add(1)
		}
		http.NotFound(w, r)
	})
	var h http.Handler = mux
	if o.wrap != nil {
		h = o.wrap(mux)
	}
	s.srv = &http.Server{Handler: h, TLSConfig: o.tls}
	if o.tls != nil {
		// ServeTLS offers HTTP/2 as well, as an A2A server behind TLS does.
		go s.srv.ServeTLS(ln, "", "")
	} else {
		go s.srv.Serve(ln)
	}
	return s, nil
}

func (s *a2aServer) close() { s.srv.Close() }

// card serves the agent card with an ETag, answering 304 to a request
// that names it (net/http's ServeContent), as a server behind a cache or
// a CDN does: a relaunch asks for the card again with it (SPEC §19).
func (s *a2aServer) card(w http.ResponseWriter, r *http.Request) {
	body, _ := json.Marshal(map[string]any{
		"name": "bench agent", "description": "shim's bench server", "version": "1.0.0",
		"capabilities": map[string]any{"streaming": true},
		"supportedInterfaces": []map[string]any{{
			"url": s.base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0",
		}},
		"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
		"skills": []any{},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sha256.Sum256(body)))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

type rpcReq struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Message struct {
			ContextID string `json:"contextId"`
			Parts     []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"params"`
}

func (s *a2aServer) rpc(w http.ResponseWriter, r *http.Request) {
	var req rpcReq
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	id := string(req.ID)
	if id == "" {
		id = "null"
	}
	w.Header().Set("Content-Type", "application/json")
	switch req.Method {
	case "SendStreamingMessage":
		var text string
		for _, p := range req.Params.Message.Parts {
			text += p.Text
		}
		spec, ok := parseSpec(text)
		if !ok {
			spec = streamSpec{n: 3}
		}
		s.stream(w, id, req.Params.Message.ContextID, spec)
	case "CancelTask":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"x","contextId":"x","status":{"state":"TASK_STATE_CANCELED"}}}`, id)
	default: // GetTask (shim's credential probe) and anything else: no such task.
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Task not found"}}`, id)
	}
}

// chunkBlock is the text of a sized chunk: printable, with one newline.
func chunkBlock(size int) []byte {
	const alphabet = "the quick brown fox jumps over the lazy dog 0123456789 "
	b := make([]byte, size)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	if size > 0 {
		b[size-1] = '\n'
	}
	return b
}

// jsonText escapes s for a JSON string (without the quotes).
func jsonText(s []byte) []byte {
	q, _ := json.Marshal(string(s))
	return q[1 : len(q)-1]
}

// stream writes one task's frames as SSE. With flush (and always when
// paced) each frame is flushed as it is written, as A2A servers do;
// without, frames go through a 64 KiB buffer flushed when full, so the
// server is never the bottleneck.
func (s *a2aServer) stream(w http.ResponseWriter, id, ctxID string, spec streamSpec) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	bw := bufio.NewWriterSize(w, 64<<10)
	taskID := "task-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	head := `data: {"jsonrpc":"2.0","id":` + id + `,"result":`
	frame := func(body string) {
		bw.WriteString(head)
		bw.WriteString(body)
		bw.WriteString("}\n\n")
	}
	frame(`{"task":{"id":"` + taskID + `","contextId":"` + ctxID + `","status":{"state":"TASK_STATE_WORKING"}}}`)
	bw.Flush()
	fl.Flush()

	pre := []byte(head + `{"artifactUpdate":{"taskId":"` + taskID + `","contextId":"` + ctxID +
		`","artifact":{"artifactId":"answer","parts":[{"text":"`)
	post := []byte(`"}]},"append":true}}}` + "\n\n")
	block := jsonText(chunkBlock(spec.size))
	var num []byte
	start := time.Now()
	interval := time.Duration(0)
	if spec.pace > 0 {
		interval = time.Duration(float64(time.Second) / spec.pace)
	}
	for i := 0; i < spec.n; i++ {
		if interval > 0 {
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
		}
		bw.Write(pre)
		if spec.stamp {
			num = append(num[:0], "[t="...)
			num = strconv.AppendInt(num, int64(now()), 10)
			num = append(num, "] "...)
			bw.Write(num)
		}
		if spec.size > 0 {
			bw.Write(block)
		} else {
			num = append(num[:0], "chunk "...)
			num = strconv.AppendInt(num, int64(i), 10)
			num = append(num, ' ')
			bw.Write(num)
		}
		bw.Write(post)
		if spec.flush || (spec.gate && i == 0) {
			if bw.Flush() != nil {
				return
			}
			fl.Flush()
		}
		if spec.gate && i == 0 {
			select {
			case <-s.gate:
			case <-time.After(10 * time.Second):
			}
		}
	}
	if spec.replace {
		// One frame carrying the whole text again: a full replace, written
		// block by block so the server never holds it.
		bw.WriteString(head + `{"artifactUpdate":{"taskId":"` + taskID + `","contextId":"` + ctxID +
			`","artifact":{"artifactId":"answer","parts":[{"text":"`)
		for i := 0; i < spec.n; i++ {
			if spec.size > 0 {
				bw.Write(block)
			} else {
				num = append(num[:0], "chunk "...)
				num = strconv.AppendInt(num, int64(i), 10)
				num = append(num, ' ')
				bw.Write(num)
			}
		}
		bw.WriteString(`"}]},"lastChunk":true}}}` + "\n\n")
	}
	frame(`{"statusUpdate":{"taskId":"` + taskID + `","contextId":"` + ctxID + `","status":{"state":"TASK_STATE_COMPLETED"},"final":true}}`)
	bw.Flush()
	fl.Flush()
}

// setTurns prepares the thread of n turns /turns serves.
func (s *a2aServer) setTurns(n int, honourLimit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turnCount != n || s.turnsAll == nil {
		s.turnsAll = turnsbody.Body(0, n)
		s.turnCount = n
	}
	s.honour = honourLimit
}

func (s *a2aServer) turns(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	all, honour, n := s.turnsAll, s.honour, s.turnCount
	s.mu.Unlock()
	if all == nil {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"turns":[],"reason":"no such session"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if honour {
		if limit, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && limit > 0 && limit < n {
			w.Write(turnsbody.Body(n-limit, n))
			return
		}
	}
	w.Write(all)
}
