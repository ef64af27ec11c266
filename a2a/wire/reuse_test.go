package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/streamtest"

	"github.com/shimdev/shim/a2a"
)

// sameAfter decodes a then b with one Decoder (the JSON-RPC and the
// HTTP+JSON frames alike) and fails when b does not give what a Decoder
// of its own gives: nothing of a frame shows through in the next.
func sameAfter(t *testing.T, a, b []byte) {
	type decode func(*Decoder, []byte) (a2a.Event, error)
	for _, fn := range []struct {
		name string
		dec  decode
	}{{"Frame", (*Decoder).Frame}, {"RESTFrame", (*Decoder).RESTFrame}} {
		var reused Decoder
		_, _ = fn.dec(&reused, a)
		got, gotErr := fn.dec(&reused, b)
		want, wantErr := fn.dec(new(Decoder), b)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("%s of %q after %q:\n got %+v (%v)\nwant %+v (%v)", fn.name, b, a, got, gotErr, want, wantErr)
		}
	}
}

// TestDecoderReuse: every seed frame decoded after every other one by
// the same Decoder gives what it gives alone (the seeds of the fuzz
// target below, each pair of them).
func TestDecoderReuse(t *testing.T) {
	seeds := frameSeeds(t)
	if testing.Short() {
		seeds = seeds[:min(len(seeds), 60)]
	}
	for _, a := range seeds {
		for _, b := range seeds {
			sameAfter(t, a, b)
		}
	}
}

// FuzzDecoderReuse: whatever two frames a stream carries, the second
// decodes as it decodes alone.
func FuzzDecoderReuse(f *testing.F) {
	seeds := frameSeeds(f)
	for i := range seeds {
		f.Add(seeds[i], seeds[(i+1)%len(seeds)])
	}
	f.Fuzz(sameAfter)
}

// TestBigFrameKeepsItsSmallValuesApart: in a frame past 64 KiB, a text or
// data part small next to the frame is a copy (a part kept from the frame
// does not keep the whole frame), and a text that is most of the frame
// shares it (a full replace is read with one copy: its own, when it has
// escapes; none when it has not).
func TestBigFrameKeepsItsSmallValuesApart(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[` +
		`{"text":"small text"},{"data":{"k":"small data"}},{"text":"` + big + `"}]}}}}`)
	ev, err := new(Decoder).Frame(frame)
	if err != nil {
		t.Fatal(err)
	}
	ps := ev.Artifact.Parts
	for i := range frame {
		frame[i] = '#' // the frame written over after its decode
	}
	if ps[0].Text != "small text" || string(ps[1].Data) != `{"k":"small data"}` || ev.TaskID != "t" || ev.Artifact.ID != "a" {
		t.Errorf("a small value shares the frame: %q %q %q %q", ps[0].Text, ps[1].Data, ev.TaskID, ev.Artifact.ID)
	}
	if ps[2].Text == big {
		t.Error("the big text is a copy: a full replace would be read twice")
	}
}

// TestDecoderChunkAllocatesNothing: a Decoder told to share reads a
// streamed chunk (an artifact update of one text part) into values it
// keeps: no allocation, the frame's text shared; the artifact of one event
// is the next one's. One not told to share gives each event its own.
func TestDecoderChunkAllocatesNothing(t *testing.T) {
	frame := []byte(streamtest.ArtifactFrame)
	var own Decoder
	a, _ := own.Frame(frame)
	b, _ := own.Frame(frame)
	if a.Artifact == b.Artifact {
		t.Error("a Decoder not told to share gave two events one artifact")
	}
	var d Decoder
	d.Share()
	first, err := d.Frame(frame)
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if _, err := d.Frame(frame); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations a chunk", allocs)
	}
	next, _ := d.Frame(frame)
	if next.Artifact != first.Artifact || next.Artifact.Parts[0].Text != "the quick brown fox " {
		t.Errorf("the chunk's artifact is not the Decoder's: %p, %p", first.Artifact, next.Artifact)
	}
}

// TestDecoderKeepsNoMetadata: a metadata that is no object (read as none)
// is not kept by a Decoder past its frame either: a raw value of a frame
// left in the decoder would keep the whole frame until the next.
func TestDecoderKeepsNoMetadata(t *testing.T) {
	// Each result is one event, with beside it a member given nothing but
	// a metadata that is no object.
	su := `"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}`
	for _, result := range []string{
		`{` + su + `,"status_update":{"metadata":"x"}}`,
		`{` + su + `,"artifactUpdate":{"metadata":[1],"artifact":{"metadata":7}}}`,
		`{` + su + `,"artifact_update":{"metadata":true,"artifact":{"metadata":"x"}}}`,
		`{` + su + `,"metadata":"y","artifact":{"metadata":"x"}}`,
		`{"status_update":{"taskId":"t","status":{"state":"working"}},"statusUpdate":{"metadata":"x"}}`,
	} {
		var d Decoder
		if _, err := d.Frame([]byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`)); err != nil {
			t.Fatalf("%s: %v", result, err)
		}
		r := &d.r.Result
		for _, m := range []json.RawMessage{r.StatusUpdate.Metadata, r.StatusUpdate2.Metadata, r.ArtifactUpdate.Metadata,
			r.ArtifactUpdate2.Metadata, r.ArtifactUpdate.Artifact.Metadata, r.ArtifactUpdate2.Artifact.Metadata,
			r.Object.Metadata, r.Object.Artifact.Metadata} {
			if m != nil {
				t.Errorf("%s: the decoder keeps the metadata %s", result, m)
			}
		}
	}
}
