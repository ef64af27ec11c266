package benchagent

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

// Spec is what one SendStreamingMessage streams. The prompt carries
// it as "bench:" followed by a URL query (n=…&size=…&pace=…&replace=1).
type Spec struct {
	N       int     // appended text chunks
	Size    int     // bytes of text per chunk; 0: a short numbered chunk
	Pace    float64 // chunks per second; 0: as fast as the socket takes them
	Replace bool    // end with one full replace of the whole text
	Stamp   bool    // each chunk's text starts with [t=<wall clock, ns>]
	Flush   bool    // flush every frame (always when paced)
	Gate    bool    // after the first chunk, wait for Open (at most 10 s)
}

// Prompt is the prompt's text that asks for s.
func (s Spec) Prompt() string {
	v := url.Values{}
	v.Set("n", strconv.Itoa(s.N))
	v.Set("size", strconv.Itoa(s.Size))
	v.Set("pace", strconv.FormatFloat(s.Pace, 'f', -1, 64))
	if s.Replace {
		v.Set("replace", "1")
	}
	if s.Stamp {
		v.Set("stamp", "1")
	}
	if s.Flush {
		v.Set("flush", "1")
	}
	if s.Gate {
		v.Set("gate", "1")
	}
	return "bench:" + v.Encode()
}

// ParseSpec reads the Spec a prompt's text asks for ("bench:" and a URL
// query, anywhere in it); false if it asks for none.
func ParseSpec(text string) (Spec, bool) {
	i := strings.Index(text, "bench:")
	if i < 0 {
		return Spec{}, false
	}
	q := strings.Fields(text[i+len("bench:"):])
	if len(q) == 0 {
		return Spec{}, false
	}
	v, err := url.ParseQuery(q[0])
	if err != nil {
		return Spec{}, false
	}
	var s Spec
	s.N, _ = strconv.Atoi(v.Get("n"))
	s.Size, _ = strconv.Atoi(v.Get("size"))
	s.Pace, _ = strconv.ParseFloat(v.Get("pace"), 64)
	s.Replace = v.Get("replace") == "1"
	s.Stamp = v.Get("stamp") == "1"
	s.Flush = v.Get("flush") == "1" || s.Pace > 0
	s.Gate = v.Get("gate") == "1"
	return s, true
}

// Server is the bench's agent.
type Server struct {
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
	// gate holds a gated stream after its first chunk (Open).
	gate chan struct{}
}

// Open lets a gated stream go on.
func (s *Server) Open() {
	select {
	case s.gate <- struct{}{}:
	default:
	}
}

// New starts the agent on a loopback port, plain HTTP.
func New() (*Server, error) { return NewWith(Options{}) }

// Options are the round-trip bench's changes to the agent: the URL its
// card names (a delay proxy's, in front of it), TLS, and a handler around
// its routes (the request log).
type Options struct {
	Base string
	TLS  *tls.Config
	Wrap func(http.Handler) http.Handler
}

// NewWith starts the agent on a loopback port with o.
func NewWith(o Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, base: o.Base, gate: make(chan struct{}, 1)}
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
	if o.Wrap != nil {
		h = o.Wrap(mux)
	}
	s.srv = &http.Server{Handler: h, TLSConfig: o.TLS}
	if o.TLS != nil {
		// ServeTLS offers HTTP/2 as well, as an A2A server behind TLS does.
		go s.srv.ServeTLS(ln, "", "")
	} else {
		go s.srv.Serve(ln)
	}
	return s, nil
}

// Close stops the agent: its listener and every connection.
func (s *Server) Close() { s.srv.Close() }

// Base is the URL the agent's card names (without /a2a).
func (s *Server) Base() string { return s.base }

// Addr is the address the agent listens on (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// OperatorGets counts the operator API requests answered 404 so far (the
// busy check among them).
func (s *Server) OperatorGets() int64 { return s.operatorGets.Load() }

// card serves the agent card with an ETag, answering 304 to a request
// that names it (net/http's ServeContent), as a server behind a cache or
// a CDN does: a relaunch asks for the card again with it (SPEC §19).
func (s *Server) card(w http.ResponseWriter, r *http.Request) {
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

func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
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
		spec, ok := ParseSpec(text)
		if !ok {
			spec = Spec{N: 3}
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
func (s *Server) stream(w http.ResponseWriter, id, ctxID string, spec Spec) {
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
	block := jsonText(chunkBlock(spec.Size))
	var num []byte
	start := time.Now()
	interval := time.Duration(0)
	if spec.Pace > 0 {
		interval = time.Duration(float64(time.Second) / spec.Pace)
	}
	for i := 0; i < spec.N; i++ {
		if interval > 0 {
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
		}
		bw.Write(pre)
		if spec.Stamp {
			num = append(num[:0], "[t="...)
			num = strconv.AppendInt(num, time.Now().UnixNano(), 10)
			num = append(num, "] "...)
			bw.Write(num)
		}
		if spec.Size > 0 {
			bw.Write(block)
		} else {
			num = append(num[:0], "chunk "...)
			num = strconv.AppendInt(num, int64(i), 10)
			num = append(num, ' ')
			bw.Write(num)
		}
		bw.Write(post)
		if spec.Flush || (spec.Gate && i == 0) {
			if bw.Flush() != nil {
				return
			}
			fl.Flush()
		}
		if spec.Gate && i == 0 {
			select {
			case <-s.gate:
			case <-time.After(10 * time.Second):
			}
		}
	}
	if spec.Replace {
		// One frame carrying the whole text again: a full replace, written
		// block by block so the server never holds it.
		bw.WriteString(head + `{"artifactUpdate":{"taskId":"` + taskID + `","contextId":"` + ctxID +
			`","artifact":{"artifactId":"answer","parts":[{"text":"`)
		for i := 0; i < spec.N; i++ {
			if spec.Size > 0 {
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

// SetTurns prepares the thread of n turns /turns serves; honourLimit: it
// honours ?limit= (the newest limit turns), else it serves every turn.
func (s *Server) SetTurns(n int, honourLimit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turnCount != n || s.turnsAll == nil {
		s.turnsAll = turnsbody.Body(0, n)
		s.turnCount = n
	}
	s.honour = honourLimit
}

// TurnsSize is the size in bytes of the whole thread /turns serves.
func (s *Server) TurnsSize() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turnsAll)
}

func (s *Server) turns(w http.ResponseWriter, r *http.Request) {
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
