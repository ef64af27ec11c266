package sse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/streamtest"
)

// BenchmarkSSEReader reads small events (one op = one event) through
// NewReader over a stream of many frames.
func BenchmarkSSEReader(b *testing.B) {
	const frames = 4096
	stream := streamtest.SSEStream(streamtest.ArtifactFrame, frames)
	b.SetBytes(int64(len(stream) / frames))
	b.ReportAllocs()
	r := NewReader(bytes.NewReader(stream), maxEvent)
	for i := 0; i < b.N; i++ {
		ev, err := r.Next()
		if err == io.EOF {
			b.StopTimer()
			r = NewReader(bytes.NewReader(stream), maxEvent)
			b.StartTimer()
			ev, err = r.Next()
		}
		if err != nil || len(ev.Data) == 0 {
			b.Fatalf("event %d: %v", i, err)
		}
	}
}

// BenchmarkSSEReaderShared is BenchmarkSSEReader through a reader that
// shares (Reader.Share): an event lent in place costs no copy.
func BenchmarkSSEReaderShared(b *testing.B) {
	const frames = 4096
	stream := streamtest.SSEStream(streamtest.ArtifactFrame, frames)
	b.SetBytes(int64(len(stream) / frames))
	b.ReportAllocs()
	open := func() *Reader {
		r := NewReader(&streamtest.SocketReader{Data: stream, Max: 64 << 10}, maxEvent)
		r.Share()
		return r
	}
	r := open()
	for i := 0; i < b.N; i++ {
		ev, err := r.Next()
		if err == io.EOF {
			b.StopTimer()
			r = open()
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
	stream := streamtest.SSEStream(streamtest.ArtifactFrame, frames)
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
				r := NewReader(&streamtest.SocketReader{Data: stream, Max: 64 << 10}, maxEvent)
				ev, err := r.Next()
				if err != nil || len(ev.Data) != len(frame) {
					b.Fatalf("got %d bytes, %v", len(ev.Data), err)
				}
			}
		})
	}
}
