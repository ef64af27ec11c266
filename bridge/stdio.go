package bridge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
)

// stdioStream is the ACP transport: one JSON value per line on each side.
//
// It implements jsonrpc2.ObjectStream. jsonrpc2.Conn closes the connection
// on the first ReadObject error, so a line that is not a JSON-RPC message
// is answered here (-32700 or -32600) and reading goes on; only the end of
// the input is returned as an error.
//
// Output is one writer: every message, a jsonrpc2 response or one of
// shim's notifications, is appended whole to one queue in the order the
// calls happen, and a goroutine writes whatever has queued with one write.
// A caller blocks while the queue holds outMax bytes, so an editor that
// reads slowly slows the turns down instead of growing memory.
//
// Text chunks of one artifact merge while they wait: when the last message
// still queued (not yet taken by the writer) is a chunk of the same
// session and artifact, a new chunk's text is appended to it, up to
// mergeMax bytes of text. Nothing waits for a merge: the writer takes
// whatever has queued the moment it is free, so a lone chunk goes out at
// once, and chunks merge only while the editor (or the writer) is behind.
type stdioStream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger

	// parked holds the params of the big request just read (see accept).
	parked    json.RawMessage
	nonceOnce sync.Once
	nonce     []byte

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []byte
	spare   []byte
	writing bool
	closed  bool
	err     error
	done    chan struct{}
	// tail is the last queued message when it is a text chunk that can
	// take more text.
	tail mergeTail
}

// mergeTail locates the text chunk at the end of the queue.
type mergeTail struct {
	ok       bool
	session  string
	artifact string
	end      int // offset of the chunk's closing `"}}}}` in the queue
	n        int // bytes of text in the chunk
}

// outMax bounds the bytes waiting for the editor.
const outMax = 256 << 10

// mergeMax caps the text of one merged chunk update (64 KiB): merging
// never makes a line longer than its longest chunk or this.
const mergeMax = 64 << 10

func newStdioStream(in io.Reader, out io.Writer, c io.Closer, log *slog.Logger) *stdioStream {
	s := &stdioStream{in: bufio.NewReaderSize(in, 64<<10), out: out, c: c, log: log, done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go s.writeLoop()
	return s
}

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeAuthRequired   = -32000
	codeNotFound       = -32002
)

// lineMax bounds one stdin line (SPEC §13). Tests lower it.
var lineMax = 64 << 20

