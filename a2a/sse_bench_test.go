package a2a

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// A typical streamed frame: one appended chunk of answer text (a2a-go's
// 1.0 shape, ids as the SDK mints them).
const benchArtifactFrame = `{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"the quick brown fox "}]},"contextId":"chat-zed-1790294944966-qkf93w","taskId":"01a226ff-89a0-7dc8-99a1-a9373f28e621"}}}`

// A working status announcing a tool call (tool-call-v1 on the status
// message's metadata, protoagent-wire.md §2.4).
const benchToolFrame = `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"01a226ff-89a0-7dc8-99a1-a9373f28e621","contextId":"chat-zed-1790294944966-qkf93w","status":{"state":"TASK_STATE_WORKING","message":{"role":"ROLE_AGENT","messageId":"m-42","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c2","name":"read_file","phase":"started","args":"{\"project\": \"protoAgent\", \"path\": \"server/a2a.py\", \"offset\": 30, \"limit\": 20}"}}}}}}}`

// benchSSEStream is n copies of frame as SSE events.
func benchSSEStream(frame string, n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString("data: ")
		b.WriteString(frame)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// socketReader hands out at most max bytes per Read, as a socket does.
type socketReader struct {
	data []byte
	max  int
}

func (r *socketReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.max, len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// BenchmarkSSEReader reads small events (one op = one event) through
// newSSEReader over a stream of many frames.
func BenchmarkSSEReader(b *testing.B) {
	const frames = 4096
	stream := benchSSEStream(benchArtifactFrame, frames)
	b.SetBytes(int64(len(stream) / frames))
	b.ReportAllocs()
	r := newSSEReader(bytes.NewReader(stream), maxEventSize)
	for i := 0; i < b.N; i++ {
		ev, err := r.Next()
		if err == io.EOF {
			b.StopTimer()
			r = newSSEReader(bytes.NewReader(stream), maxEventSize)
			b.StartTimer()
			ev, err = r.Next()
		}
		if err != nil || len(ev.Data) == 0 {
			b.Fatalf("event %d: %v", i, err)
		}
	}
}

// BenchmarkSSELinesRaw is the floor the reader is compared with: the same
// stream split into lines by bufio, nothing parsed.
func BenchmarkSSELinesRaw(b *testing.B) {
	const frames = 4096
	stream := benchSSEStream(benchArtifactFrame, frames)
	b.SetBytes(int64(len(stream) / frames))
	b.ReportAllocs()
	br := bufio.NewReaderSize(bytes.NewReader(stream), 64<<10)
	for i := 0; i < b.N; i++ {
		for {
			line, err := br.ReadSlice('\n')
			if err == io.EOF {
				b.StopTimer()
				br.Reset(bytes.NewReader(stream))
				b.StartTimer()
				continue
			}
			if bytes.HasPrefix(line, []byte("data:")) {
				break
			}
		}
	}
}

// BenchmarkSSEReaderLargeFrame reads one event of S bytes (a final full
// replace of an S-byte answer) arriving 64 KiB per Read. MB/s falling as S
// grows, and B/op a multiple of S, are what the frame costs.
func BenchmarkSSEReaderLargeFrame(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20, 8 << 20, 32 << 20} {
		text := strings.Repeat("x", size)
		frame := `{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"artifact":{"artifactId":"answer","parts":[{"text":"` + text + `"}]},"lastChunk":true}}}`
		stream := []byte("data: " + frame + "\n\n")
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := newSSEReader(&socketReader{data: stream, max: 64 << 10}, maxEventSize)
				ev, err := r.Next()
				if err != nil || len(ev.Data) != len(frame) {
					b.Fatalf("got %d bytes, %v", len(ev.Data), err)
				}
			}
		})
	}
}

// BenchmarkStreamChunks reads a stream of appended answer chunks the way a
// turn does (one op = one event): the SSE reader, then the frame's decode
// into an event.
func BenchmarkStreamChunks(b *testing.B) {
	const frames = 4096
	stream := benchSSEStream(benchArtifactFrame, frames)
	b.SetBytes(int64(len(stream) / frames))
	b.ReportAllocs()
	open := func() *Stream {
		c := &conn{log: slog.New(slog.DiscardHandler), eventMax: maxEventSize}
		s := c.newStream(context.Background(), "SendStreamingMessage", &jsonrpcTransport{conn: c})
		s.attach(io.NopCloser(&socketReader{data: stream, max: 64 << 10}))
		return s
	}
	s := open()
	for i := 0; i < b.N; i++ {
		ev, err := s.Next()
		if err == io.EOF {
			b.StopTimer()
			s = open()
			b.StartTimer()
			ev, err = s.Next()
		}
		if err != nil || ev.Kind != EventArtifact {
			b.Fatalf("event %d: %v", i, err)
		}
	}
}
