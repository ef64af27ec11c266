package render

import "strings"

// shownText remembers what was shown of one artifact's text as a length
// and a running FNV-1a hash, never as a copy, so that a later replace adds
// only the part not yet shown and memory stays flat in the answer's length.
//
// The server's idea of the artifact (S) changes by append (S += t) or
// replace (S = t); what was shown (V) only ever grows. While S is known to
// extend V, new text is shown. A replace shorter than V (a server that
// restarts the artifact, as a resumed task does) is followed until it
// catches up with V; a replace or catch-up that does not match V diverges,
// and nothing more is shown until a replace matches V again.
type shownText struct {
	n     int    // len(V) in bytes
	h     uint64 // hash of V
	state textState
	sn    int    // len(S) while catching up
	sh    uint64 // hash of S while catching up
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

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// trimLead drops blank lines before the first text.
func (t *shownText) trimLead(s string) string {
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
func (t *shownText) Append(s string) string {
	s = t.trimLead(s)
	switch t.state {
	case inSync:
		t.n += len(s)
		t.h = fnv(t.h, s)
		return s
	case catchingUp:
		if t.sn+len(s) < t.n {
			t.sn += len(s)
			t.sh = fnv(t.sh, s)
			return ""
		}
		k := t.n - t.sn
		if fnv(t.sh, s[:k]) != t.h {
			t.state = diverged
			return ""
		}
		t.state = inSync
		rest := s[k:]
		t.n += len(rest)
		t.h = fnv(t.h, rest)
		return rest
	}
	return ""
}

// Replace handles a full replace and returns the text to show.
func (t *shownText) Replace(s string) string {
	if t.n == 0 {
		t.started = false
	}
	s = t.trimLeadReplace(s)
	if t.n == 0 {
		t.state = inSync
		t.n, t.h = len(s), fnv(fnvOffset, s)
		return s
	}
	if len(s) >= t.n {
		if fnv(fnvOffset, s[:t.n]) != t.h {
			t.state = diverged
			return ""
		}
		t.state = inSync
		rest := s[t.n:]
		t.n, t.h = len(s), fnv(t.h, rest)
		return rest
	}
	t.state = catchingUp
	t.sn, t.sh = len(s), fnv(fnvOffset, s)
	return ""
}

// trimLeadReplace drops the blank lines a replace starts with: a replace
// restates the artifact from its beginning.
func (t *shownText) trimLeadReplace(s string) string {
	started := t.started
	t.started = false
	s = t.trimLead(s)
	t.started = t.started || started
	return s
}

func newShownText() *shownText { return &shownText{h: fnvOffset} }