// ReadObject reads the next valid JSON-RPC message into v. A line over
// lineMax is answered -32600 "message too large" and skipped without being
// kept.
func (s *stdioStream) ReadObject(v any) error {
	for {
		line, tooLarge, err := s.readLine()
		if tooLarge {
			s.log.Warn("a stdin line is over the limit; skipped", "limit", lineMax)
			s.writeError(nil, codeInvalidRequest, "message too large")
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if s.accept(line, v) {
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line in pieces and joins them once. A line over
// lineMax reports tooLarge; its rest is read and dropped.
func (s *stdioStream) readLine() (line []byte, tooLarge bool, err error) {
	var pieces [][]byte
	n := 0
	for {
		frag, err := s.in.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if n+len(bytes.TrimRight(frag, "\r\n")) > lineMax {
			for full {
				_, err = s.in.ReadSlice('\n')
				full = errors.Is(err, bufio.ErrBufferFull)
			}
			return nil, true, err
		}
		n += len(frag)
		if !full && len(pieces) == 0 {
			return bytes.Clone(frag), false, err
		}
		pieces = append(pieces, bytes.Clone(frag))
		if full {
			continue
		}
		line = make([]byte, 0, n)
		for i, p := range pieces {
			line = append(line, p...)
			pieces[i] = nil
		}
		if n >= bigLine {
			// The pieces are garbage now; collecting them at once lets
			// decoding the line reuse their memory instead of growing the
			// process by as much again.
			runtime.GC()
		}
		return line, false, err
	}
}

// envelope is the part of a message checked before jsonrpc2 sees it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// accept validates one line and decodes it into v, or answers it with an
// error and reports false.
func (s *stdioStream) accept(line []byte, v any) bool {
	if !json.Valid(line) {
		s.log.Warn("malformed JSON on stdin", "bytes", len(line))
		s.writeError(nil, codeParseError, "Parse error: the line is not valid JSON")
		return false
	}
	if line[0] != '{' {
		msg := "Invalid Request: expected a JSON object"
		if line[0] == '[' {
			msg = "Invalid Request: batches are not supported"
		}
		s.writeError(nil, codeInvalidRequest, msg)
		return false
	}
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		s.writeError(nil, codeInvalidRequest, "Invalid Request")
		return false
	}
	id, idOK := validID(e.ID)
	if !idOK {
		s.writeError(nil, codeInvalidRequest, "Invalid Request: id must be a string or a non-negative integer")
		return false
	}
	switch {
	case e.Method != nil:
		var m string
		if json.Unmarshal(e.Method, &m) != nil || m == "" {
			s.writeError(id, codeInvalidRequest, "Invalid Request: method must be a string")
			return false
		}
	case e.Result != nil || e.Error != nil:
		if id == nil {
			s.log.Warn("dropping a response without an id")
			return false
		}
	default:
		s.writeError(id, codeInvalidRequest, "Invalid Request: neither a request nor a response")
		return false
	}
	if e.Method != nil && len(line) > parkMin {
		// jsonrpc2 decodes params into interfaces and marshals them back
		// (5× a big prompt): it gets a placeholder instead, and the
		// handler the params themselves, a slice of the line.
		if start, end, ok := paramsSpan(line); ok && line[start] == '{' {
			small := make([]byte, 0, len(line)-(end-start)+len(s.placeholder()))
			small = append(append(append(small, line[:start]...), s.placeholder()...), line[end:]...)
			if err := json.Unmarshal(small, v); err != nil {
				s.writeError(id, codeInvalidRequest, "Invalid Request: "+err.Error())
				return false
			}
			s.parked = json.RawMessage(line[start:end])
			return true
		}
	}
	if err := json.Unmarshal(line, v); err != nil {
		s.writeError(id, codeInvalidRequest, "Invalid Request: "+err.Error())
		return false
	}
	return true
}

// bigLine is the line size after which reading collects the garbage.
const bigLine = 8 << 20

// parkMin is the line size from which params are parked.
const parkMin = 1 << 20

// placeholder is what jsonrpc2 sees as the params of a parked request.
func (s *stdioStream) placeholder() []byte {
	s.nonceOnce.Do(func() {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		s.nonce = []byte(`{"$shim-parked-params":"` + hex.EncodeToString(b) + `"}`)
	})
	return s.nonce
}

// handler gives h the parked params back. jsonrpc2 calls it on the
// reading goroutine right after ReadObject, so one slot is enough.
func (s *stdioStream) handler(h jsonrpc2.Handler) jsonrpc2.Handler {
	return parkedHandler{s: s, h: h}
}

type parkedHandler struct {
	s *stdioStream
	h jsonrpc2.Handler
}

func (p parkedHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if parked := p.s.parked; parked != nil {
		p.s.parked = nil
		if req.Params != nil && bytes.Equal(*req.Params, p.s.placeholder()) {
			req.Params = &parked
		}
	}
	p.h.Handle(ctx, conn, req)
}

// paramsSpan finds the value of the top-level "params" key (the last one,
// as encoding/json keeps) of a valid JSON object.
func paramsSpan(b []byte) (start, end int, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return start, end, ok
		}
		k := i
		i = skipString(b, i)
		key := b[k:i]
		i = skipSpace(b, i) + 1 // the colon
		i = skipSpace(b, i)
		v := i
		i = skipValue(b, i)
		if string(key) == `"params"` {
			start, end, ok = v, i, true
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return start, end, ok
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// validID accepts what jsonrpc2 can echo back unchanged: absent, null, a
// string or a non-negative integer. It returns the id to answer with.
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	switch raw[0] {
	case '"':
		return raw, true
	case '-':
		return nil, false
	}
	if _, err := strconv.ParseUint(string(raw), 10, 53); err != nil {
		return nil, false
	}
	return raw, true
}

// writeError writes an error response for a line jsonrpc2 never saw.
func (s *stdioStream) writeError(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	s.write(b)
}

// WriteObject writes one message and a newline.
func (s *stdioStream) WriteObject(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.write(b)
}

// notify writes one notification, encoded once (jsonrpc2's own path
// marshals the params four times over).
func (s *stdioStream) notify(method string, params any) error {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":`)
	m, _ := json.Marshal(method)
	b.Write(m)
	b.WriteString(`,"params":`)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // the encoder's newline
	b.WriteByte('}')
	return s.write(b.Bytes())
}

// write queues one message line.
func (s *stdioStream) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.waitRoom(); err != nil {
		return err
	}
	s.queue = append(append(s.queue, b...), '\n')
	s.tail.ok = false
	s.cond.Broadcast()
	return nil
}

// waitRoom blocks while the queue is full; s.mu is held.
func (s *stdioStream) waitRoom() error {
	for len(s.queue) >= outMax && !s.closed && s.err == nil {
		s.cond.Wait()
	}
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return io.ErrClosedPipe
	}
	return nil
}

// The session/update line of a text chunk, around its escaped text. The
// bytes are what notify writes for a chunkUpdate of textContent.
const (
	chunkHead = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`
	chunkEnd  = `"}}}}` + "\n"
)

// textChunk queues a text chunk of an artifact as a session/update of
// kind (agent_message_chunk), merged into the chunk at the end of the
// queue when that one is of the same session and artifact and both texts
// fit in mergeMax. Only valid UTF-8 merges: the JSON of a+b is then the
// JSON of a followed by the JSON of b, so the editor reads exactly the
// same text, in the same order.
func (s *stdioStream) textChunk(sessionID, artifact, kind, text string) error {
	valid := utf8.ValidString(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.waitRoom(); err != nil {
		return err
	}
	if t := &s.tail; valid && t.ok && t.session == sessionID && t.artifact == artifact && t.n+len(text) <= mergeMax {
		s.queue = appendJSONText(s.queue[:t.end], text)
		t.end = len(s.queue)
		t.n += len(text)
		s.queue = append(s.queue, chunkEnd...)
		return nil
	}
	q := append(s.queue, chunkHead...)
	q = appendJSONString(q, sessionID)
	q = append(q, `,"update":{"sessionUpdate":`...)
	q = appendJSONString(q, kind)
	q = append(q, `,"content":{"type":"text","text":"`...)
	q = appendJSONText(q, text)
	end := len(q)
	s.queue = append(q, chunkEnd...)
	s.tail = mergeTail{ok: valid && len(text) <= mergeMax, session: sessionID, artifact: artifact, end: end, n: len(text)}
	s.cond.Broadcast()
	return nil
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping off.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendJSONText(b, s)
	return append(b, '"')
}

// appendJSONText appends the inside of s as a JSON string, byte for byte
// what encoding/json writes with SetEscapeHTML(false): the short escapes
// for \b \f \n \r \t, \u00XX for other control bytes, \u2028 and \u2029
// escaped, invalid UTF-8 replaced by \ufffd (TestAppendJSONTextLikeEncodingJSON).
func appendJSONText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// writeLoop writes what has queued, all of it at once.
func (s *stdioStream) writeLoop() {
	defer close(s.done)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.queue) == 0 && !s.closed {
			s.cond.Wait()
		}
		if len(s.queue) == 0 {
			return
		}
		buf := s.queue
		s.queue, s.spare = s.spare[:0], nil
		s.tail.ok = false // taken: nothing merges into it any more
		s.writing = true
		s.mu.Unlock()
		_, err := s.out.Write(buf)
		s.mu.Lock()
		s.writing = false
		if cap(buf) <= 4*outMax {
			s.spare = buf[:0]
		}
		if err != nil && s.err == nil {
			s.err = err
			s.queue = nil
		}
		s.cond.Broadcast()
		if s.err != nil {
			return
		}
	}
}

// flush waits, at most d, until everything queued was written.
func (s *stdioStream) flush(d time.Duration) {
	timer := time.AfterFunc(d, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.queue) > 0 || s.writing) && s.err == nil && time.Now().Before(deadline) {
		s.cond.Wait()
	}
}

// Close stops the output after what has queued is written (waiting at
// most a moment: an editor that stopped reading must not hold shim up) and
// closes the underlying input and output.
func (s *stdioStream) Close() error {
	s.flush(500 * time.Millisecond)
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}
