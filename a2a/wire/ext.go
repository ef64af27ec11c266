package wire

// The extensions shim understands, read once as a message or an artifact
// is decoded (SPEC §3.3): tool-call-v1 in the message metadata or in data
// parts, tool-event parts (a server's function and code parts:
// departures.go), reasoning-v1 and thought texts, hitl-v1 parks,
// steer-consumed-v1, the hitl_resume flag, cost-v1 and context-v1; and the
// plain data parts of a park (park.go).

import (
	"bytes"
	"encoding/json"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire/extension"
	"github.com/shimdev/shim/internal/jsontext"
)

// readMessageExt fills in what m's extensions say; md is its metadata
// object.
func readMessageExt(m *a2a.Message, md json.RawMessage) {
	if md != nil { // (keys is allocated here only: it escapes)
		var keys messageMeta
		readKeys(md, &keys)
		m.Tools = extension.ToolCalls(keys.ToolCall)
		m.Resume = jsontext.IsTrue(keys.Resume)
	}
	events := false              // a tool-event part was read as a call
	var parkTools []a2a.ToolCall // the calls but those of tool-event parts, once events
	plain := false               // a data part of no extension shim knows
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.Thought() {
			m.Reasoning = append(m.Reasoning, p.Text)
		}
		if p.Kind != a2a.PartData {
			continue
		}
		n := len(m.Tools)
		switch event := readDataPart(m, p); {
		case event && !events:
			events, parkTools = true, append(parkTools, m.Tools[:n]...)
		case !event && events:
			parkTools = append(parkTools, m.Tools[n:]...)
		}
		plain = plain || !p.Vendor()
	}
	m.ParkTools = m.Tools
	if events {
		// In a park, a tool-event part is the park's data
		// (Status.ToolCalls).
		m.ParkTools = parkTools
	}
	if plain {
		m.Data = parkData(m.Parts)
	}
}

// readDataPart reads what one data part of m says; event reports a
// tool-event part read as a call.
func readDataPart(m *a2a.Message, p *a2a.Part) (event bool) {
	switch p.MimeType {
	case a2a.MimeToolCall:
		if tc, ok := extension.ToolCall(p); ok {
			m.Tools = append(m.Tools, tc)
		}
		return false
	case a2a.MimeReasoning:
		if s := extension.Reasoning(p); s != "" {
			m.Reasoning = append(m.Reasoning, s)
		}
	case a2a.MimeHitl:
		if m.Park == nil {
			m.Park = extension.Park(p, m)
		}
	case a2a.MimeSteerConsumed:
		m.Steers = append(m.Steers, extension.Steers(p)...)
	}
	tc, ok := toolEvent(p)
	if ok {
		m.Tools = append(m.Tools, tc)
	}
	return ok
}

// readArtifactExt fills in what a's extensions say; md is its metadata
// object (read whatever its size: a.Metadata keeps a small one only).
func readArtifactExt(a *a2a.Artifact, md json.RawMessage) {
	if md != nil { // (keys is allocated here only: it escapes)
		var keys artifactMeta
		readKeys(md, &keys)
		a.Cost = extension.Cost(keys.Cost)
	}
	window := false // a context-v1 part was read
	for i := range a.Parts {
		p := &a.Parts[i]
		switch {
		case p.Kind != a2a.PartData:
		case p.MimeType == a2a.MimeCost && a.Cost == nil:
			a.Cost = extension.CostPart(p)
		case p.MimeType == a2a.MimeContext && !window:
			window = true
			a.Window = extension.Context(p)
		}
	}
}

// The members of the objects shim reads a few keys of (metadata and
// extension payloads), each value kept as its raw JSON, decoded by what
// reads it. The keys are matched exactly, as a map's would be.
type (
	messageMeta struct {
		ToolCall json.RawMessage `json:"https://proto-labs.ai/a2a/ext/tool-call-v1"` // a2a.ExtToolCall
		Resume   json.RawMessage `json:"hitl_resume"`                                // metaResume
	}
	artifactMeta struct {
		Cost json.RawMessage `json:"https://proto-labs.ai/a2a/ext/cost-v1"` // a2a.ExtCost
	}
	partMeta struct {
		MimeType  json.RawMessage `json:"mimeType"`
		MimeType2 json.RawMessage `json:"mime_type"`
		adkMarks                  // departures.go
	}
)

// readKeys reads the members of the JSON object raw that v (one of the
// types above) names into v, each value sharing raw; it reports whether
// raw is an object (else v is left empty).
func readKeys(raw json.RawMessage, v any) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	return parse(raw, v, fastjson.DontCopyRawMessage|fastjson.DontMatchCaseInsensitiveStructFields) == nil
}

// readPartMeta reads what shim reads of a part's metadata object m: its
// mime type, and whether it is a tool event or a thought.
func readPartMeta(out *a2a.Part, m json.RawMessage) {
	var keys partMeta
	readKeys(m, &keys)
	if s, ok := jsontext.String(keys.MimeType); ok {
		out.MimeType = s
	} else if s, ok := jsontext.String(keys.MimeType2); ok {
		out.MimeType = s
	}
	keys.mark(out)
}

// ownMeta is a wire value's metadata as the model keeps it: nil when it
// is no object, or larger than keptMetaMax.
func ownMeta(m wireMeta, big int) json.RawMessage {
	if m = meta(m); m == nil || len(m) > keptMetaMax {
		return nil
	}
	return own(m, big)
}

// keptMetaMax is the largest metadata object a message, an artifact or a
// part keeps as its raw JSON (Metadata) once decoded: what shim reads of a
// larger one is read as it is decoded, and the object is not kept, so that
// no model value holds on to a big frame (a tool call's 40 MiB args in a
// message's metadata: the frame is let go once the args are read).
const keptMetaMax = 64 << 10

// keysOf are the members of a JSON object, each value kept as its raw
// JSON (sharing raw): nil for anything but an object. A key given twice
// reads as its last value, as encoding/json reads it into a map.
func keysOf(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if parseRaw(raw, &m) != nil {
		return nil
	}
	return m
}

// Member is the raw value of key in the JSON object raw: nil when raw is
// no object or has no such key (an agent profile reads its own metadata
// keys with it).
func Member(raw json.RawMessage, key string) json.RawMessage { return keysOf(raw)[key] }

// String is a raw value as a string: empty for anything but a string.
func String(raw json.RawMessage) string { return rawStr(raw) }

// parseRaw decodes raw into v, the raw values v holds sharing raw.
func parseRaw(raw []byte, v any) error {
	return parse(raw, v, fastjson.DontCopyRawMessage)
}

// rawStr is a raw value as a string: empty for anything but a string.
func rawStr(raw json.RawMessage) string {
	s, _ := jsontext.String(raw)
	return s
}
