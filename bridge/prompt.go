package bridge

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shimdev/shim/a2a"
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
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return prefix + "-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + hex.EncodeToString(b)
}

// promptMessage turns ACP prompt content into the parts of one A2A user
// message, and returns the user's own text (for the title).
func promptMessage(blocks []json.RawMessage) (parts []a2a.Part, userText string, err error) {
	var textBuf strings.Builder
	var user strings.Builder
	flush := func() {
		if textBuf.Len() > 0 {
			parts = append(parts, a2a.Part{Kind: a2a.PartText, Text: textBuf.String()})
			textBuf.Reset()
		}
	}
	for _, raw := range blocks {
		var c contentIn
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, "", fmt.Errorf("prompt content: %v", err)
		}
		switch c.Type {
		case "text":
			textBuf.WriteString(c.Text)
			user.WriteString(c.Text)
		case "resource_link":
			name := c.Name
			if name == "" {
				name = c.URI
			}
			textBuf.WriteString("[@" + name + "](" + c.URI + ")")
			user.WriteString("@" + name)
		case "resource":
			if c.Resource == nil {
				continue
			}
			if c.Resource.Text != nil {
				if textBuf.Len() > 0 && !strings.HasSuffix(textBuf.String(), "\n") {
					textBuf.WriteString("\n")
				}
				fmt.Fprintf(&textBuf, "<file uri=%q>\n%s\n</file>\n", c.Resource.URI, *c.Resource.Text)
			} else {
				fmt.Fprintf(&textBuf, "\n[attached binary resource %s (%s) not forwarded]\n", c.Resource.URI, orUnknown(c.Resource.MimeType))
			}
		case "image":
			data, derr := base64.StdEncoding.DecodeString(c.Data)
			if derr != nil {
				return nil, "", fmt.Errorf("image content: invalid base64 data")
			}
			flush()
			parts = append(parts, a2a.Part{Kind: a2a.PartFile, Raw: data, MediaType: c.MimeType})
		default:
			fmt.Fprintf(&textBuf, "\n[%s content not forwarded: the remote agent does not accept it]\n", orUnknown(c.Type))
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
// whitespace collapsed, "…" when cut.
func titleOf(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	return cut(s, 80)
}
