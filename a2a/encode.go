package a2a

import "encoding/base64"

// encodeMessage builds a user message for the dialect.
func encodeMessage(d Dialect, m OutMessage) map[string]any {
	msg := map[string]any{"messageId": NewID()}
	parts := make([]map[string]any, 0, len(m.Parts))
	for _, p := range m.Parts {
		parts = append(parts, encodePart(d, p))
	}
	msg["parts"] = parts
	if d == V03 {
		msg["kind"] = "message"
		msg["role"] = "user"
	} else {
		msg["role"] = "ROLE_USER"
	}
	if m.ContextID != "" {
		msg["contextId"] = m.ContextID
	}
	if m.TaskID != "" {
		msg["taskId"] = m.TaskID
	}
	if len(m.Metadata) > 0 {
		msg["metadata"] = m.Metadata
	}
	return msg
}

func encodePart(d Dialect, p Part) map[string]any {
	out := map[string]any{}
	switch p.Kind {
	case PartFile:
		if d == V03 {
			f := map[string]any{}
			if p.URL != "" {
				f["uri"] = p.URL
			} else {
				f["bytes"] = base64.StdEncoding.EncodeToString(p.Raw)
			}
			if p.MediaType != "" {
				f["mimeType"] = p.MediaType
			}
			if p.Filename != "" {
				f["name"] = p.Filename
			}
			out["kind"], out["file"] = "file", f
			return out
		}
		if p.URL != "" {
			out["url"] = p.URL
		} else {
			out["raw"] = base64.StdEncoding.EncodeToString(p.Raw)
		}
		if p.MediaType != "" {
			out["mediaType"] = p.MediaType
		}
		if p.Filename != "" {
			out["filename"] = p.Filename
		}
	case PartData:
		out["data"] = rawJSON(p.Data)
		if d == V03 {
			out["kind"] = "data"
		}
	default:
		out["text"] = p.Text
		if d == V03 {
			out["kind"] = "text"
		}
	}
	if len(p.Metadata) > 0 {
		out["metadata"] = p.Metadata
	}
	return out
}

type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("{}"), nil
	}
	return r, nil
}
