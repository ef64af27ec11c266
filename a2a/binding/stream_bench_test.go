package binding

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/streamtest"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire"
)

// jsonFrames reads JSON-RPC frames (package jsonrpc's, which imports this
// one).
type jsonFrames struct{ dec wire.Decoder }

func (f *jsonFrames) Event(data []byte) (a2a.Event, error) { return f.dec.Frame(data) }
func (*jsonFrames) Failure(data []byte) error              { return wire.ErrorFrame(data) }
func (f *jsonFrames) Share()                               { f.dec.Share() }
func (*jsonFrames) KeepsNothing()                          {}

// benchChunkStream is n appended answer chunks of streamtest.ArtifactFrame's
// shape, each with a text of its own, as SSE events.
func benchChunkStream(n int) []byte {
	words := strings.Fields("the quick brown fox jumps over a lazy dog , and then it runs back home again .")
	var b bytes.Buffer
	for i := range n {
		b.WriteString("data: ")
		b.WriteString(strings.Replace(streamtest.ArtifactFrame, "the quick brown fox ", words[i%len(words)]+" "+strconv.Itoa(i)+" ", 1))
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// BenchmarkStreamChunks reads a stream of appended answer chunks the way a
// turn does (one op = one event): the SSE reader, then the frame's decode
// into an event. Its chunks are one frame repeated (which proves no
// shortcut: each is decoded); BenchmarkStreamChunksVaried's each have a
// text of their own, as a model's.
func BenchmarkStreamChunks(b *testing.B) {
	benchStreamChunks(b, streamtest.SSEStream(streamtest.ArtifactFrame, 4096))
}

// BenchmarkStreamChunksVaried reads chunks of one shape, each with a text
// of its own: after the second, each is given without a decode
// (repeat.go).
func BenchmarkStreamChunksVaried(b *testing.B) {
	benchStreamChunks(b, benchChunkStream(4096))
}

// BenchmarkStreamChunksNewShapes reads chunks that never repeat their
// frames (a context id of its own in each): what the shortcut costs a
// stream it never serves.
func BenchmarkStreamChunksNewShapes(b *testing.B) {
	var stream bytes.Buffer
	for i := range 4096 {
		stream.WriteString("data: ")
		stream.WriteString(strings.Replace(streamtest.ArtifactFrame, "qkf93w", strconv.Itoa(100000+i), 1))
		stream.WriteString("\n\n")
	}
	benchStreamChunks(b, stream.Bytes())
}

func benchStreamChunks(b *testing.B, stream []byte) {
	const frames = 4096
	b.SetBytes(int64(len(stream) / frames))
	b.ReportAllocs()
	open := func() *Stream {
		c := New(Options{})
		s := c.newStream(context.Background(), "SendStreamingMessage", &jsonFrames{})
		s.attach(io.NopCloser(&streamtest.SocketReader{Data: stream, Max: 64 << 10}))
		s.Share() // as a turn reads
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
		if err != nil || ev.Kind != a2a.EventArtifact {
			b.Fatalf("event %d: %v", i, err)
		}
	}
}

// TestStreamShare: a stream told to share tells its frames, whose decoder
// then reads a chunk into an artifact of its own; one not told gives each
// event its own artifact.
func TestStreamShare(t *testing.T) {
	stream := streamtest.SSEStream(streamtest.ArtifactFrame, 2)
	for _, share := range []bool{false, true} {
		s := New(Options{}).newStream(context.Background(), "SendStreamingMessage", &jsonFrames{})
		s.attach(io.NopCloser(&streamtest.SocketReader{Data: stream, Max: 64 << 10}))
		if share {
			s.Share()
		}
		a, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if (a.Artifact == b.Artifact) != share {
			t.Errorf("shared %v: the two chunks' artifacts are one: %v", share, a.Artifact == b.Artifact)
		}
	}
}
