package transport

import (
	"bytes"
	"reflect"
	"slices"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/jsontext"
)

// shapeDecoder decodes the frames of one stream, remembering the shape of
// its text chunks. A streamed answer is mostly frames that differ from the
// one before only in the text of one part: the same task, context,
// artifact and flags before and after it, byte for byte. Once a frame was
// decoded in full, its bytes around that text (prefix and suffix) and its
// event are kept; a later frame with the same prefix and suffix whose
// middle is a valid JSON string body has the same JSON structure, so its
// event is the kept one with that text, and only the text is scanned.
//
// The shape is learned only when it is proven: the kept prefix and suffix
// around a probe text must decode, in full, to the kept event with the
// probe as that part's text and nothing else changed. Anything else (a
// new task, a status, a frame of another shape) is decoded in full.
// FuzzFrameDecoderLikeEncodingJSON holds the result next to encoding/json.
type shapeDecoder struct {
	// full decodes a frame in full (the binding's own decoder).
	full  func([]byte) (a2a.Event, error)
	shape *frameShape
	// misses counts full decodes since the shape last matched; a stream
	// whose frames never repeat a shape stops paying for learning.
	misses, wait int
	matched      bool // the shape matched a frame since it was learned
	// hits and learns count shape matches and learning attempts.
	hits, learns int
}

// frameShape is a learned text-chunk frame.
type frameShape struct {
	prefix, suffix []byte
	ev             a2a.Event // with Artifact.Parts[part].Text empty
	part           int
}

// learnMax bounds the frames a shape is learned from (learning scans the
// frame and decodes a probe; a full replace is not worth it).
const learnMax = 64 << 10

// shapeProbe is the probe text learning decodes at the text's place.
const shapeProbe = "shim frame shape probe"

func (d *shapeDecoder) decode(b []byte) (a2a.Event, error) {
	if d.shape != nil {
		if ev, ok := d.shape.match(b); ok {
			d.misses, d.wait, d.matched = 0, 0, true
			d.hits++
			return ev, nil
		}
	}
	full := d.full
	ev, err := full(b)
	if err != nil || ev.Kind != a2a.EventArtifact || len(b) > learnMax {
		return ev, err
	}
	if d.misses++; d.misses > d.wait {
		// A stream whose learned shapes never match learns less and
		// less often.
		if d.shape != nil && !d.matched {
			d.wait = min(2*d.wait+1, 1024)
		} else {
			d.wait = 0
		}
		d.misses = 0
		d.learns++
		if s := learnShape(b, ev, full); s != nil {
			d.shape, d.matched = s, false
		}
	}
	return ev, nil
}

// match decodes b by the shape, if it has it.
func (s *frameShape) match(b []byte) (a2a.Event, bool) {
	if len(b) < len(s.prefix)+len(s.suffix) || !bytes.HasPrefix(b, s.prefix) || !bytes.HasSuffix(b, s.suffix) {
		return a2a.Event{}, false
	}
	body := b[len(s.prefix) : len(b)-len(s.suffix)]
	text, ok := jsontext.Unquote(body)
	if !ok {
		return a2a.Event{}, false
	}
	return withText(s.ev, s.part, text), true
}

// withText is ev with a copy of its artifact whose part i has text t.
func withText(ev a2a.Event, i int, t string) a2a.Event {
	if len(ev.Artifact.Parts) == 1 {
		// The usual chunk: the artifact and its part in one allocation.
		x := &artifactOfOne{a: *ev.Artifact, p: [1]a2a.Part{ev.Artifact.Parts[0]}}
		x.p[0].Text = t
		x.a.Parts = x.p[:]
		ev.Artifact = &x.a
		return ev
	}
	a := *ev.Artifact
	a.Parts = slices.Clone(a.Parts)
	a.Parts[i].Text = t
	ev.Artifact = &a
	return ev
}

type artifactOfOne struct {
	a a2a.Artifact
	p [1]a2a.Part
}

// learnShape finds the text part of an artifact frame in b and proves
// the shape around it, or returns nil.
func learnShape(b []byte, ev a2a.Event, full func([]byte) (a2a.Event, error)) *frameShape {
	if ev.Artifact == nil {
		return nil
	}
	key := []byte(`"text"`)
	for at := len(b); ; {
		k := bytes.LastIndex(b[:at], key)
		if k < 0 {
			return nil
		}
		at = k
		start, end, ok := stringAfterKey(b, k+len(key))
		if !ok {
			continue
		}
		text, ok := jsontext.Unquote(b[start:end])
		if !ok {
			continue
		}
		for i := range ev.Artifact.Parts {
			p := &ev.Artifact.Parts[i]
			if p.Kind != a2a.PartText || p.Text != text {
				continue
			}
			s := &frameShape{prefix: bytes.Clone(b[:start]), suffix: bytes.Clone(b[end:]), part: i}
			probe, err := full(slices.Concat(s.prefix, []byte(shapeProbe), s.suffix))
			if err != nil || !reflect.DeepEqual(probe, withText(ev, i, shapeProbe)) {
				continue
			}
			s.ev = withText(ev, i, "")
			return s
		}
	}
}

// stringAfterKey finds the string value after a key ending at i: the
// bounds of its inside.
func stringAfterKey(b []byte, i int) (start, end int, ok bool) {
	skip := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
	}
	skip()
	if i >= len(b) || b[i] != ':' {
		return 0, 0, false
	}
	i++
	skip()
	if i >= len(b) || b[i] != '"' {
		return 0, 0, false
	}
	start = i + 1
	for j := start; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return start, j, true
		}
	}
	return 0, 0, false
}
