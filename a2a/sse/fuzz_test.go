package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/shimdev/shim/internal/streamtest"
)

// The seed corpora are in testdata/fuzz/<Name>/, made from the recorded
// SDK captures (testdata/captures) and hand-written edge cases.

// sseEvents reads r to its end. It fails if the reader yields more events
// than there are bytes (it would be looping without progress).
func sseEvents(t *testing.T, r io.Reader, size int) ([]Event, error) {
	return readEvents(t, NewReader(r, maxEvent), size)
}

// sharedEvents is sseEvents through a reader that shares (Reader.Share),
// each event copied before the next is read.
func sharedEvents(t *testing.T, r io.Reader, size int) ([]Event, error) {
	sr := NewReader(r, maxEvent)
	sr.Share()
	return readEvents(t, sr, size)
}

func readEvents(t *testing.T, sr *Reader, size int) ([]Event, error) {
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
// events as reading at once, as does a reader that shares (its events
// lent in place), at once and byte by byte.
func FuzzSSE(f *testing.F) {
	f.Add([]byte(sseStream))
	f.Add([]byte("data: a\r\n\rdata: b\n\n"))
	f.Add([]byte("data: a\r"))
	f.Add([]byte("data: \x1e{\"a\":1}\n\ndata: \x1e\x1e\n\ndata:\x1e\ndata: b\n\n"))
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
			if ev.RecordSeparated && bytes.IndexByte(in, 0x1e) < 0 {
				t.Fatalf("a record separator dropped from %q, which has none", in)
			}
			if bytes.IndexByte([]byte(ev.ID), 0) >= 0 {
				t.Fatalf("id holds a NUL: %q", ev.ID)
			}
		}
		split, _ := sseEvents(t, iotest.OneByteReader(bytes.NewReader(in)), len(in))
		if len(split) != len(whole) {
			t.Fatalf("byte by byte: %d events, at once: %d", len(split), len(whole))
		}
		sameEvents(t, "byte by byte", split, whole)
		shared, err2 := sharedEvents(t, bytes.NewReader(in), len(in))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("shared: %v, not shared: %v", err2, err)
		}
		sameEvents(t, "shared", shared, whole)
		sharedSplit, _ := sharedEvents(t, iotest.OneByteReader(bytes.NewReader(in)), len(in))
		sameEvents(t, "shared, byte by byte", sharedSplit, whole)
		if len(in) > 0 {
			// Reads that end anywhere, the buffer moving under an event
			// being lent (reads of 1 to 32 bytes).
			sharedCut, _ := sharedEvents(t, &streamtest.SocketReader{Data: in, Max: 1 + int(in[0])%32}, len(in))
			sameEvents(t, "shared, in cut reads", sharedCut, whole)
		}
	})
}

func sameEvents(t *testing.T, how string, got, want []Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, at once: %d", how, len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Event != want[i].Event || !bytes.Equal(got[i].Data, want[i].Data) || (got[i].Data == nil) != (want[i].Data == nil) ||
			got[i].RecordSeparated != want[i].RecordSeparated {
			t.Fatalf("%s: event %d differs: %+v vs %+v", how, i, got[i], want[i])
		}
	}
}
