package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// PromptParams is session/prompt's params.
type PromptParams struct {
	SessionID string        `json:"sessionId"`
	Prompt    []PromptBlock `json:"prompt"`
}

func (p *PromptParams) session() string { return p.SessionID }

// ContentIn is a prompt content block as the client sends it.
type ContentIn struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Resource *struct {
		URI      string  `json:"uri"`
		Text     *string `json:"text"`
		Blob     string  `json:"blob"`
		MimeType string  `json:"mimeType"`
	} `json:"resource"`
}

// PromptBlock is one prompt content block, decoded straight from the
// request (no copy of its JSON is kept); a block that does not decode
// keeps its error in Err for the caller to report.
type PromptBlock struct {
	C   ContentIn
	Err error
}

// UnmarshalJSON decodes a block; it never fails (see Err).
func (b *PromptBlock) UnmarshalJSON(data []byte) error {
	var w struct {
		*ContentIn
		Text jsonText `json:"text"`
	}
	w.ContentIn = &b.C
	b.Err = json.Unmarshal(data, &w)
	b.C.Text = string(w.Text)
	return nil
}

// jsonText is a JSON string unquoted into one buffer that becomes the
// string (encoding/json unquotes into a buffer and then copies it).
type jsonText string

func (t *jsonText) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("text: not a string")
	}
	body := data[1 : len(data)-1]
	var b strings.Builder
	b.Grow(len(body))
	for len(body) > 0 {
		j := bytes.IndexByte(body, '\\')
		if j < 0 {
			j = len(body)
		}
		writeValidUTF8(&b, body[:j])
		body = body[j:]
		if len(body) < 2 {
			break
		}
		switch c := body[1]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n := unquoteU(body)
			b.WriteRune(r)
			body = body[n:]
			continue
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
		body = body[2:]
	}
	*t = jsonText(b.String())
	return nil
}

// unquoteU reads a \uXXXX escape (a surrogate pair as one rune) at the
// start of b and returns the rune and the bytes it took.
func unquoteU(b []byte) (rune, int) {
	hex4 := func(b []byte) rune {
		if len(b) < 6 {
			return -1
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(v)
	}
	r := hex4(b)
	if r < 0 {
		return utf8.RuneError, min(len(b), 6)
	}
	if utf16.IsSurrogate(r) {
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if r2 := utf16.DecodeRune(r, hex4(b[6:])); r2 != utf8.RuneError {
				return r2, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// writeValidUTF8 writes p with each invalid byte as U+FFFD, as
// encoding/json does.
func writeValidUTF8(b *strings.Builder, p []byte) {
	if utf8.Valid(p) {
		b.Write(p)
		return
	}
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.Write(p[:n])
		}
		p = p[n:]
	}
}

// StopReason is why a prompt turn ended.
type StopReason string

// Stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"
	StopCancelled StopReason = "cancelled"
	StopRefusal   StopReason = "refusal"
)

// PromptResult answers session/prompt.
type PromptResult struct {
	StopReason StopReason  `json:"stopReason"`
	Usage      *UsageTotal `json:"usage,omitempty"`
}

// UsageTotal is the (unstable) PromptResponse.usage.
type UsageTotal struct {
	TotalTokens      int64 `json:"totalTokens"`
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CachedReadTokens int64 `json:"cachedReadTokens,omitempty"`
}
