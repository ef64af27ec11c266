package sse

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// TestVoltAgentRecordSeparator: VoltAgent's own A2A server (recorded in
// bridge/testdata/frameworks/voltagent, @voltagent/a2a-server 2.0.3, MIT)
// starts every event's data with U+001E before its JSON (RFC 7464): the
// reader gives the JSON after it, whole, shared or byte by byte, and says
// the separator was there (SPEC §16).
func TestVoltAgentRecordSeparator(t *testing.T) {
	body, err := os.ReadFile("../../bridge/testdata/frameworks/voltagent/04-answer-stream.response.sse")
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(body, []byte("data: \x1e{"))
	if n < 2 {
		t.Fatalf("the capture has %d events starting with U+001E", n)
	}
	for how, evs := range map[string][]Event{
		"whole":        readAllSSE(t, bytes.NewReader(body)),
		"byte by byte": readAllSSE(t, iotest.OneByteReader(bytes.NewReader(body))),
		"shared":       mustShared(t, body),
	} {
		if len(evs) != n {
			t.Fatalf("%s: %d events, want %d", how, len(evs), n)
		}
		for i, ev := range evs {
			if !ev.RecordSeparated || !json.Valid(ev.Data) {
				t.Errorf("%s: event %d (separated %v) is not the JSON after the separator: %q", how, i, ev.RecordSeparated, ev.Data)
			}
		}
	}
}

func mustShared(t *testing.T, body []byte) []Event {
	evs, _ := sharedEvents(t, bytes.NewReader(body), len(body))
	return evs
}

// TestRecordSeparatorOnlyLeading: one leading U+001E is dropped, nothing
// else: a second one, one inside the data or after a first data line
// stays, and an event without one is as it was.
func TestRecordSeparatorOnlyLeading(t *testing.T) {
	got := readAllSSE(t, strings.NewReader("data: \x1e\x1e{}\n\ndata: {\"a\":\"\x1e\"}\n\ndata: x\ndata: \x1ey\n\ndata: {}\n\n"))
	want := []struct {
		data string
		sep  bool
	}{{"\x1e{}", true}, {"{\"a\":\"\x1e\"}", false}, {"x\n\x1ey", false}, {"{}", false}}
	if len(got) != len(want) {
		t.Fatalf("got %q", datas(got))
	}
	for i, w := range want {
		if string(got[i].Data) != w.data || got[i].RecordSeparated != w.sep {
			t.Errorf("event %d: %q (separated %v), want %q (%v)", i, got[i].Data, got[i].RecordSeparated, w.data, w.sep)
		}
	}
}
