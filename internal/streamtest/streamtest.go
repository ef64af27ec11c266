// Package streamtest is test support for the stream readers' tests and
// benchmarks (a2a/sse, a2a/wire, a2a/binding): a typical streamed frame,
// a stream of SSE events made of it, and a reader that hands out bytes as
// a socket does. Only tests import it. No goroutine, no lock.
package streamtest

import (
	"bytes"
	"io"
)

// ArtifactFrame is a typical streamed frame: one appended chunk of answer
// text (a2a-go's 1.0 shape, ids as the SDK mints them).
const ArtifactFrame = `{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"the quick brown fox "}]},"contextId":"chat-zed-1790294944966-qkf93w","taskId":"01a226ff-89a0-7dc8-99a1-a9373f28e621"}}}`

// SSEStream is n copies of frame as SSE events.
func SSEStream(frame string, n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString("data: ")
		b.WriteString(frame)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// SocketReader hands out at most Max bytes of Data per Read, as a socket
// does.
type SocketReader struct {
	Data []byte
	Max  int
}

func (r *SocketReader) Read(p []byte) (int, error) {
	if len(r.Data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.Max, len(r.Data))
	copy(p, r.Data[:n])
	r.Data = r.Data[n:]
	return n, nil
}
