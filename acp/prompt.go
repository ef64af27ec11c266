package acp

import (
	"encoding/json"
	"fmt"

	"github.com/shimdev/shim/internal/jsontext"
)

// PromptParams is session/prompt's params.
type PromptParams struct {
	SessionID string        `json:"sessionId"`
	Prompt    []PromptBlock `json:"prompt"`
	RequestMeta
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
	s, ok := jsontext.Unquote(data[1 : len(data)-1])
	if !ok {
		return fmt.Errorf("text: not a JSON string")
	}
	*t = jsonText(s)
	return nil
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
