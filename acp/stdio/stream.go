package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/jsontext"
	"github.com/shimdev/shim/internal/randid"
)

// stream is the ACP transport: one JSON value per line on each side.
//
// It implements jsonrpc2.ObjectStream. jsonrpc2.Conn closes the connection
// on the first ReadObject error, so a line that is not a JSON-RPC message
// is answered here (-32700 or -32600) and reading goes on; only the end of
// the input is returned as an error.
//
// Its output is the queue (queue.go): one writer goroutine.
type stream struct {
	in      *bufio.Reader
	log     *slog.Logger
	out     *queue
	lineMax int // the longest line served (lineMaxBytes)

	// stashed holds the params of the big request just read (see accept).
	stashed   json.RawMessage
	nonceOnce sync.Once
	nonce     []byte
}

func newStream(in io.Reader, out io.Writer, log *slog.Logger, lineMax int) *stream {
	return &stream{in: bufio.NewReaderSize(in, 64<<10), log: log, out: newQueue(out), lineMax: lineMax}
}

// lineMaxBytes bounds one stdin line (SPEC §13).
const lineMaxBytes = 64 << 20

// ReadObject reads the next valid JSON-RPC message into v. A line over
// s.lineMax is answered -32600 "message too large" and skipped without being
// kept; the answer carries the request's id when the line's first 64 KiB
// hold it (SPEC §13), so that the editor's request ends.
func (s *stream) ReadObject(v any) error {
	for {
		line, tooLarge, err := s.readLine()
		if tooLarge {
			s.log.Warn("a stdin line is over the limit; skipped", "limit", s.lineMax)
			s.answerLine(idInHead(line), acp.CodeInvalidRequest, "message too large")
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
// s.lineMax reports tooLarge with its first headMax bytes as line; its
// rest is read and dropped.
func (s *stream) readLine() (line []byte, tooLarge bool, err error) {
	var pieces [][]byte
	n := 0
	for {
		frag, err := s.in.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if n+len(bytes.TrimRight(frag, "\r\n")) > s.lineMax {
			var head []byte
			for _, p := range append(pieces, frag) {
				head = append(head, p[:min(len(p), headMax-len(head))]...)
			}
			pieces = nil
			for full {
				_, err = s.in.ReadSlice('\n')
				full = errors.Is(err, bufio.ErrBufferFull)
			}
			return head, true, err
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
func (s *stream) accept(line []byte, v any) bool {
	if !json.Valid(line) {
		s.log.Warn("malformed JSON on stdin", "bytes", len(line))
		s.answerLine(nil, acp.CodeParseError, "Parse error: the line is not valid JSON")
		return false
	}
	if line[0] != '{' {
		msg := "Invalid Request: expected a JSON object"
		if line[0] == '[' {
			msg = "Invalid Request: batches are not supported"
		}
		s.answerLine(nil, acp.CodeInvalidRequest, msg)
		return false
	}
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		s.answerLine(nil, acp.CodeInvalidRequest, "Invalid Request")
		return false
	}
	id, idOK := validID(e.ID)
	if !idOK {
		s.answerLine(nil, acp.CodeInvalidRequest, "Invalid Request: id must be a string or a non-negative integer")
		return false
	}
	switch {
	case e.Method != nil:
		var m string
		if json.Unmarshal(e.Method, &m) != nil || m == "" {
			s.answerLine(id, acp.CodeInvalidRequest, "Invalid Request: method must be a string")
			return false
		}
	case e.Result != nil || e.Error != nil:
		if id == nil {
			s.log.Warn("dropping a response without an id")
			return false
		}
	default:
		s.answerLine(id, acp.CodeInvalidRequest, "Invalid Request: neither a request nor a response")
		return false
	}
	if e.Method != nil && len(line) > stashMin {
		// jsonrpc2 decodes params into interfaces and marshals them back
		// (5× a big prompt): it gets a placeholder instead, and the
		// handler the params themselves, a slice of the line.
		if start, end, ok := paramsSpan(line); ok && line[start] == '{' {
			small := make([]byte, 0, len(line)-(end-start)+len(s.placeholder()))
			small = append(append(append(small, line[:start]...), s.placeholder()...), line[end:]...)
			if err := json.Unmarshal(small, v); err != nil {
				s.answerLine(id, acp.CodeInvalidRequest, "Invalid Request: "+err.Error())
				return false
			}
			s.stashed = json.RawMessage(line[start:end])
			return true
		}
	}
	if err := json.Unmarshal(line, v); err != nil {
		s.answerLine(id, acp.CodeInvalidRequest, "Invalid Request: "+err.Error())
		return false
	}
	return true
}

// bigLine is the line size after which reading collects the garbage.
const bigLine = 8 << 20

// stashMin is the line size from which params are stashed.
const stashMin = 1 << 20

// placeholder is what jsonrpc2 sees as the params of a stashed request.
func (s *stream) placeholder() []byte {
	s.nonceOnce.Do(func() {
		s.nonce = []byte(`{"$shim-stashed-params":"` + randid.Hex(12) + `"}`)
	})
	return s.nonce
}

// handler gives h the stashed params back. jsonrpc2 calls it on the
// reading goroutine right after ReadObject, so one slot is enough.
func (s *stream) handler(h jsonrpc2.Handler) jsonrpc2.Handler {
	return stashHandler{s: s, h: h}
}

type stashHandler struct {
	s *stream
	h jsonrpc2.Handler
}

func (p stashHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if stashed := p.s.stashed; stashed != nil {
		p.s.stashed = nil
		if req.Params != nil && bytes.Equal(*req.Params, p.s.placeholder()) {
			req.Params = &stashed
		}
	}
	p.h.Handle(ctx, conn, req)
}

// paramsSpan finds the value of the top-level "params" key (the last one,
// as encoding/json keeps) of a valid JSON object.
func paramsSpan(b []byte) (start, end int, ok bool) {
	jsontext.Members(b, func(key []byte, s, e int) bool {
		if string(key) == `"params"` {
			start, end, ok = s, e, true
		}
		return true
	})
	return start, end, ok
}

// headMax is how much of a line too large to read is kept to find its id.
const headMax = 64 << 10

// idInHead finds the id of the request a line too large to read begins
// with head: the value of a top-level "id" member (the last one) that
// head holds whole, when it is a valid id; nil otherwise.
func idInHead(head []byte) (id json.RawMessage) {
	jsontext.Members(head, func(key []byte, s, e int) bool {
		if string(key) == `"id"` {
			id = nil
			if got, ok := validID(head[s:e]); ok && json.Valid(got) {
				id = got
			}
		}
		return true
	})
	return id
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

// answerLine answers a line jsonrpc2 never saw. It runs on the reading
// goroutine and waits for room in the queue: an editor that sends bad
// lines and reads nothing is slowed down, not buffered for.
func (s *stream) answerLine(id json.RawMessage, code int, msg string) {
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
	_ = s.out.post(b, true)
}

// WriteObject writes one message jsonrpc2 sends (shim's calls to the
// client), waiting for room in the queue.
func (s *stream) WriteObject(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.out.post(b, true)
}

// Close is jsonrpc2 closing the connection: the input ended, the editor is
// gone. What is still queued is dropped.
func (s *stream) Close() error {
	s.out.close()
	return nil
}
