package a2a

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
func sseEvents(t *testing.T, r io.Reader, size int) ([]sseEvent, error) {
	sr := newSSEReader(r, maxEventSize)
	var out []sseEvent
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

// FuzzDecodeFrame decodes arbitrary bytes as a stream frame: no panic; an
// event returned without error has one of the four kinds, with the member
// that kind needs; and every accessor shim calls on it works.
func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(frameTask))
	f.Add([]byte(`{"result":{"statusUpdate":{"status":{"state":1e999}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		ev, err := DecodeFrame(in)
		if err != nil {
			var de *DecodeError
			var re *RPCError
			if !errors.As(err, &de) && !errors.As(err, &re) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			_ = err.Error()
			return
		}
		switch ev.Kind {
		case EventTask:
			if ev.Task == nil {
				t.Fatal("task event without a task")
			}
			for i := range ev.Task.History {
				exerciseMessage(&ev.Task.History[i])
			}
			for i := range ev.Task.Artifacts {
				exerciseArtifact(&ev.Task.Artifacts[i])
			}
			_ = TaskEvents(ev.Task)
		case EventStatus:
		case EventArtifact:
			if ev.Artifact == nil {
				t.Fatal("artifact event without an artifact")
			}
			exerciseArtifact(ev.Artifact)
		case EventMessage:
			if ev.Message == nil {
				t.Fatal("message event without a message")
			}
			exerciseMessage(ev.Message)
		default:
			t.Fatalf("event of kind %d", ev.Kind)
		}
		exerciseMessage(ev.Status.Message)
		_ = ev.Status.State.Terminal()
	})
}

func exerciseMessage(m *Message) {
	_ = m.Text()
	_ = m.Thoughts()
	_ = m.ToolCalls()
	_ = m.Hitl()
	_ = m.SteersConsumed()
	_ = m.HitlResume()
	_ = m.FromUser()
	if m != nil {
		for i := range m.Parts {
			_ = m.Parts[i].Known()
		}
	}
}

func exerciseArtifact(a *Artifact) {
	_, _ = a.Usage()
	_, _ = a.Context()
	for i := range a.Parts {
		_ = a.Parts[i].Known()
		_ = a.Parts[i].Thought()
	}
}
