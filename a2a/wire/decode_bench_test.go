package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/streamtest"
)

// BenchmarkDecodeFrame decodes the two frames a turn is made of most: an
// appended answer chunk and a working status carrying a tool call.
func BenchmarkDecodeFrame(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"artifactUpdate", streamtest.ArtifactFrame},
		{"statusUpdateToolCall", benchToolFrame},
	} {
		data := []byte(c.frame)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ev, err := DecodeFrame(data)
				if err != nil || ev.Kind == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeToolCalls adds what the turn driver then reads of the
// status frame: its tool calls.
func BenchmarkDecodeToolCalls(b *testing.B) {
	data := []byte(benchToolFrame)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ev, err := DecodeFrame(data)
		if err != nil {
			b.Fatal(err)
		}
		if len(ev.Status.Message.ToolCalls()) != 1 {
			b.Fatal("no tool call")
		}
	}
}

// largeFrame is the full replace of an answer of about size bytes:
// printable lines of 1 KiB, each ending in a newline (escaped in JSON, as
// real answers are), in one artifact frame.
func largeFrame(size int) []byte {
	line := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 23)[:1023] + "\n"
	text := strings.Repeat(line, size/len(line))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"artifactUpdate": map[string]any{
		"taskId": "t1", "contextId": "ctx-1", "lastChunk": true,
		"artifact": map[string]any{"artifactId": "answer", "parts": []any{map[string]any{"text": text}}}}}})
	return b
}

// BenchmarkDecodeLargeFrame decodes one 60 MiB frame (SPEC §13's bound is
// 64 MiB): B/op is what decoding it costs on top of the frame itself.
func BenchmarkDecodeLargeFrame(b *testing.B) {
	data := largeFrame(60 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ev, err := DecodeFrame(data)
		if err != nil || len(ev.Artifact.Parts[0].Text) < 60<<20-1024 {
			b.Fatal(err)
		}
	}
}

// A working status announcing a tool call (tool-call-v1 on the status
// message's metadata, protoagent-wire.md §2.4).
const benchToolFrame = `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"01a226ff-89a0-7dc8-99a1-a9373f28e621","contextId":"chat-zed-1790294944966-qkf93w","status":{"state":"TASK_STATE_WORKING","message":{"role":"ROLE_AGENT","messageId":"m-42","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c2","name":"read_file","phase":"started","args":"{\"project\": \"protoAgent\", \"path\": \"server/a2a.py\", \"offset\": 30, \"limit\": 20}"}}}}}}}`

// BenchmarkDecoderFrame decodes the same frames as BenchmarkDecodeFrame
// with one Decoder, as a stream does: its wire values are reused.
func BenchmarkDecoderFrame(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"artifactUpdate", streamtest.ArtifactFrame},
		{"statusUpdateToolCall", benchToolFrame},
	} {
		data := []byte(c.frame)
		b.Run(c.name, func(b *testing.B) {
			var d Decoder
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				ev, err := d.Frame(data)
				if err != nil || ev.Kind == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHistoryTurns reads 1,000 turns of a thread's history as the
// operator API gives them (bench/internal/benchagent's shape: a user question, a
// tool call started and completed in message metadata, the answer), as
// operator.Turns does: decoded, then each message and artifact modelled.
func BenchmarkHistoryTurns(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"turns":[`)
	for i := range 1000 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"task_id":"t%d","state":"TASK_STATE_COMPLETED","last_updated":"2026-09-24T10:00:00","text":"Turn %d.","status":{"state":"TASK_STATE_COMPLETED"},`+
			`"artifacts":[{"artifactId":"t%d-answer","parts":[{"text":"Turn %d: the README says hello."}]}],"history":[`+
			`{"role":"ROLE_USER","parts":[{"text":"Question %d: what does the README say about building?"}]},`+
			`{"role":"ROLE_AGENT","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c%d","name":"read_file","phase":"started","args":"{\"project\": \"p\", \"path\": \"README.md\", \"offset\": 3}"}}},`+
			`{"role":"ROLE_AGENT","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c%d","name":"read_file","phase":"completed","result":"# Project\nhello\n"}}}]}`,
			i, i, i, i, i, i, i)
	}
	body.WriteString(`]}`)
	data := []byte(body.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var r struct {
			Turns []struct {
				Status    *Status     `json:"status"`
				Artifacts []*Artifact `json:"artifacts"`
				History   []*Message  `json:"history"`
			} `json:"turns"`
		}
		if err := Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
		calls := 0
		for _, t := range r.Turns {
			_ = t.Status.Model()
			for _, a := range t.Artifacts {
				_ = a.Model()
			}
			for _, m := range t.History {
				calls += len(m.AsMessage().ToolCalls())
			}
		}
		if calls != 2000 {
			b.Fatalf("%d tool calls", calls)
		}
	}
}
