package a2a

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/r3labs/sse/v2"
)

// maxEventSize bounds one SSE event. A full-replace frame carries a whole
// answer, so this is far above r3labs/sse's 64 KiB default.
const maxEventSize = 1 << 30

// sseEvent is one server-sent event.
type sseEvent struct {
	ID    string
	Event string
	Data  []byte
}

// sseReader reads events per the WHATWG rules on top of r3labs/sse's
// event splitter: data lines joined with "\n", comments skipped, id, event
// and retry fields, "\r\n", "\r" or "\n" line ends.
type sseReader struct {
	r *sse.EventStreamReader
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: sse.NewEventStreamReader(r, maxEventSize)}
}

// Next returns the next event that has data or an event type; comment-only
// blocks (keep-alives) are skipped.
func (s *sseReader) Next() (sseEvent, error) {
	for {
		block, err := s.r.ReadEvent()
		if err != nil {
			return sseEvent{}, err
		}
		ev, ok := parseSSEBlock(block)
		if ok {
			return ev, nil
		}
	}
}

// parseSSEBlock parses the lines of one event block.
func parseSSEBlock(block []byte) (sseEvent, bool) {
	var ev sseEvent
	var data []byte
	hasData := false
	for len(block) > 0 {
		var line []byte
		i := bytes.IndexAny(block, "\r\n")
		if i < 0 {
			line, block = block, nil
		} else {
			line = block[:i]
			if block[i] == '\r' && i+1 < len(block) && block[i+1] == '\n' {
				block = block[i+2:]
			} else {
				block = block[i+1:]
			}
		}
		if len(line) == 0 || line[0] == ':' {
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
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "event":
			ev.Event = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		}
	}
	ev.Data = data
	return ev, hasData || ev.Event != ""
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
