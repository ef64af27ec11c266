package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkDecodeFrame decodes the two frames a turn is made of most: an
// appended answer chunk and a working status carrying a tool call.
func BenchmarkDecodeFrame(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"artifactUpdate", benchArtifactFrame},
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

// A typical streamed frame: one appended chunk of answer text (a2a-go's
// 1.0 shape, ids as the SDK mints them).
const benchArtifactFrame = `{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"the quick brown fox "}]},"contextId":"chat-zed-1790294944966-qkf93w","taskId":"01a226ff-89a0-7dc8-99a1-a9373f28e621"}}}`

// A working status announcing a tool call (tool-call-v1 on the status
// message's metadata, protoagent-wire.md §2.4).
const benchToolFrame = `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"01a226ff-89a0-7dc8-99a1-a9373f28e621","contextId":"chat-zed-1790294944966-qkf93w","status":{"state":"TASK_STATE_WORKING","message":{"role":"ROLE_AGENT","messageId":"m-42","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c2","name":"read_file","phase":"started","args":"{\"project\": \"protoAgent\", \"path\": \"server/a2a.py\", \"offset\": 30, \"limit\": 20}"}}}}}}}`

// BenchmarkDecoderFrame decodes the same frames as BenchmarkDecodeFrame
// with one Decoder, as a stream does: its wire values are reused.
func BenchmarkDecoderFrame(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"artifactUpdate", benchArtifactFrame},
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
