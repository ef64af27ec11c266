package shown

import (
	"hash/maphash"
	"strings"
)

// Text remembers what was shown of one artifact's text as a length
// and a running hash, never as a copy, so that a later replace adds only
// the part not yet shown and memory stays flat in the answer's length.
//
// The server's idea of the artifact (S) changes by append (S += t) or
// replace (S = t); what was shown (V) only ever grows. While S is known to
// extend V, new text is shown. A replace shorter than V (a server that
// restarts the artifact, as a resumed task does) is followed until it
// catches up with V; a replace or catch-up that does not match V diverges,
// and nothing more is shown until a replace matches V again.
//
// The running hashes are hash/maphash's, whose value depends on the bytes
// written and not on how they were split among writes: a chunk costs a
// copy into the hash's buffer (FNV-1a, byte by byte, was a fifth of a
// streamed chunk's rendering; BenchmarkFrameChunk).
type Text struct {
	n     int          // len(V) in bytes
	h     maphash.Hash // hash of V
	state textState
	sn    int          // len(S) while catching up
	sh    maphash.Hash // hash of S while catching up
	// started is set once non-blank text arrived: blank lines before it
	// are dropped from S.
	started bool
}

type textState uint8

const (
	inSync textState = iota
	catchingUp
	diverged
)

// seed seeds every running hash of shown text: a hash of S and one
// of V are compared.
var seed = maphash.MakeSeed()

// FNV-1a's offset basis (the hash of nothing) and prime.
const (
	FNVOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// FNV is FNV-1a, for a text hashed whole (a note, a snapshot's parts),
// starting from h (FNVOffset for a new hash).
func FNV(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// hashOf starts h over, as the hash of s.
func hashOf(h *maphash.Hash, s string) {
	h.SetSeed(seed)
	_, _ = h.WriteString(s)
}

// sameAs reports whether the text hashed by h followed by s is V.
func (t *Text) sameAs(h *maphash.Hash, s string) bool {
	c := *h
	_, _ = c.WriteString(s)
	return c.Sum64() == t.h.Sum64()
}

// TrimLead drops blank lines before the first text.
func (t *Text) TrimLead(s string) string {
	if t.started {
		return s
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r != ' ' && r != '\t' && r != '\r' && r != '\n' })
	if i < 0 {
		if j := strings.LastIndexByte(s, '\n'); j >= 0 {
			s = s[j+1:]
		}
		return s
	}
	if j := strings.LastIndexByte(s[:i], '\n'); j >= 0 {
		s = s[j+1:]
	}
	t.started = true
	return s
}

// Append handles an appended chunk and returns the text to show.
func (t *Text) Append(s string) string {
	s = t.TrimLead(s)
	switch t.state {
	case inSync:
		t.n += len(s)
		_, _ = t.h.WriteString(s)
		return s
	case catchingUp:
		if t.sn+len(s) < t.n {
			t.sn += len(s)
			_, _ = t.sh.WriteString(s)
			return ""
		}
		k := t.n - t.sn
		if !t.sameAs(&t.sh, s[:k]) {
			t.state = diverged
			return ""
		}
		t.state = inSync
		rest := s[k:]
		t.n += len(rest)
		_, _ = t.h.WriteString(rest)
		return rest
	}
	return ""
}

// Replace handles a full replace and returns the text to show.
func (t *Text) Replace(s string) string {
	if t.n == 0 {
		t.started = false
	}
	s = t.trimLeadReplace(s)
	if t.n == 0 {
		t.state = inSync
		t.n = len(s)
		hashOf(&t.h, s)
		return s
	}
	if len(s) >= t.n {
		if maphash.String(seed, s[:t.n]) != t.h.Sum64() {
			t.state = diverged
			return ""
		}
		t.state = inSync
		rest := s[t.n:]
		t.n = len(s)
		_, _ = t.h.WriteString(rest)
		return rest
	}
	t.state = catchingUp
	t.sn = len(s)
	hashOf(&t.sh, s)
	return ""
}

// trimLeadReplace drops the blank lines a replace starts with: a replace
// restates the artifact from its beginning.
func (t *Text) trimLeadReplace(s string) string {
	started := t.started
	t.started = false
	s = t.TrimLead(s)
	t.started = t.started || started
	return s
}

// New returns a Text nothing of which was shown yet.
func New() *Text {
	t := &Text{}
	t.h.SetSeed(seed)
	return t
}

// Reset makes t what New returns.
func (t *Text) Reset() {
	*t = Text{}
	t.h.SetSeed(seed)
}
