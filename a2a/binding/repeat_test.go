package binding

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/shimdev/shim/internal/streamtest"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire"
)

// countedFrames are in-place frames of one dialect (a wire.Decoder
// method) that count the frames they decode.
type countedFrames struct {
	dec     wire.Decoder
	decode  func(*wire.Decoder, []byte) (a2a.Event, error)
	decodes int
}

func (f *countedFrames) Event(data []byte) (a2a.Event, error) {
	f.decodes++
	return f.decode(&f.dec, data)
}
func (*countedFrames) Failure(data []byte) error { return wire.ErrorFrame(data) }
func (f *countedFrames) Share()                  { f.dec.Share() }
func (*countedFrames) KeepsNothing()             {}

// The dialects' frame decoders.
var frameDecoders = map[string]func(*wire.Decoder, []byte) (a2a.Event, error){
	"jsonrpc":    (*wire.Decoder).Frame,
	"rest":       (*wire.Decoder).RESTFrame,
	"rest-0.3":   (*wire.Decoder).RESTFrameProto03,
	"jsonrpc-03": (*wire.Decoder).Frame,
}

// keptEvent is ev as a reader keeps it past the next Next: its artifact
// and its parts copied, their texts too.
func keptEvent(ev a2a.Event) a2a.Event {
	if ev.Artifact != nil {
		a := *ev.Artifact
		a.Parts = slices.Clone(a.Parts)
		for i := range a.Parts {
			a.Parts[i].Text = strings.Clone(a.Parts[i].Text)
		}
		ev.Artifact = &a
	}
	return ev
}

// streamResult is what a stream gave: its events and errors, in order,
// and for each whether it was given without a decode.
type streamResult struct {
	events []a2a.Event
	errs   []error
	given  []bool
}

// readRepeat reads frames as SSE events arriving n bytes per read through
// a stream that shares (frames read in place), decoded by decode.
func readRepeat(t testing.TB, frames [][]byte, n int, decode func(*wire.Decoder, []byte) (a2a.Event, error)) streamResult {
	t.Helper()
	var b bytes.Buffer
	for _, f := range frames {
		b.WriteString("data: ")
		b.Write(f)
		b.WriteString("\n\n")
	}
	cf := &countedFrames{decode: decode}
	s := New(Options{}).newStream(context.Background(), "SendStreamingMessage", cf)
	s.attach(io.NopCloser(&streamtest.SocketReader{Data: b.Bytes(), Max: n}))
	s.Share()
	var out streamResult
	for range len(frames) + 1 {
		before := cf.decodes
		ev, err := s.Next()
		var rpc *a2a.RPCError
		if err != nil && !errors.As(err, &rpc) {
			return out
		}
		out.events, out.errs, out.given = append(out.events, keptEvent(ev)), append(out.errs, err), append(out.given, cf.decodes == before)
	}
	t.Fatalf("more events than frames")
	return out
}

// decodedAlone is what each frame gives decoded alone by a decoder of its
// own (the frames a stream skips left out).
func decodedAlone(frames [][]byte, decode func(*wire.Decoder, []byte) (a2a.Event, error)) (events []a2a.Event, errs []error) {
	for _, f := range frames {
		if len(f) == 0 {
			continue
		}
		ev, err := decode(new(wire.Decoder), f)
		if _, skipped := err.(*a2a.DecodeError); skipped {
			continue
		}
		events, errs = append(events, ev), append(errs, err)
	}
	return events, errs
}

// sameAsAlone fails when a stream that shares does not give what each
// frame gives alone, whatever the size of its reads (each of reads).
func sameAsAlone(t testing.TB, frames [][]byte, decode func(*wire.Decoder, []byte) (a2a.Event, error), reads ...int) streamResult {
	t.Helper()
	want, wantErrs := decodedAlone(frames, decode)
	var first streamResult
	for i, n := range reads {
		got := readRepeat(t, frames, n, decode)
		if i == 0 {
			first = got
		}
		if len(got.events) != len(want) {
			t.Fatalf("reads of %d: %d events, want %d (%q)", n, len(got.events), len(want), frames)
		}
		for j := range want {
			if !reflect.DeepEqual(got.events[j], want[j]) || !reflect.DeepEqual(got.errs[j], wantErrs[j]) {
				t.Fatalf("reads of %d, event %d (given without a decode: %v):\n got %+v %+v (%v)\nwant %+v %+v (%v)\nframes %q",
					n, j, got.given[j], got.events[j], got.events[j].Artifact, got.errs[j], want[j], want[j].Artifact, wantErrs[j], frames)
			}
		}
	}
	return first
}

