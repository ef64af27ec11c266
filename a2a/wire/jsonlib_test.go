package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/sse"
)

// corpusInputs reads the inputs of go's fuzz corpus files in dirs.
func corpusInputs(t testing.TB, dirs ...string) [][]byte {
	var out [][]byte
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no corpus in %s", dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n")[1:] {
				inner, ok := strings.CutPrefix(line, "[]byte(")
				if !ok {
					if inner, ok = strings.CutPrefix(line, "string("); !ok {
						continue
					}
				}
				v, err := strconv.Unquote(strings.TrimSuffix(inner, ")"))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				out = append(out, []byte(v))
			}
		}
	}
	return out
}

// frameSeeds are the frames of the a2a corpora (frames, and the data of
// the SSE streams' events) and the ACP lines of bridge's corpus.
func frameSeeds(t testing.TB) [][]byte {
	seeds := corpusInputs(t, "testdata/fuzz/FuzzDecodeFrame", "testdata/fuzz/FuzzWireText", "../../acp/stdio/testdata/fuzz/FuzzStdioLine")
	for _, stream := range corpusInputs(t, "../sse/testdata/fuzz/FuzzSSE") {
		sr := sse.NewReader(strings.NewReader(string(stream)), 64<<20)
		for range len(stream) + 1 {
			ev, err := sr.Next()
			if err != nil {
				break
			}
			seeds = append(seeds, append([]byte(nil), ev.Data...))
		}
	}
	return seeds
}

// sameDecode decodes in with encoding/json and with the decoder of every
// frame (segmentio/encoding, in place for a frame up to 64 KiB) and fails
// when the latter does not give what encoding/json gives: the same event,
// the same JSON-RPC error, or a refusal of the same frame.
//
// (goccy/go-json, tried first, failed this: above 16 fields in a struct
// it matches keys case-sensitively, where encoding/json folds case (the
// seed 118ee96a4b95457a), and it does not check the syntax of values it
// skips.)
func sameDecode(t *testing.T, in []byte) {
	std, stdErr := decodeFrameWith(json.Unmarshal, in)
	fast, fastErr := decodeFrameWith(unmarshal, in)
	if _, ok := stdErr.(*a2a.DecodeError); ok {
		if fastErr == nil {
			t.Fatalf("%q: encoding/json refuses it (%v), segmentio/encoding decodes %+v", in, stdErr, fast)
		}
		return
	}
	if _, isRPC := stdErr.(*a2a.RPCError); isRPC || fastErr != nil {
		if !reflect.DeepEqual(stdErr, fastErr) {
			t.Fatalf("%q: encoding/json: %v; segmentio/encoding: %v", in, stdErr, fastErr)
		}
		return
	}
	if !reflect.DeepEqual(std, fast) {
		t.Fatalf("%q:\nencoding/json %+v\nsegmentio/encoding %+v", in, std, fast)
	}
}

// TestDecodeFrameLikeEncodingJSON: on every seed frame the two decoders
// give the same event (the seeds of the fuzz target below).
func TestDecodeFrameLikeEncodingJSON(t *testing.T) {
	seeds := frameSeeds(t)
	if len(seeds) < 100 {
		t.Fatalf("only %d seeds", len(seeds))
	}
	for _, in := range seeds {
		sameDecode(t, in)
	}
}

// FuzzDecodeFrameLikeEncodingJSON: whatever frame DecodeFrame decodes, it
// decodes as encoding/json decodes it.
func FuzzDecodeFrameLikeEncodingJSON(f *testing.F) {
	for _, in := range frameSeeds(f) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sameDecode(t, in)
	})
}

// BenchmarkDecodeFrameLib decodes the frame of a streamed text chunk with
// encoding/json and with DecodeFrame's decoder ("fast").
func BenchmarkDecodeFrameLib(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"task-1a2b3c","contextId":"chat-zed-1790294944966-qkf93w","artifact":{"artifactId":"answer","parts":[{"text":"chunk 12345 "}]},"append":true}}}`)
	for _, lib := range []struct {
		name string
		fn   func([]byte, any) error
	}{{"encoding-json", json.Unmarshal}, {"fast", unmarshal}} {
		b.Run(lib.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeFrameWith(lib.fn, frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLargeFrameLikeEncodingJSON: a frame past 64 KiB (decoded with its
// strings copied, not in place) decodes as encoding/json decodes it too:
// escapes, invalid UTF-8 and all.
func TestLargeFrameLikeEncodingJSON(t *testing.T) {
	for _, text := range []string{strings.Repeat("a \"quoted\" line\n", 8<<10), strings.Repeat("é \xff\u2028 x", 16<<10)} {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"artifactUpdate": map[string]any{
			"taskId": "t", "artifact": map[string]any{"artifactId": "a", "parts": []any{map[string]any{"text": text}}}}}})
		if len(b) <= zeroCopyMax {
			t.Fatalf("a frame of %d bytes", len(b))
		}
		sameDecode(t, b)
	}
}
