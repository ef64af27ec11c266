package binding

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/shimdev/shim/a2a"
)

// A fast stream is mostly plain chunks of answer text whose frames are the
// same bytes but for the text: the same ids, the same flags, the same keys
// in the same order. A stream that reads its frames in place remembers the
// last plain chunk's frame and event (repeat), and a frame that is that
// frame with another text in the text's place is given as that event with
// its text, without decoding it again: a proven shortcut to the result the
// decoder gives, not a second decoder.
//
// The proof. A frame is learned only when its decoded text T (non-empty,
// clean: no '"', no '\\', no byte below 0x20, valid UTF-8) appears in it as
// `"text":"` + T + `"` exactly once, after '{' or ',' (in valid JSON that
// quote opens a key): the frame is then P + T + S. Any clean string body M
// in T's place tokenizes as T does (it cannot end the string or escape),
// so P + M + S is the same JSON with one string value changed, and wire
// reads a clean text as itself (partText). Which field that value lands
// in is not guessed: the next frame P + M + S with M != T, decoded the
// normal way, must be a plain chunk whose text is M and whose other fields
// are the learned event's (a key matched in another case, a duplicate key,
// an unknown object holding the same text all fail here). Only then are
// the frames of that shape given without a decode; until then, and after
// a refusal, they are decoded as any other.

// repeatMax bounds a frame the shortcut reads: up to it wire reads a body
// in place (wire.zeroCopyMax), so a decoded chunk's text shares its frame
// as the shortcut's does (TestRepeatBoundReadsInPlace).
const repeatMax = 64 << 10

// The states of a stream's repeat.
const (
	repeatNone    = iota // nothing learned
	repeatSeen           // learned, not yet proven
	repeatProven         // proven: a frame of the shape is not decoded
	repeatRefused        // the proof failed: the shape is decoded, not learned again while it lasts
)

// The learning of a stream whose chunks do not repeat their frames.
const (
	missesMax   = 4
	missesEvery = 32
)

// textKey is what precedes a part's text in a frame.
const textKey = `"text":"`

// repeat is a stream's last plain chunk: its frame (a copy, text at
// frame[at:end]) and its event (the stream's kept ids, the artifact and
// the part as values, their text and parts left out).
type repeat struct {
	state int
	// misses counts the shapes learned in a row that never came again;
	// past missesMax only every missesEvery-th new shape is learned (a
	// stream whose chunks never repeat their frames pays for looking at
	// a few of them, not for each).
	misses  int
	frame   []byte
	at, end int
	ev      a2a.Event
	art     a2a.Artifact
	part    a2a.Part
	// out is the artifact a repeated chunk is given in, valid until the
	// next call of Next (as a decoder's, after Share).
	out      a2a.Artifact
	outParts [1]a2a.Part
}

// middle returns what a frame f has in the learned text's place when it is
// the learned frame's prefix and suffix around it.
func (r *repeat) middle(f []byte) ([]byte, bool) {
	if r.state == repeatNone || len(f) > repeatMax || len(f) < len(r.frame)-(r.end-r.at) {
		return nil, false
	}
	p, s := r.frame[:r.at], r.frame[r.end:]
	if !bytes.HasPrefix(f, p) || !bytes.HasSuffix(f, s) {
		return nil, false
	}
	return f[len(p) : len(f)-len(s)], true
}

// clean reports whether m is a JSON string's body that decodes to itself.
func clean(m []byte) bool {
	if len(m) == 0 {
		return false
	}
	var or byte
	for _, c := range m {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		or |= c
	}
	return or < utf8.RuneSelf || utf8.Valid(m)
}

// repeated reports whether the frame f, in the SSE reader's buffer, repeats
// the proven chunk with a clean text; *ev is then that chunk with f's
// text, read in place (valid until the next call of Next).
func (r *repeat) repeated(f []byte, ev *a2a.Event) bool {
	if r.state != repeatProven {
		return false
	}
	m, ok := r.middle(f)
	if !ok || !clean(m) {
		return false
	}
	r.out = r.art
	r.outParts[0] = r.part
	// As wire reads a clean text: its string shares the frame.
	r.outParts[0].Text = unsafe.String(&m[0], len(m))
	r.out.Parts = r.outParts[:]
	*ev = r.ev
	ev.Artifact = &r.out
	return true
}

// saw tells r of a plain chunk ev (plainChunk) decoded from the frame f:
// a frame of the learned shape proves it or refuses it; a frame of another
// shape is learned, when its text's place is found (and, in a stream whose
// shapes do not repeat, only now and then).
func (r *repeat) saw(f []byte, ev *a2a.Event) {
	text := ev.Artifact.Parts[0].Text
	if m, ok := r.middle(f); ok {
		r.prove(m, text, ev)
		return
	}
	if r.state == repeatSeen {
		r.misses++ // the shape learned last never came again
	}
	if len(f) > repeatMax || text == "" || (r.misses > missesMax && r.misses%missesEvery != 0) {
		return
	}
	at, ok := textPlace(f, text)
	if !ok {
		return
	}
	r.frame = append(r.frame[:0], f...)
	r.at, r.end = at, at+len(text)
	r.ev = *ev
	r.ev.Artifact = nil
	r.art = *ev.Artifact
	r.art.Parts = nil
	r.part = ev.Artifact.Parts[0]
	r.part.Text = ""
	r.state = repeatSeen
}

// prove settles a learned shape on the next frame of that shape with
// another text m: proven when the decoder read m as the text and the same
// other fields (same), refused otherwise.
func (r *repeat) prove(m []byte, text string, ev *a2a.Event) {
	if r.state != repeatSeen || string(m) == string(r.frame[r.at:r.end]) || !clean(m) {
		return
	}
	if text == string(m) && r.same(ev) {
		r.state, r.misses = repeatProven, 0
	} else {
		r.state = repeatRefused
	}
}

// textPlace is where text stands in the frame f: the start of the value of
// the one "text" key whose value is text as it is, written after '{' or
// ','. ok is false when there is none, when there are two, when the key
// follows anything else, or when the text needs escapes.
func textPlace(f []byte, text string) (at int, ok bool) {
	at = -1
	for from := 0; ; {
		i := bytes.Index(f[from:], []byte(textKey))
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		v := f[i+len(textKey):]
		if len(v) <= len(text) || string(v[:len(text)]) != text || v[len(text)] != '"' {
			continue
		}
		if at >= 0 || i == 0 || (f[i-1] != '{' && f[i-1] != ',') {
			return 0, false // twice, or not after '{' or ','
		}
		at = i + len(textKey)
	}
	if at < 0 || !clean(f[at:at+len(text)]) {
		return 0, false
	}
	return at, true
}

// same reports whether the plain chunk ev is the learned one but for its
// text: the fields plainChunk lets vary (it checked that the others are
// zero).
func (r *repeat) same(ev *a2a.Event) bool {
	a, p := ev.Artifact, &ev.Artifact.Parts[0]
	return ev.Kind == r.ev.Kind && ev.TaskID == r.ev.TaskID && ev.ContextID == r.ev.ContextID && ev.Final == r.ev.Final &&
		ev.Append == r.ev.Append && ev.LastChunk == r.ev.LastChunk && a.ID == r.art.ID && a.Name == r.art.Name && p.Kind == r.part.Kind
}
