package message

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// userTextMax bounds the user's text kept for the title.
const userTextMax = 4 << 10

// Parts turns ACP prompt content into the parts of one A2A user
// message, and returns the start of the user's own text (for the title).
// A lone text block becomes its part without a copy: a prompt of S bytes
// is not held twice here.
func Parts(blocks []acp.PromptBlock) (parts []a2a.Part, userText string, err error) {
	var pending []string // text for the next text part, joined once
	var user strings.Builder
	flush := func() {
		if len(pending) > 0 {
			parts = append(parts, a2a.Part{Kind: a2a.PartText, Text: strings.Join(pending, "")})
			pending = nil
		}
	}
	addUser := func(s string) {
		if n := userTextMax - user.Len(); n > 0 {
			user.WriteString(s[:min(len(s), n)])
		}
	}
	endsInNewline := func() bool {
		for i := len(pending) - 1; i >= 0; i-- {
			if p := pending[i]; p != "" {
				return strings.HasSuffix(p, "\n")
			}
		}
		return true
	}
	for i := range blocks {
		if blocks[i].Err != nil {
			return nil, "", fmt.Errorf("prompt content: %v", blocks[i].Err)
		}
		c := &blocks[i].C
		switch c.Type {
		case "text":
			pending = append(pending, c.Text)
			addUser(c.Text)
		case "resource_link":
			name := c.Name
			if name == "" {
				name = c.URI
			}
			pending = append(pending, "[@"+name+"]("+c.URI+")")
			addUser("@" + name)
		case "resource":
			if c.Resource == nil {
				continue
			}
			if c.Resource.Text != nil {
				if !endsInNewline() {
					pending = append(pending, "\n")
				}
				pending = append(pending, fmt.Sprintf("<file uri=%q>\n", c.Resource.URI), *c.Resource.Text, "\n</file>\n")
			} else {
				pending = append(pending, fmt.Sprintf("\n[attached binary resource %s (%s) not forwarded]\n", c.Resource.URI, orUnknown(c.Resource.MimeType)))
			}
		case "image":
			data, derr := base64.StdEncoding.DecodeString(c.Data)
			if derr != nil {
				return nil, "", fmt.Errorf("image content: invalid base64 data")
			}
			flush()
			parts = append(parts, a2a.Part{Kind: a2a.PartFile, Raw: data, MediaType: c.MimeType})
		default:
			pending = append(pending, fmt.Sprintf("\n[%s content not forwarded: the remote agent does not accept it]\n", orUnknown(c.Type)))
		}
	}
	flush()
	if len(parts) == 0 {
		parts = []a2a.Part{{Kind: a2a.PartText, Text: ""}}
	}
	return parts, user.String(), nil
}

// Empty reports whether a prompt's content is empty or only whitespace
// text: such a prompt is refused and nothing reaches the agent (SPEC §18).
func Empty(blocks []acp.PromptBlock) bool {
	for i := range blocks {
		if b := &blocks[i]; b.Err != nil || b.C.Type != "text" || strings.TrimSpace(b.C.Text) != "" {
			return false
		}
	}
	return true
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// WithPreamble puts the editor-context line before the first text part.
func WithPreamble(parts []a2a.Part, preamble string) []a2a.Part {
	for i := range parts {
		if parts[i].Kind == a2a.PartText {
			parts[i].Text = preamble + "\n\n" + parts[i].Text
			return parts
		}
	}
	return append([]a2a.Part{{Kind: a2a.PartText, Text: preamble}}, parts...)
}

// PlainText joins the text parts; false when the prompt has other parts.
func PlainText(parts []a2a.Part) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		if p.Kind != a2a.PartText {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), strings.TrimSpace(b.String()) != ""
}
