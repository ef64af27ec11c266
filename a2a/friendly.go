package a2a

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// errorCodeRE is compiled on first use, not at every start (an init-time
// regexp costs each cold start ~50 µs).
var errorCodeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^Error code: (\d{3}) - (.*)$`) })

// FriendlyError turns a failed task's status text into a line a person reads.
// "Error code: 429 - {'error': {'type': 't', 'message': 'm'}}" (the object
// in JSON or Python-literal quoting) becomes "m (HTTP 429, t)"; any other
// text is trimmed and cut at 500 characters.
func FriendlyError(detail string) string {
	s := strings.TrimSpace(detail)
	if m := errorCodeRE().FindStringSubmatch(s); m != nil {
		code := m[1]
		var obj map[string]any
		body := strings.TrimSpace(m[2])
		if json.Unmarshal([]byte(body), &obj) != nil {
			if j, ok := pythonToJSON(body); ok {
				_ = json.Unmarshal([]byte(j), &obj)
			}
		}
		if obj != nil {
			inner, _ := obj["error"].(map[string]any)
			msg := firstString(inner, "message")
			if msg == "" {
				msg = firstString(obj, "message")
			}
			typ := firstString(inner, "type", "code")
			if typ == "" {
				typ = firstString(obj, "type")
			}
			switch {
			case msg != "" && typ != "":
				return fmt.Sprintf("%s (HTTP %s, %s)", msg, code, typ)
			case msg != "":
				return fmt.Sprintf("%s (HTTP %s)", msg, code)
			default:
				return fmt.Sprintf("HTTP %s error", code)
			}
		}
	}
	n := 0
	for i := range s {
		if n == 500 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func firstString(o map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := o[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case float64:
			return fmt.Sprint(v)
		}
	}
	return ""
}

// pythonToJSON rewrites a Python literal (single-quoted strings, None,
// True, False) as JSON.
func pythonToJSON(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			q := c
			b.WriteByte('"')
			i++
			for i < len(s) && s[i] != q {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					if s[i+1] == '\'' {
						b.WriteByte('\'')
					} else {
						b.WriteByte('\\')
						b.WriteByte(s[i+1])
					}
					i += 2
					continue
				case s[i] == '"':
					b.WriteString(`\"`)
				default:
					b.WriteByte(s[i])
				}
				i++
			}
			if i >= len(s) {
				return "", false
			}
			b.WriteByte('"')
			i++
		case strings.HasPrefix(s[i:], "None"):
			b.WriteString("null")
			i += 4
		case strings.HasPrefix(s[i:], "True"):
			b.WriteString("true")
			i += 4
		case strings.HasPrefix(s[i:], "False"):
			b.WriteString("false")
			i += 5
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), json.Valid([]byte(b.String()))
}
