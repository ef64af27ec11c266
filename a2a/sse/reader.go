package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/shimdev/shim/a2a"
)

// The SSE reader is shim's own. It replaces r3labs/sse/v2's
// EventStreamReader, which the design first named: that reader keeps a
// bufio.Scanner whose buffer doubles to hold a whole event and, after every
// read, scans all of it again for the end of the event, so an event of S
// bytes costs time quadratic in S and about twice S of memory; a full
// replace of a 100 MB answer took 20 s and most of shim's memory (see
// BENCHMARKS.md). This one reads line by line and appends each piece of a
// data line straight to the event's buffer, whose growth is capped so that
// the old and the new buffer together never exceed twice the bound of an event (MaxEvent).

// TooLargeError says which limit a response went past; it is
// a2a.ErrTooLarge (errors.Is).
type TooLargeError struct {
	// What went past the limit ("an SSE event", "a response body").
	What  string
	Limit int64
	// Broke is set when a stream was broken for it.
	Broke bool
}

func (e *TooLargeError) Error() string {
	s := fmt.Sprintf("the server sent %s over %s, the limit", e.What, sizeString(e.Limit))
	if e.Broke {
		s += "; the stream was broken"
	}
	return s
}

func (e *TooLargeError) Is(target error) bool { return target == a2a.ErrTooLarge }

// sizeString writes a byte count in MiB when it is a whole number of them.
func sizeString(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// tooLarge is the error of an event over s.max.
func (s *Reader) tooLarge() error {
	return &TooLargeError{What: "an SSE event", Limit: int64(s.max), Broke: true}
}

// Event is one server-sent event. Its Data is the caller's: the reader
// never writes to it again, unless the reader lent it (Reader.Lent).
type Event struct {
	ID    string
	Event string
	Data  []byte
	// RecordSeparated says the data began with U+001E, dropped
	// (recordSeparator).
	RecordSeparated bool
}

// Reader reads events per the WHATWG rules: data lines joined with
// "\n", ":" comments skipped, id and event fields, "\r\n", "\r" or "\n" line
// ends. An event cut by the end of the stream is still delivered, as the
// complete JSON-RPC frame it usually is. Comments and unknown fields are
// skipped as they are read, never kept, whatever their length.
type Reader struct {
	br  *bufio.Reader
	err error // a read error met inside a line, returned by the next read
	max int   // the bound of one event
	// share: an event of one data line may be read in place (Share);
	// lent: the last event was.
	share, lent bool
}

// Share lets the reader give an event in place, in its own buffer, and
// valid until the next call of Next (Lent): an event of one data
// line whose blank line is already read into the buffer, the usual frame
// of a fast stream, then costs no copy. Any other event is copied as
// before.
func (s *Reader) Share() { s.share = true }

// Lent reports whether the last event's Data is the reader's buffer,
// valid until the next call of Next.
func (s *Reader) Lent() bool { return s.lent }

// NewReader returns a reader of r whose events are at most limit bytes.
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{br: bufio.NewReaderSize(&crReader{r: r}, 64<<10), max: limit}
}

// fragment returns the next piece of a line, valid until the next call;
// more reports that the line goes on.
func (s *Reader) fragment() (frag []byte, more bool, err error) {
	if s.err != nil {
		err, s.err = s.err, nil
		return nil, false, err
	}
	frag, err = s.br.ReadSlice('\n')
	switch {
	case err == nil:
		return frag[:len(frag)-1], false, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return frag, true, nil
	case len(frag) > 0:
		s.err = err // a last line with no end; the error comes next
		return frag, false, nil
	}
	return nil, false, err
}

