package acp

import (
	"bytes"
	"encoding/json"

	"github.com/shimdev/shim/internal/jsontext"
)

// ContentBlock is a content block shim writes: TextContent, ImageContent
// or ResourceLink.
type ContentBlock interface{ isContentBlock() }

// TextContent is a text block.
type TextContent struct {
	Type tagText `json:"type"`
	Text string  `json:"text"`
}

// ImageContent is an image block (base64 data).
type ImageContent struct {
	Type     tagImage `json:"type"`
	Data     string   `json:"data"`
	MimeType string   `json:"mimeType"`
}

// ResourceLink is a link to a resource.
type ResourceLink struct {
	Type     tagResourceLink `json:"type"`
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	MimeType string          `json:"mimeType,omitempty"`
}

func (TextContent) isContentBlock()  {}
func (ImageContent) isContentBlock() {}
func (ResourceLink) isContentBlock() {}

// Text is a text block.
func Text(s string) TextContent { return TextContent{Text: s} }

// ToolCallContent is an item of a tool call's content: Content (a block),
// Diff or Terminal.
type ToolCallContent interface{ isToolCallContent() }

// Content wraps a content block in a tool call's content list.
type Content struct {
	Type    tagContent   `json:"type"`
	Content ContentBlock `json:"content"`
}

// Diff is a file change shown as a diff (an absolute path; a nil OldText
// is a new file).
type Diff struct {
	Type    tagDiff `json:"type"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

func (Content) isToolCallContent() {}
func (Diff) isToolCallContent()    {}

// Location is a file (absolute path) and an optional 1-based line.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// RawJSON encodes v as the JSON of a rawInput or rawOutput, with HTML
// characters as they are (what the stream writes); nil for nil.
func RawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	if s, ok := v.(string); ok { // a result's text: no encoder (the same bytes)
		return jsontext.AppendString(make([]byte, 0, len(s)+2), s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
