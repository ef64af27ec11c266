package wire

import (
	"reflect"
	"testing"

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
