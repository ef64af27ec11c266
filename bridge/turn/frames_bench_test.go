package turn

import (
	"bytes"
	"io"
	"log/slog"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/toolpath"
)

// BenchmarkFrameChunk is a streamed answer chunk (an appended one-part
// text artifact, as a turn reads it from a stream) through an attached
// turn: the task check, the renderer, and the ACP output queue (to
// io.Discard), as driver.consume does it for each event (one op = one
// chunk).
func BenchmarkFrameChunk(b *testing.B) {
	conn := stdio.NewConn(bytes.NewReader(nil), io.Discard, slog.New(slog.DiscardHandler))
	defer conn.Close()
	t, _, _ := testTurn(0)
	var threads history.Threads
	t.env.Conn, t.env.Shown = conn, threads.Of("s1")
	r := render.New("agent", toolpath.RootsOf(nil, "/w", nil), render.Draws{})
	d := newDriver(t.ctx, t.env, t.sess, t.ctl, &steers{env: t.env, sess: t.sess, ctl: t.ctl, r: r}, r, a2a.OutMessage{}, "")
	art := &a2a.Artifact{ID: "answer", Name: "answer", Parts: []a2a.Part{{Kind: a2a.PartText, Text: "the quick brown fox "}}}
	ev := a2a.Event{Kind: a2a.EventArtifact, TaskID: "01a226ff-89a0-7dc8-99a1-a9373f28e621", ContextID: "s1", Artifact: art, Append: true}
	b.ReportAllocs()
	for b.Loop() {
		if !d.mine(&ev) {
			b.Fatal("the chunk is not the turn's")
		}
		if _, done := d.frame(&ev); done {
			b.Fatal("a chunk ended the turn")
		}
	}
}