// rest reads the rest of a line, giving each piece to fn (nil: skip them).
// A read error ends the line; the next fragment returns it.
func (s *Reader) rest(fn func([]byte) error) error {
	for {
		frag, more, err := s.fragment()
		if err != nil {
			s.err = err
			return nil
		}
		if fn != nil {
			if err := fn(frag); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
	}
}

// appendCapped appends p to buf, growing it at most to limit so that the
// old and the new array together stay under twice the limit.
func appendCapped(buf, p []byte, limit int, tooLarge func() error) ([]byte, error) {
	need := len(buf) + len(p)
	if need > limit {
		return buf, tooLarge()
	}
	if need > cap(buf) {
		c := min(max(2*cap(buf), need, 512), limit)
		if len(buf) == 0 {
			c = need // one line in one piece: its exact size
		}
		nb := make([]byte, len(buf), c)
		copy(nb, buf)
		buf = nb
	}
	return append(buf, p...), nil
}

// Buffer collects bytes in pieces, so that growing never copies what was
// read: a body or an event cut at the limit has held the limit once, and a
// whole one is copied once into a buffer of its size (twice its size at
// the moment of the copy, never more). The first piece takes the first
// write whole (an event of one data line that fits the reader's buffer
// costs one allocation of its size); the pieces after it double up to
// pieceMax, so that what a piece leaves unused stays small next to the
// whole (a 1 MiB event held 2 MiB of pieces with pieces doubling to 1 MiB).
type Buffer struct {
	// first is the first piece, kept out of bufs: an event of one data
	// line (the common case) costs one allocation of its size.
	first []byte
	bufs  [][]byte
	n     int
}

const (
	chunkMax = 1 << 20   // the largest first piece
	pieceMax = 128 << 10 // the largest piece after it
)

// Write appends p, or fails with errTooLarge past limit.
func (c *Buffer) Write(p []byte, limit int, errTooLarge func() error) error {
	if c.n+len(p) > limit {
		return errTooLarge()
	}
	c.n += len(p)
	if c.first == nil && len(p) > 0 {
		c.first = make([]byte, 0, min(len(p), chunkMax))
	}
	for len(p) > 0 {
		if len(c.bufs) == 0 && len(c.first) < cap(c.first) {
			m := min(len(p), cap(c.first)-len(c.first))
			c.first = append(c.first, p[:m]...)
			p = p[m:]
			continue
		}
		k := len(c.bufs) - 1
		if k < 0 || len(c.bufs[k]) == cap(c.bufs[k]) {
			prev := cap(c.first)
			if k >= 0 {
				prev = cap(c.bufs[k])
			}
			c.bufs = append(c.bufs, make([]byte, 0, min(max(512, 2*prev), pieceMax)))
			k++
		}
		m := min(len(p), cap(c.bufs[k])-len(c.bufs[k]))
		c.bufs[k] = append(c.bufs[k], p[:m]...)
		p = p[m:]
	}
	return nil
}

// Len is how many bytes were written.
func (c *Buffer) Len() int { return c.n }

// Bytes returns what was written, in one buffer; c is empty after.
func (c *Buffer) Bytes() []byte {
	out := c.first
	if len(c.bufs) > 0 {
		out = make([]byte, 0, c.n)
		out = append(out, c.first...)
		c.first = nil
		for i, b := range c.bufs {
			out = append(out, b...)
			c.bufs[i] = nil
		}
	}
	c.first, c.bufs, c.n = nil, nil, 0
	return out
}

// Next returns the next event that has data or an event type; comment-only
// blocks (keep-alives) are skipped. An event whose fields add up to more
// than s.max is an error that breaks the stream.
func (s *Reader) Next() (Event, error) {
	s.lent = false
	var b building
	for {
		frag, more, err := s.fragment()
		if err != nil {
			if errors.Is(err, io.EOF) && b.ready() {
				return b.event(), nil
			}
			return Event{}, err
		}
		if len(frag) == 0 && !more {
			if b.ready() {
				return b.event(), nil
			}
			b.ev = Event{}
			continue
		}
		if err := s.field(&b, frag, more); err != nil {
			return Event{}, err
		}
		if b.borrowed != nil {
			s.lent = true
			return b.event(), nil
		}
	}
}

// building is the event being read.
type building struct {
	ev      Event
	data    Buffer
	value   []byte // an event or id field's value
	hasData bool
	// borrowed is the event's data in the reader's buffer (Share); the
	// event is then complete.
	borrowed []byte
}

// ready reports whether the event has data or an event type.
func (b *building) ready() bool { return b.hasData || b.ev.Event != "" }

// event is the event read; b is spent.
func (b *building) event() Event {
	if b.borrowed != nil {
		b.ev.Data = b.borrowed
	} else {
		b.ev.Data = eventData(&b.data, b.hasData)
	}
	recordSeparator(&b.ev)
	return b.ev
}

// field reads the field of a line whose first piece is frag (more: the
// line goes on): data, event and id are kept, anything else skipped as it
// is read.
func (s *Reader) field(b *building, frag []byte, more bool) error {
	switch name, first := splitField(frag, more); name {
	case fieldData:
		return s.dataField(b, first, more)
	case fieldEvent, fieldID:
		return s.valueField(b, name, first, more)
	}
	if more {
		return s.rest(nil)
	}
	return nil
}

// fieldName is a field shim reads.
type fieldName uint8

const (
	fieldOther fieldName = iota // a comment or a field shim skips
	fieldData
	fieldEvent
	fieldID
)

// splitField splits a line's first piece into its field's name and the
// start of its value (a name longer than the buffer is none shim knows).
func splitField(frag []byte, more bool) (fieldName, []byte) {
	name, value := frag, frag[len(frag):]
	switch c := bytes.IndexByte(frag, ':'); {
	case c >= 0:
		name, value = frag[:c], frag[c+1:]
	case more:
		return fieldOther, nil
	}
	switch string(name) {
	case "data":
		return fieldData, value
	case "event":
		return fieldEvent, value
	case "id":
		return fieldID, value
	}
	return fieldOther, nil
}

// dataField appends a data line to the event's data, after a "\n" when it
// is not its first.
func (s *Reader) dataField(b *building, first []byte, more bool) error {
	if b.hasData {
		if err := b.data.Write([]byte{'\n'}, s.max, s.tooLarge); err != nil {
			return err
		}
	}
	var sp leadingSpace
	v := sp.trim(first)
	if !b.hasData && !more && s.endsHere(v) {
		b.hasData, b.borrowed = true, v
		return nil
	}
	b.hasData = true
	if err := b.data.Write(v, s.max, s.tooLarge); err != nil {
		return err
	}
	if !more {
		return nil
	}
	return s.rest(func(p []byte) error { return b.data.Write(sp.trim(p), s.max, s.tooLarge) })
}

// endsHere reports, for a reader that shares, whether the event's first
// data line v, read whole, is its last: its blank line is in the buffer
// already (reading it moves nothing: v stays valid). The blank line is
// then read.
func (s *Reader) endsHere(v []byte) bool {
	if !s.share || len(v) == 0 || len(v) > s.max || s.err != nil || s.br.Buffered() == 0 {
		return false
	}
	if next, _ := s.br.Peek(1); next[0] != '\n' {
		return false
	}
	_, _ = s.br.Discard(1)
	return true
}

// valueField reads an event or id field; its value counts against what
// the data left of the bound.
func (s *Reader) valueField(b *building, name fieldName, first []byte, more bool) error {
	limit := s.max - b.data.n
	var sp leadingSpace
	var err error
	if b.value, err = appendCapped(b.value[:0], sp.trim(first), limit, s.tooLarge); err != nil {
		return err
	}
	if more {
		err = s.rest(func(p []byte) (err error) {
			b.value, err = appendCapped(b.value, sp.trim(p), limit, s.tooLarge)
			return err
		})
		if err != nil {
			return err
		}
	}
	switch name {
	case fieldEvent:
		b.ev.Event = string(b.value)
	case fieldID:
		if bytes.IndexByte(b.value, 0) < 0 {
			b.ev.ID = string(b.value)
		}
	}
	return nil
}

// leadingSpace strips one leading space from a field's value, even when it
// starts the value's next piece.
type leadingSpace struct{ seen bool }

func (l *leadingSpace) trim(p []byte) []byte {
	if !l.seen && len(p) > 0 {
		l.seen = true
		if p[0] == ' ' {
			p = p[1:]
		}
	}
	return p
}

// eventData is an event's data: empty, not nil, for data lines with
// nothing in them.
func eventData(c *Buffer, hasData bool) []byte {
	b := c.Bytes()
	if b == nil && hasData {
		b = []byte{}
	}
	return b
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
