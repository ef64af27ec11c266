package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// The seed corpora are in testdata/fuzz/<Name>/, made from the recorded
// SDK captures (testdata/captures) and hand-written edge cases.

// sseEvents reads r to its end. It fails if the reader yields more events
// than there are bytes (it would be looping without progress).
func sseEvents(t *testing.T, r io.Reader, size int) ([]Event, error) {
	sr := NewReader(r, maxEvent)
	var out []Event
	for {
		ev, err := sr.Next()
		if err != nil {
			return out, err
		}
		// Copy: the reader may reuse its buffer.
		ev.Data = bytes.Clone(ev.Data)
		out = append(out, ev)
		if len(out) > size+1 {
			t.Fatalf("%d events from %d bytes: no progress", len(out), size)
		}
	}
}

// FuzzSSE feeds arbitrary bytes to the SSE reader: it must not panic or
// loop, no event's data may hold a "\r" (every line end is normalized),
// an event has data or a type, and reading byte by byte gives the same
// events as reading at once.
func FuzzSSE(f *testing.F) {
	f.Add([]byte(sseStream))
	f.Add([]byte("data: a\r\n\rdata: b\n\n"))
	f.Add([]byte("data: a\r"))
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err := sseEvents(t, bytes.NewReader(in), len(in))
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("reading from memory: %v", err)
		}
		for _, ev := range whole {
			if bytes.IndexByte(ev.Data, '\r') >= 0 {
				t.Fatalf("data holds a CR: %q", ev.Data)
			}
			if len(ev.Data) == 0 && ev.Event == "" && ev.ID == "" {
				// An event with no data and no type must have had a data line.
				if !bytes.Contains(in, []byte("data")) {
					t.Fatalf("empty event from %q", in)
				}
			}
			if bytes.IndexByte([]byte(ev.ID), 0) >= 0 {
				t.Fatalf("id holds a NUL: %q", ev.ID)
			}
		}
		split, _ := sseEvents(t, iotest.OneByteReader(bytes.NewReader(in)), len(in))
		if len(split) != len(whole) {
			t.Fatalf("byte by byte: %d events, at once: %d", len(split), len(whole))
		}
		for i := range whole {
			if split[i].ID != whole[i].ID || split[i].Event != whole[i].Event || !bytes.Equal(split[i].Data, whole[i].Data) {
				t.Fatalf("event %d differs: %+v vs %+v", i, split[i], whole[i])
			}
		}
	})
}
