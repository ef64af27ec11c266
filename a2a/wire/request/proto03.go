package request

import "github.com/shimdev/shim/a2a"

// The ProtoJSON of the A2A 0.3.0 proto (a2a.proto of the 0.3.0
// specification) for an outgoing message: the bodies of 0.3's HTTP+JSON
// binding (package rest, codec 0.3). A message's parts are its "content";
// a part is {"text"}, {"file": {"fileWithUri" | "fileWithBytes",
// "mimeType"}} or {"data": {"data": {…}}}; the role is ROLE_USER.

// MessageProto03 builds a user message as the 0.3.0 proto's
// ProtoJSON. The proto has no part metadata and no file name: a part's
// are left out (a strict ProtoJSON reader refuses an unknown field).
func MessageProto03(m a2a.OutMessage) map[string]any {
	msg := encodeMessage(m)
	parts, _ := msg["parts"].([]map[string]any)
	delete(msg, "parts")
	content := make([]map[string]any, len(parts))
	for i, p := range parts {
		content[i] = partToProto03(p)
	}
	msg["content"] = content
	return msg
}

// partToProto03 converts a part of the 1.0 shape.
func partToProto03(p map[string]any) map[string]any {
	if t, ok := p["text"]; ok {
		return map[string]any{"text": t}
	}
	if d, ok := p["data"]; ok {
		return map[string]any{"data": map[string]any{"data": d}}
	}
	f := map[string]any{}
	if u, ok := p["url"]; ok {
		f["fileWithUri"] = u
	} else if raw, ok := p["raw"]; ok {
		f["fileWithBytes"] = raw
	}
	if mt, ok := p["mediaType"]; ok {
		f["mimeType"] = mt
	}
	return map[string]any{"file": f}
}
