package transport

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/shimdev/shim/a2a/wire"
)

func chunkFrame(task, text string, appendMode bool) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"artifactUpdate": map[string]any{
		"taskId": task, "contextId": "ctx-1", "append": appendMode,
		"artifact": map[string]any{"artifactId": "answer", "parts": []any{map[string]any{"text": text}}}}}})
	return b
}

// TestFrameDecoderShape: after one chunk frame is decoded in full, frames
// of the same shape are read from their text alone, and give the events a
// full decode gives; a frame of another task, or an escaped quote that
// would end the text early, is decoded in full.
func TestFrameDecoderShape(t *testing.T) {
	d := shapeDecoder{full: wire.DecodeFrame}
	frames := [][]byte{
		chunkFrame("t1", "Hello", false),
		chunkFrame("t1", ", world", true), // append flips: another shape
		chunkFrame("t1", " and \"more\" é\n", true),
		chunkFrame("t1", "", true),
		chunkFrame("t2", "other task", true),
		chunkFrame("t2", "then", true),
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","parts":[{"text":"x"}]},"contextId":"ctx-1","taskId":"t2"}}}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","parts":[{"text":"x","text":"y"}]},"contextId":"ctx-1","taskId":"t2"}}}`),
	}
	for i, f := range frames {
		got, err := d.decode(f)
		want, werr := wire.DecodeFrame(f)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("frame %d: got %+v (%v), want %+v (%v)", i, got, err, want, werr)
		}
	}
	// Frames 3 and 4 (same shape as 2) and 6 (same as 5) were not decoded.
	if d.hits != 3 {
		t.Errorf("%d frames read by their shape, want 3", d.hits)
	}
}

// TestFrameDecoderDuplicateText: a shape whose text is overridden by a
// later key is never learned (its probe would not show).
func TestFrameDecoderDuplicateText(t *testing.T) {
	d := shapeDecoder{full: wire.DecodeFrame}
	f := func(s string) []byte {
		return []byte(`{"result":{"artifactUpdate":{"taskId":"t","artifact":{"parts":[{"text":"` + s + `","text":"fixed"}]}}}}`)
	}
	for _, s := range []string{"a", "b", "c", "d"} {
		ev, err := d.decode(f(s))
		if err != nil || ev.Artifact.Parts[0].Text != "fixed" {
			t.Fatalf("%s: %+v %v", s, ev, err)
		}
	}
	if d.hits != 0 {
		t.Errorf("%d frames read by a shape that does not hold", d.hits)
	}
}

// TestFrameDecoderBacksOff: frames that never repeat a shape (a sequence
// number before the text) are learned from less and less often.
func TestFrameDecoderBacksOff(t *testing.T) {
	d := shapeDecoder{full: wire.DecodeFrame}
	for i := range 1000 {
		f := []byte(fmt.Sprintf(`{"result":{"artifactUpdate":{"taskId":"t","metadata":{"seq":%d},"artifact":{"parts":[{"text":"c%d"}]}}}}`, i, i))
		if _, err := d.decode(f); err != nil {
			t.Fatal(err)
		}
	}
	if d.learns > 12 {
		t.Errorf("%d learning attempts for 1000 frames of changing shape", d.learns)
	}
}

// FuzzFrameDecoderLikeEncodingJSON: a frame, then the frame with one span
// replaced (what a next chunk looks like), then the first again, through
// one shapeDecoder: each event is what encoding/json decodes.
func FuzzFrameDecoderLikeEncodingJSON(f *testing.F) {
	for _, in := range [][]byte{chunkFrame("t1", "Hello", false), chunkFrame("t2", " and \"more\" é\n", true)} {
		f.Add(in, uint16(len(in)/2), uint16(len(in)/2+3), []byte("new text"))
	}
	f.Add(chunkFrame("t1", "Hello", true), uint16(100), uint16(105), []byte(`\"`))
	f.Fuzz(func(t *testing.T, a []byte, i, j uint16, ins []byte) {
		lo, hi := min(int(i), len(a)), min(int(j), len(a))
		if lo > hi {
			lo, hi = hi, lo
		}
		b := slices.Concat(a[:lo], ins, a[hi:])
		d := shapeDecoder{full: wire.DecodeFrame}
		for _, in := range [][]byte{a, b, a, b} {
			got, err := d.decode(in)
			want, werr := wire.DecodeFrame(in)
			if werr != nil {
				continue
			}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q:\ngot  %+v (%v)\nwant %+v", in, got, err, want)
			}
		}
	})
}

// BenchmarkFrameDecoderChunk is a streamed text chunk once its stream's
// shape is learned: what Stream.Next pays per chunk.
func BenchmarkFrameDecoderChunk(b *testing.B) {
	d := shapeDecoder{full: wire.DecodeFrame}
	if _, err := d.decode(chunkFrame("task-1a2b3c", "chunk 0 ", true)); err != nil {
		b.Fatal(err)
	}
	frame := chunkFrame("task-1a2b3c", "chunk 12345 ", true)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.decode(frame); err != nil {
			b.Fatal(err)
		}
	}
	if d.hits == 0 {
		b.Fatal("the shape was not used")
	}
}
