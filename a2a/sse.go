package a2a

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"time"
)

// The SSE reader is shim's own. It replaces r3labs/sse/v2's
// EventStreamReader, which the design first named: that reader keeps a
// bufio.Scanner whose buffer doubles to hold a whole event and, after every
// read, scans all of it again for the end of the event, so an event of S
// bytes costs time quadratic in S and about twice S of memory; a full
// replace of a 100 MB answer took 20 s and most of shim's memory (see
// BENCHMARKS.md). This one reads line by line: a long data line is copied
// once, into a buffer of its exact size.

// maxEventSize bounds one SSE event. A full-replace frame carries a whole
// answer, so this is far above any usual limit.
const maxEventSize = 1 << 30

// errEventTooLarge is returned for an event over maxEventSize.
var errEventTooLarge = errors.New("a2a: an SSE event is larger than 1 GiB")

// sseEvent is one server-sent event.
type sseEvent struct {
	ID    string
	Event string
	Data  []byte
}

// sseReader reads events per the WHATWG rules: data lines joined with
// "\n", ":" comments skipped, id and event fields, "\r\n", "\r" or "\n" line
// ends. An event cut by the end of the stream is still delivered, as the
// complete JSON-RPC frame it usually is.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(&crReader{r: r}, 64<<10)}
}

// readLine returns the next line without its end. The line is valid until
// the next call unless owned is set (a long line, copied once into a
// buffer of its own).
func (s *sseReader) readLine() (line []byte, owned bool, err error) {
	frag, err := s.br.ReadSlice('\n')
	if err == nil {
		return frag[:len(frag)-1], false, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(frag) > 0 && errors.Is(err, io.EOF) {
			return frag, false, nil // a last line with no end
		}
		return nil, false, err
	}
	// A line longer than the buffer: keep its pieces, then copy them once.
	pieces := [][]byte{bytes.Clone(frag)}
	total := len(frag)
	for {
		frag, err = s.br.ReadSlice('\n')
		done := err == nil
		if done {
			frag = frag[:len(frag)-1]
		}
		total += len(frag)
		if total > maxEventSize {
			return nil, false, errEventTooLarge
		}
		pieces = append(pieces, bytes.Clone(frag))
		if done || (err != nil && !errors.Is(err, bufio.ErrBufferFull)) {
			break
		}
	}
	line = make([]byte, 0, total)
	for i, p := range pieces {
		line = append(line, p...)
		pieces[i] = nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return line, true, nil
}

// Next returns the next event that has data or an event type; comment-only
// blocks (keep-alives) are skipped.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data []byte
	hasData := false
	for {
		line, owned, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && (hasData || ev.Event != "") {
				ev.Data = data
				return ev, nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if hasData || ev.Event != "" {
				ev.Data = data
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if c := bytes.IndexByte(line, ':'); c >= 0 {
			field, value = line[:c], line[c+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			switch {
			case hasData:
				if len(data)+1+len(value) > maxEventSize {
					return sseEvent{}, errEventTooLarge
				}
				data = append(append(data, '\n'), value...)
			case owned:
				data = value // the long line's own buffer: no second copy
			default:
				data = append([]byte(nil), value...)
			}
			hasData = true
		case "event":
			ev.Event = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		}
	}
}

// parseSSEBlock parses the lines of one event block.
func parseSSEBlock(block []byte) (sseEvent, bool) {
	ev, err := newSSEReader(bytes.NewReader(block)).Next()
	return ev, err == nil
}

// crReader turns every line end into "\n": "\r\n" and a lone "\r" alike
// (a raw CR can only be a line end in SSE). A CR at the end of one read
// whose LF starts the next read counts once.
type crReader struct {
	r      io.Reader
	skipLF bool
}

func (c *crReader) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		b := p[:n]
		if c.skipLF && len(b) > 0 {
			c.skipLF = false
			if b[0] == '\n' {
				b = b[1:]
			}
		}
		if bytes.IndexByte(b, '\r') < 0 {
			n = copy(p, b)
		} else {
			w := 0
			for i := 0; i < len(b); i++ {
				ch := b[i]
				if ch == '\r' {
					ch = '\n'
					if i+1 < len(b) && b[i+1] == '\n' {
						i++
					} else if i+1 == len(b) {
						c.skipLF = true
					}
				}
				p[w] = ch
				w++
			}
			n = w
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// stallReader cancels a stream that yields no byte for d.
type stallReader struct {
	r     io.Reader
	d     time.Duration
	mu    sync.Mutex
	timer *time.Timer
	fired bool
}

// newStallReader arms a timer that calls onStall when r is silent for d.
// A d of zero disables the watch.
func newStallReader(r io.Reader, d time.Duration, onStall func()) *stallReader {
	s := &stallReader{r: r, d: d}
	if d > 0 {
		s.timer = time.AfterFunc(d, func() {
			s.mu.Lock()
			s.fired = true
			s.mu.Unlock()
			onStall()
		})
	}
	return s
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 && s.timer != nil {
		s.timer.Reset(s.d)
	}
	return n, err
}

// Stalled reports whether the timer fired.
func (s *stallReader) Stalled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fired
}

// Stop disarms the timer.
func (s *stallReader) Stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}

// touch restarts the silence timer.
func (s *stallReader) touch() {
	if s.timer != nil {
		s.timer.Reset(s.d)
	}
}
