package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseSSEBlock(t *testing.T) {
	tests := []struct {
		name  string
		block string
		ok    bool
		want  Event
	}{
		{"one data line", "data: a", true, Event{Data: []byte("a")}},
		{"multi-line data joined with LF", "data: a\ndata: b\ndata: c", true, Event{Data: []byte("a\nb\nc")}},
		{"CRLF line ends", "data: a\r\ndata: b", true, Event{Data: []byte("a\nb")}},
		{"CR line ends", "data: a\rdata: b", true, Event{Data: []byte("a\nb")}},
		{"no space after colon", "data:a\ndata:b", true, Event{Data: []byte("a\nb")}},
		{"only one leading space stripped", "data:  a", true, Event{Data: []byte(" a")}},
		{"empty data line", "data\ndata", true, Event{Data: []byte("\n")}},
		{"data with a colon in the value", `data: {"a":"b:c"}`, true, Event{Data: []byte(`{"a":"b:c"}`)}},
		{"comments skipped", ": hello\ndata: x\n: bye", true, Event{Data: []byte("x")}},
		{"comment-only block (keep-alive)", ": keep-alive", false, Event{}},
		{"several comments", ":a\r\n:b\r\n", false, Event{}},
		{"id only", "id: 5", false, Event{}},
		{"id and event lines", "id: 42\nevent: error\ndata: {}", true, Event{ID: "42", Event: "error", Data: []byte("{}")}},
		{"event without data", "event: ping", true, Event{Event: "ping"}},
		{"id with NUL ignored", "id: a\x00b\ndata: x", true, Event{Data: []byte("x")}},
		{"unknown fields and retry ignored", "retry: 10\nfoo: bar\ndata: x", true, Event{Data: []byte("x")}},
		{"field name is case sensitive", "Data: x", false, Event{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseSSEBlock([]byte(tt.block))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got.ID != tt.want.ID || got.Event != tt.want.Event || !bytes.Equal(got.Data, tt.want.Data) {
				t.Errorf("got %+v (data %q), want %+v (data %q)", got, got.Data, tt.want, tt.want.Data)
			}
		})
	}
}

// sseStream mixes every line-end style, comments and keep-alives.
const sseStream = ": stream opened\n\n" +
	"data: one\n\n" +
	"data: two\r\ndata: 2b\r\n\r\n" +
	"data: three\rdata: 3b\r\r" +
	":keep-alive\n\n" +
	": keep-alive\r\n\r\n" +
	"id: 7\nevent: error\ndata: {\"x\":1}\n\n" +
	"data:four\n\n" +
	"event: ping\n\n" +
	"data: five\n\n"

var sseWant = []Event{
	{Data: []byte("one")},
	{Data: []byte("two\n2b")},
	{Data: []byte("three\n3b")},
	{ID: "7", Event: "error", Data: []byte(`{"x":1}`)},
	{Data: []byte("four")},
	{Event: "ping"},
	{Data: []byte("five")},
}

func readAllSSE(t *testing.T, r io.Reader) []Event {
	t.Helper()
	sr := NewReader(r, maxEvent)
	var out []Event
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	}
	for name, wrap := range readers {
		t.Run(name, func(t *testing.T) {
			got := readAllSSE(t, wrap(strings.NewReader(sseStream)))
			if len(got) != len(sseWant) {
				t.Fatalf("got %d events, want %d: %q", len(got), len(sseWant), datas(got))
			}
			for i := range got {
				g, w := got[i], sseWant[i]
				if g.ID != w.ID || g.Event != w.Event || !bytes.Equal(g.Data, w.Data) {
					t.Errorf("event %d: got %+v (data %q), want %+v (data %q)", i, g, g.Data, w, w.Data)
				}
			}
		})
	}
}

// TestSSEReaderLeadingBlankLines: blank lines before the first event and
// between events do not produce events.
func TestSSEReaderLeadingBlankLines(t *testing.T) {
	got := readAllSSE(t, strings.NewReader("\n\n\r\n\r\ndata: a\n\n\n\n\ndata: b\n\n"))
	want := []Event{{Data: []byte("a")}, {Data: []byte("b")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", datas(got), datas(want))
	}
}

// TestSSEReaderNoSmallLimit: an event far above bufio's 64 KiB default.
func TestSSEReaderNoSmallLimit(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	got := readAllSSE(t, strings.NewReader("data: "+big+"\n\ndata: after\n\n"))
	if len(got) != 2 || string(got[0].Data) != big || string(got[1].Data) != "after" {
		t.Fatalf("got %d events", len(got))
	}
}

// TestSharedReaderLends: a reader that shares lends an event of one data
// line whose blank line was read with it, and copies one whose blank line
// comes in a later read (reading it may move the buffer); the events are
// those of a reader that does not share.
func TestSharedReaderLends(t *testing.T) {
	reads := []string{"data: one\n\ndata: two\n", "\ndata: three\nid: 3\n\n", "event: e\ndata: four\n\n"}
	want := []struct {
		data, id, event string
		lent            bool
	}{{"one", "", "", true}, {"two", "", "", false}, {"three", "3", "", false}, {"four", "", "e", true}}
	r := NewReader(&readsOf{reads: slices.Clone(reads)}, maxEvent)
	r.Share()
	for i, w := range want {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if string(ev.Data) != w.data || ev.ID != w.id || ev.Event != w.event || r.Lent() != w.lent {
			t.Errorf("event %d: %q id %q event %q lent %v, want %+v", i, ev.Data, ev.ID, ev.Event, r.Lent(), w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the events: %v", err)
	}
	// Not shared: nothing is lent.
	r = NewReader(&readsOf{reads: slices.Clone(reads)}, maxEvent)
	for range want {
		if _, err := r.Next(); err != nil || r.Lent() {
			t.Fatalf("a reader that does not share lent an event (%v)", err)
		}
	}
}

// readsOf hands out one string per Read.
type readsOf struct{ reads []string }

func (r *readsOf) Read(p []byte) (int, error) {
	if len(r.reads) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.reads[0])
	r.reads[0] = r.reads[0][n:]
	if r.reads[0] == "" {
		r.reads = r.reads[1:]
	}
	return n, nil
}

// datas are the events' data, for messages.
func datas(evs []Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = string(ev.Data)
	}
	return out
}
