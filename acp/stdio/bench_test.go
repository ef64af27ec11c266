package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/acp"
)

// benchChunkSizes are the texts of an update: a streamed token, a 1 KiB
// append, and a large replace suffix.
var benchChunkSizes = []int{16, 1 << 10, 1 << 20}

func benchChunk(n int) acp.SessionNotification {
	return acp.SessionNotification{SessionID: "chat-zed-1790294944966-qkf93w",
		Update: acp.AgentMessageChunk{Content: acp.Text(strings.Repeat("a", n))}}
}

// BenchmarkMarshalChunkUpdate is the update's own encoding: json.Marshal
// of the session/update params.
func BenchmarkMarshalChunkUpdate(b *testing.B) {
	for _, n := range benchChunkSizes {
		v := benchChunk(n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type benchNoHandler struct{}

func (benchNoHandler) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}

// BenchmarkNotifyChunk is what Server.notify costs per update: jsonrpc2's
// Conn.Notify (params marshalled, then the request through its map-based
// MarshalJSON, compacted again by the stream's json.Marshal) and the
// stdio stream's newline-terminated write, to io.Discard.
func BenchmarkNotifyChunk(b *testing.B) {
	pr, pw := io.Pipe()
	defer pw.Close()
	stream := newStream(pr, io.Discard, slog.New(slog.DiscardHandler), lineMaxBytes)
	conn := jsonrpc2.NewConn(context.Background(), stream, benchNoHandler{})
	defer conn.Close()
	for _, n := range benchChunkSizes {
		v := benchChunk(n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := conn.Notify(context.Background(), acp.MethodSessionUpdate, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNotifyChunkDirect measures how shim writes a session/update:
// the stream's notify, one encoding pass between a fixed prefix and suffix
// (jsonrpc2's Notify, above, marshals the params four times over). It
// first checks that the line means what jsonrpc2 writes.
func BenchmarkNotifyChunkDirect(b *testing.B) {
	sample := acp.SessionNotification{SessionID: "s-1", Update: acp.AgentMessageChunk{Content: acp.Text("<b>a & b</b>\n\"quoted\" \u2028 é")}}
	var viaConn, viaDirect bytes.Buffer
	pr, pw := io.Pipe()
	vs := newStream(pr, &viaConn, slog.New(slog.DiscardHandler), lineMaxBytes)
	conn := jsonrpc2.NewConn(context.Background(), vs, benchNoHandler{})
	if err := conn.Notify(context.Background(), acp.MethodSessionUpdate, sample); err != nil {
		b.Fatal(err)
	}
	vs.flushClose()
	conn.Close()
	pw.Close()
	direct := newStream(bytes.NewReader(nil), &viaDirect, slog.New(slog.DiscardHandler), lineMaxBytes)
	if err := direct.notify(acp.MethodSessionUpdate, sample); err != nil {
		b.Fatal(err)
	}
	direct.flushClose()
	var a, c any
	if json.Unmarshal(viaConn.Bytes(), &a) != nil || json.Unmarshal(viaDirect.Bytes(), &c) != nil || !reflect.DeepEqual(a, c) {
		b.Fatalf("jsonrpc2 wrote\n%s\nnotify wrote\n%s", viaConn.String(), viaDirect.String())
	}

	stream := newStream(bytes.NewReader(nil), io.Discard, slog.New(slog.DiscardHandler), lineMaxBytes)
	defer stream.Close()
	for _, n := range benchChunkSizes {
		v := benchChunk(n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := stream.notify(acp.MethodSessionUpdate, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTextChunk is how an artifact's text chunk is queued
// (Conn.SendText then Pace: the line written around the escaped text, no
// reflection), to io.Discard.
func BenchmarkTextChunk(b *testing.B) {
	stream := newStream(bytes.NewReader(nil), io.Discard, slog.New(slog.DiscardHandler), lineMaxBytes)
	defer stream.Close()
	for _, n := range benchChunkSizes {
		s := strings.Repeat("a", n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := stream.out.appendText("chat-zed-1790294944966-qkf93w", "answer", s); err != nil {
					b.Fatal(err)
				}
				if err := stream.out.waitRoom(); err != nil { // Conn.Pace, as a turn does
					b.Fatal(err)
				}
			}
		})
	}
}

// replayUpdates are the three updates a replayed turn of make bench's
// thread shows: the user's text, a tool call in its final state, the
// answer.
var replayUpdates = []acp.Update{
	acp.UserMessageChunk{MessageID: "t1/user-0", Content: acp.Text("Question 1: what does the README say about building?")},
	acp.ToolCall{ToolCallID: "c1", Title: "Read README.md", Kind: acp.ToolKindRead, Status: acp.ToolCompleted,
		Content:   []acp.ToolCallContent{acp.Content{Content: acp.Text("# Project\nhello\n")}},
		Locations: []acp.Location{{Path: "/home/p/README.md"}}, RawInput: json.RawMessage(`{"project": "p", "path": "README.md", "offset": 3}`),
		RawOutput: json.RawMessage(`"# Project\nhello\n"`)},
	acp.AgentMessageChunk{MessageID: "t1/t1-answer", Content: acp.Text("Turn 1: the README says hello. It explains how to build the project, run its tests and " +
		"where the configuration lives; the function you asked about is in src/main.go line 2.")},
}

// BenchmarkSendReplay is what a replayed turn's updates cost to queue
// (Conn.Send then Pace, as session/load does), to io.Discard.
func BenchmarkSendReplay(b *testing.B) {
	c := NewConn(bytes.NewReader(nil), io.Discard, slog.New(slog.DiscardHandler))
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range replayUpdates {
			if err := c.Notify("chat-zed-1790294944966-qkf93w", u); err != nil {
				b.Fatal(err)
			}
		}
	}
}