// chunkFrames are the frames of template (a frame with %s where the
// text goes) with each of texts.
func chunkFrames(template string, texts ...string) [][]byte {
	var out [][]byte
	for _, text := range texts {
		out = append(out, []byte(strings.ReplaceAll(template, "%s", text)))
	}
	return out
}

const (
	rpcChunk   = `{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"%s"}]},"contextId":"ctx-1","taskId":"task-1"}}}`
	rpc03Chunk = `{"id":"r1","jsonrpc":"2.0","result":{"kind":"artifact-update","taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"answer","parts":[{"kind":"text","text":"%s"}],"name":"answer"},"append":true,"lastChunk":false}}`
	restChunk  = `{"artifactUpdate":{"taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"answer","parts":[{"text":"%s"}]},"append":true}}`
	rest03     = `{"artifact_update":{"task_id":"task-1","context_id":"ctx-1","artifact":{"artifact_id":"answer","parts":[{"text":"%s"}]},"append":true}}`
)

// TestRepeatShortcut: a plain chunk whose frame repeats the last one's
// bytes but for its text is given without a decode once the text's place
// is proven (the next frame of the shape with another text proves it); any
// other frame is decoded (a
// frame skipped is decoded in the Next that gives the event after it).
// Every event is what its frame gives decoded alone.
func TestRepeatShortcut(t *testing.T) {
	jsonrpc := frameDecoders["jsonrpc"]
	cases := []struct {
		name   string
		decode string
		frames [][]byte
		given  []bool
	}{
		{"JSON-RPC 1.0", "jsonrpc", chunkFrames(rpcChunk, "one ", "two ", "three ", "four é "), []bool{false, false, true, true}},
		{"JSON-RPC 0.3", "jsonrpc-03", chunkFrames(rpc03Chunk, "one ", "two ", "three ", "four "), []bool{false, false, true, true}},
		{"HTTP+JSON 1.0", "rest", chunkFrames(restChunk, "one ", "two ", "three ", "four "), []bool{false, false, true, true}},
		{"HTTP+JSON 0.3 proto", "rest-0.3", chunkFrames(rest03, "one ", "two ", "three ", "four "), []bool{false, false, true, true}},
		{"the same frame proves nothing", "jsonrpc", chunkFrames(rpcChunk, "same", "same", "same", "other", "more"), []bool{false, false, false, false, true}},
		{"escapes in a text", "jsonrpc", chunkFrames(rpcChunk, "one", "two", `a\nb`, `\"q\"`, `\u00e9`, "three"), []bool{false, false, false, false, false, true}},
		{"escapes in every text", "jsonrpc", chunkFrames(rpcChunk, `a\n`, `b\n`, `c\n`, `d\n`), []bool{false, false, false, false}},
		{"a text not UTF-8", "jsonrpc", chunkFrames(rpcChunk, "one", "two", "\xff", "three"), []bool{false, false, false, true}},
		{"a control byte", "jsonrpc", chunkFrames(rpcChunk, "one", "two", "a\x01b", "three", "four"), []bool{false, false, false, true}},
		{"an empty text", "jsonrpc", chunkFrames(rpcChunk, "", "", "", "x", "y", ""), []bool{false, false, false, false, false, false}},
		{"a changed id", "jsonrpc", append(chunkFrames(rpcChunk, "one", "two", "three"),
			chunkFrames(strings.Replace(rpcChunk, "task-1", "task-2", 1), "four", "five", "six")...), []bool{false, false, true, false, false, true}},
		{"a changed append", "jsonrpc", append(chunkFrames(rpcChunk, "one", "two", "three"),
			chunkFrames(strings.Replace(rpcChunk, `"append":true`, `"append":false`, 1), "four")...), []bool{false, false, true, false}},
		{"lastChunk", "jsonrpc-03", append(chunkFrames(rpc03Chunk, "one", "two", "three"),
			chunkFrames(strings.Replace(rpc03Chunk, `"lastChunk":false`, `"lastChunk":true`, 1), "four")...), []bool{false, false, true, false}},
		{"metadata", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"name":"answer"`, `"name":"answer","metadata":{"k":"v"}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a part's metadata", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"%s"}`, `"%s","metadata":{"k":"v"}}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"two parts", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `{"text":"%s"}`, `{"text":"%s"},{"text":"%s"}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a TEXT key", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"text"`, `"TEXT"`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a TEXT key after the text", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"%s"}`, `"%s","TEXT":"one"}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a Text key before the text", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `{"text":"%s"}`, `{"Text":"x","text":"%s"}`, 1), "one", "two", "three"), []bool{false, false, true}},
		{"a duplicate key", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"%s"}`, `"%s","text":"%s"}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a duplicate key holding the first text", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"%s"}`, `"%s","text":"one"}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"an ignored object holding the text", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `{"text":"%s"}`, `{"text": "one"}],"x":[{"text":"%s"}`, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a text spaced from its key", "jsonrpc", chunkFrames(strings.Replace(rpcChunk, `"text":`, `"text": `, 1), "one", "two", "three"), []bool{false, false, false}},
		{"a status between", "jsonrpc", append(append(chunkFrames(rpcChunk, "one", "two"),
			[]byte(`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING"}}}}`)),
			chunkFrames(rpcChunk, "three", "four")...), []bool{false, false, false, true, true}},
		{"not JSON between", "jsonrpc", append(append(chunkFrames(rpcChunk, "one", "two"), []byte("not json")), chunkFrames(rpcChunk, "three", "four")...), []bool{false, false, false, true}},
		{"an error frame between", "jsonrpc", append(append(chunkFrames(rpcChunk, "one", "two"),
			[]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone"}}`)), chunkFrames(rpcChunk, "three")...), []bool{false, false, false, true}},
		{"a frame longer by its text", "jsonrpc", chunkFrames(rpcChunk, "one", "two", strings.Repeat("long ", 2000)), []bool{false, false, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			decode := frameDecoders[c.decode]
			if decode == nil {
				decode = jsonrpc
			}
			got := sameAsAlone(t, c.frames, decode, 64<<10, 97, 7)
			if !slices.Equal(got.given, c.given) {
				t.Errorf("given without a decode: %v, want %v", got.given, c.given)
			}
		})
	}
}

// TestRepeatIDsKept: the ids of a chunk given without a decode are the
// stream's copies, not the frame's bytes (which the next read writes over).
func TestRepeatIDsKept(t *testing.T) {
	frames := chunkFrames(rpcChunk, "one", "two", "three")
	var b bytes.Buffer
	for _, f := range frames {
		b.WriteString("data: " + string(f) + "\n\n")
	}
	s := New(Options{}).newStream(context.Background(), "SendStreamingMessage", &jsonFrames{})
	s.attach(io.NopCloser(&streamtest.SocketReader{Data: b.Bytes(), Max: 64 << 10}))
	s.Share()
	for range 2 {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := s.Next()
	if err != nil || ev.Artifact != &s.rep.out {
		t.Fatalf("the third chunk was decoded: %v", err)
	}
	for _, id := range []struct{ got, kept string }{{ev.TaskID, s.ids.task.s}, {ev.ContextID, s.ids.context.s}, {ev.Artifact.ID, s.ids.artifact.s}, {ev.Artifact.Name, s.ids.name.s}} {
		if unsafe.StringData(id.got) != unsafe.StringData(id.kept) {
			t.Errorf("id %q is not the stream's copy", id.got)
		}
	}
	if ev.TaskID != "task-1" || ev.ContextID != "ctx-1" || ev.Artifact.ID != "answer" || ev.Artifact.Parts[0].Text != "three" {
		t.Errorf("got %+v %+v", ev, ev.Artifact)
	}
}

// TestRepeatLearnsAKey: a text is learned only where its quote opens a
// key (after '{' or ','), and only where it appears once.
func TestRepeatLearnsAKey(t *testing.T) {
	for _, c := range []struct {
		frame string
		state int
	}{
		{`{"result":{"artifactUpdate":{"artifact":{"parts":[{"text":"one"}]}}}}`, repeatSeen},
		{`{"result":{"artifactUpdate":{"artifact":{"parts":[{"kind":"text","text":"one"}]}}}}`, repeatSeen},
		{`{"result":{"artifactUpdate":{"artifact":{"parts":[{ "text": "one", "a\"text":"one"}]}}}}`, repeatNone},
		{`{"result":{"artifactUpdate":{"artifact":{"parts":[{ "text":"one"}]}}}}`, repeatNone},
		{`{"result":{"artifactUpdate":{"artifact":{"parts":[{"text":"one"}],"x":{"text":"one"}}}}}`, repeatNone},
	} {
		frame := []byte(c.frame)
		ev, err := new(wire.Decoder).Frame(frame)
		var r repeat
		if err == nil && ev.Artifact != nil && len(ev.Artifact.Parts) == 1 {
			r.saw(frame, &ev)
		}
		if r.state != c.state {
			t.Errorf("%s: state %d, want %d (%v)", frame, r.state, c.state, err)
		}
	}
}

// TestRepeatProbeComparesFields: the frame that would prove the learned
// text's place refuses it when its event differs from the learned one in
// anything but the text (the decoder makes every other field of its
// prefix and suffix, which are the same; this holds the probe to it).
func TestRepeatProbeComparesFields(t *testing.T) {
	frames := chunkFrames(rpcChunk, "one", "two")
	for _, change := range []func(ev *a2a.Event){
		func(ev *a2a.Event) {},
		func(ev *a2a.Event) { ev.TaskID = "other" },
		func(ev *a2a.Event) { ev.ContextID = "other" },
		func(ev *a2a.Event) { ev.Final = true },
		func(ev *a2a.Event) { ev.Append = false },
		func(ev *a2a.Event) { ev.LastChunk = true },
		func(ev *a2a.Event) { ev.Artifact.ID = "other" },
		func(ev *a2a.Event) { ev.Artifact.Name = "other" },
		func(ev *a2a.Event) { ev.Artifact.Parts[0].Kind = a2a.PartData },
		func(ev *a2a.Event) { ev.Artifact.Parts[0].Text = "one" },
	} {
		var r repeat
		ev, _ := new(wire.Decoder).Frame(frames[0])
		r.saw(frames[0], &ev)
		ev, _ = new(wire.Decoder).Frame(frames[1])
		change(&ev)
		r.saw(frames[1], &ev)
		if unchanged := reflect.DeepEqual(ev.Artifact.Parts[0].Text, "two") && ev.TaskID == "task-1" && ev.ContextID == "ctx-1" && !ev.Final && ev.Append && !ev.LastChunk &&
			ev.Artifact.ID == "answer" && ev.Artifact.Name == "answer" && ev.Artifact.Parts[0].Kind == a2a.PartText; (r.state == repeatProven) != unchanged {
			t.Errorf("%+v %+v: state %d", ev, ev.Artifact, r.state)
		}
	}
}

// TestRepeatBacksOff: in a stream whose chunks never repeat their frames
// (a context id of its own in each), only a few frames are learned; a
// shape that then repeats is still learned, and proven; and the next new
// shapes after it are learned at once.
func TestRepeatBacksOff(t *testing.T) {
	var r repeat
	learned := 0
	see := func(f []byte) {
		ev, err := new(wire.Decoder).Frame(f)
		if err != nil {
			t.Fatal(err)
		}
		r.saw(f, &ev)
		if bytes.Equal(r.frame, f) {
			learned++
		}
	}
	const n = 320
	for i := range n {
		see(chunkFrames(strings.Replace(rpcChunk, "ctx-1", fmt.Sprintf("ctx-%d", 1000+i), 1), "text")[0])
	}
	if max := missesMax + 1 + n/missesEvery; learned > max {
		t.Errorf("%d of %d frames learned, want at most %d", learned, n, max)
	}
	for i := range missesEvery + 1 {
		see(chunkFrames(rpcChunk, fmt.Sprintf("text %d", i))[0])
	}
	if r.state != repeatProven {
		t.Errorf("a shape that repeats %d times after them: state %d", missesEvery+1, r.state)
	}
	// Proven, it counts as a stream whose shapes repeat: the next new
	// shapes are learned at once.
	learned = 0
	for i := range missesMax {
		see(chunkFrames(strings.Replace(rpcChunk, "task-1", fmt.Sprintf("task-%d", 2+i), 1), "text")[0])
	}
	if learned != missesMax {
		t.Errorf("%d of the %d new shapes after a proven one learned", learned, missesMax)
	}
}

// TestRepeatBound: a frame past repeatMax is neither learned nor given
// without a decode.
func TestRepeatBound(t *testing.T) {
	small := chunkFrames(rpcChunk, "one", "two")
	big := chunkFrames(rpcChunk, strings.Repeat("x", repeatMax), strings.Repeat("y", repeatMax))
	var r repeat
	for _, f := range [][]byte{big[0], big[1]} {
		ev, err := new(wire.Decoder).Frame(f)
		if err != nil {
			t.Fatal(err)
		}
		r.saw(f, &ev)
		if r.state != repeatNone {
			t.Fatalf("a frame of %d bytes was learned", len(f))
		}
	}
	for _, f := range small {
		ev, err := new(wire.Decoder).Frame(f)
		if err != nil {
			t.Fatal(err)
		}
		r.saw(f, &ev)
	}
	if r.state != repeatProven {
		t.Fatalf("state %d", r.state)
	}
	var ev a2a.Event
	if r.repeated(big[0], &ev) {
		t.Error("a frame past the bound was given without a decode")
	}
	if !r.repeated(chunkFrames(rpcChunk, "three")[0], &ev) || ev.Artifact.Parts[0].Text != "three" {
		t.Error("a frame within the bound was decoded")
	}
}

// TestRepeatBoundReadsInPlace: up to repeatMax, wire reads a chunk's clean
// text in place, as the shortcut gives it (a text small next to a larger
// frame would be a copy).
func TestRepeatBoundReadsInPlace(t *testing.T) {
	pre := strings.Replace(rpcChunk, `"name":"answer"`, `"name":"answer","pad":"%pad"`, 1)
	frame := []byte(strings.ReplaceAll(pre, "%s", "text"))
	frame = bytes.Replace(frame, []byte("%pad"), bytes.Repeat([]byte("p"), repeatMax-len(frame)+len("%pad")), 1)
	if len(frame) != repeatMax {
		t.Fatalf("a frame of %d bytes", len(frame))
	}
	ev, err := new(wire.Decoder).Frame(frame)
	if err != nil {
		t.Fatal(err)
	}
	text := ev.Artifact.Parts[0].Text
	at := bytes.Index(frame, []byte(`"text":"text"`)) + len(`"text":"`)
	if text != "text" || unsafe.StringData(text) != &frame[at] {
		t.Errorf("the text of a frame of %d bytes is not read in place", len(frame))
	}
}

// FuzzStreamRepeat: whatever frames a stream carries (a, b, c; and a
// followed by a with b, then c, in the place of its last text), a stream
// that shares gives what each frame gives decoded alone, in each dialect.
func FuzzStreamRepeat(f *testing.F) {
	for _, seed := range repeatSeeds(f) {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		frames := [][]byte{sseSafe(a), sseSafe(b), sseSafe(c)}
		spliced := [][]byte{frames[0], spliceText(frames[0], frames[1]), spliceText(frames[0], frames[2])}
		for _, decode := range []func(*wire.Decoder, []byte) (a2a.Event, error){(*wire.Decoder).Frame, (*wire.Decoder).RESTFrame, (*wire.Decoder).RESTFrameProto03} {
			sameAsAlone(t, frames, decode, 64<<10, 61)
			sameAsAlone(t, spliced, decode, 64<<10, 61)
		}
	})
}

// sseSafe is b as one SSE data line carries it: its line ends made spaces.
func sseSafe(b []byte) []byte {
	return bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, b)
}

// spliceText is frame with m in the place of its last text (what follows
// its last `"text":"` up to the next quote), or m when it has none.
func spliceText(frame, m []byte) []byte {
	i := bytes.LastIndex(frame, []byte(textKey))
	if i < 0 {
		return m
	}
	i += len(textKey)
	j := bytes.IndexByte(frame[i:], '"')
	if j < 0 {
		return m
	}
	return slices.Concat(frame[:i], m, frame[i+j:])
}

// repeatSeeds are triples of frames: each frame of the recorded SDK
// streams (a2a-go's and a2a-js's, both dialects; Gemini CLI's) with its
// two successors. The hand-made triples are the corpus, in
// testdata/fuzz/FuzzStreamRepeat.
func repeatSeeds(t testing.TB) [][3][]byte {
	var seeds [][3][]byte
	for _, frames := range captureStreams(t) {
		for i := range frames {
			seeds = append(seeds, [3][]byte{frames[i], frames[(i+1)%len(frames)], frames[(i+2)%len(frames)]})
		}
	}
	return seeds
}

// captureStreams are the data of the recorded SSE streams' events, one
// list per file (wire's and gemini's captures; their SOURCE.md files say
// where they come from).
func captureStreams(t testing.TB) [][][]byte {
	files, err := filepath.Glob("../wire/testdata/captures/*.sse")
	more, err2 := filepath.Glob("../gemini/testdata/captures/gemini-cli/*.sse")
	if files = append(files, more...); err != nil || err2 != nil || len(files) < 8 {
		t.Fatalf("the captures: %v %v %v", files, err, err2)
	}
	var out [][][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var frames [][]byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				frames = append(frames, bytes.TrimRight(d, "\r"))
			}
		}
		if len(frames) == 0 {
			t.Fatalf("%s: no frames", file)
		}
		out = append(out, frames)
	}
	return out
}
