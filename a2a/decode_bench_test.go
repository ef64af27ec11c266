package a2a

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
