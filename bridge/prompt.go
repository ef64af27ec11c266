package bridge

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/randid"
)

// clientSlug is clientInfo.name lowercased with every character outside
// [a-z0-9] dropped, cut to 16, else "acp".
func clientSlug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > 16 {
		s = s[:16]
	}
	if s == "" {
		return "acp"
	}
	return s
}

// mintContextID returns <prefix>-<epoch ms>-<6 hex>.
func mintContextID(prefix string, now time.Time) string {
	return prefix + "-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + randid.Hex(3)
}

// userTextMax bounds the user's text kept for the title.
const userTextMax = 4 << 10

// promptMessage turns ACP prompt content into the parts of one A2A user
// message, and returns the start of the user's own text (for the title).
// A lone text block becomes its part without a copy: a prompt of S bytes
// is not held twice here.
func promptMessage(blocks []acp.PromptBlock) (parts []a2a.Part, userText string, err error) {
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

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// addPreamble puts the editor-context line before the first text part.
func addPreamble(parts []a2a.Part, preamble string) []a2a.Part {
	for i := range parts {
		if parts[i].Kind == a2a.PartText {
			parts[i].Text = preamble + "\n\n" + parts[i].Text
			return parts
		}
	}
	return append([]a2a.Part{{Kind: a2a.PartText, Text: preamble}}, parts...)
}

// titleOf is a thread title: the first 80 characters of the user's text,
// whitespace collapsed, "…" when cut. Only the start of s is looked at.
func titleOf(s string) string {
	var fields []string
	n := 0
	for f := range strings.FieldsFuncSeq(s, unicode.IsSpace) {
		fields = append(fields, f)
		if n += len(f) + 1; n > 4*80 {
			break
		}
	}
	return cut(strings.Join(fields, " "), 80)
}

// cut shortens s to n characters, adding "…" when it cut.
func cut(s string, n int) string {
	if c := firstChars(s, n); len(c) < len(s) {
		return c + "…"
	}
	return s
}
