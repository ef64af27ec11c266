package request

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/jsontext"
	"github.com/shimdev/shim/internal/randid"
)

// A spelling is how one dialect spells a request's parts, each built in
// the 1.0 shape first: the conversion at the edge (1.0: none).
type spelling struct {
	// message converts a message of the 1.0 shape.
	message func(map[string]any) map[string]any
	// configuration asks a blocking send to answer once the task exists.
	configuration func() map[string]any
	// historyAll is the historyLength that asks for a task's whole
	// history, and whether one is sent.
	historyAll func() (int, bool)
}

var spellings = map[a2a.Dialect]spelling{
	a2a.V10: {
		message:       func(m map[string]any) map[string]any { return m },
		configuration: func() map[string]any { return map[string]any{"returnImmediately": true} },
		// Unset means no limit in 1.0.
		historyAll: func() (int, bool) { return 0, false },
	},
	a2a.V03: {
		message:       messageTo03,
		configuration: func() map[string]any { return map[string]any{"blocking": false} },
		historyAll:    func() (int, bool) { return history03Max, true },
	},
}

// spellingOf is d's spelling; a dialect of no spelling (none) is 1.0's.
func spellingOf(d a2a.Dialect) spelling {
	if s, ok := spellings[d]; ok {
		return s
	}
	return spellings[a2a.V10]
}

// Message builds a user message for the dialect.
func Message(d a2a.Dialect, m a2a.OutMessage) map[string]any {
	return spellingOf(d).message(encodeMessage(m))
}

// SendConfiguration asks a blocking send to answer once the task exists.
func SendConfiguration(d a2a.Dialect) map[string]any { return spellingOf(d).configuration() }

// history03Max is the historyLength a 0.3 request for the whole history
// sends. A2A 1.0 reads an unset historyLength as no limit, but 0.3 says
// nothing, and servers differ: the @a2a-js/sdk 0.3 server answers with
// no history at all. 1,000 messages keep the 100 tasks one session/load
// may read (SPEC §13) within a long thread's reach while bounding what one
// answer asks the server for.
const history03Max = 1000

// HistoryLength is the historyLength a request of dialect d sends for n,
// and whether it sends one: n itself when n >= 0; for a2a.HistoryAll what
// the dialect spells it (none in 1.0, history03Max in 0.3).
func HistoryLength(d a2a.Dialect, n int) (int, bool) {
	if n >= 0 {
		return n, true
	}
	return spellingOf(d).historyAll()
}

// encodeMessage builds a user message in the 1.0 shape.
func encodeMessage(m a2a.OutMessage) map[string]any {
	msg := map[string]any{"messageId": randid.UUID(), "role": "ROLE_USER"}
	if len(m.Parts) == 0 && m.Approval != nil {
		answer := a2a.AnswerDenied
		if m.Approval.Allow {
			answer = a2a.AnswerApproved
		}
		m.Parts = []a2a.Part{{Kind: a2a.PartText, Text: string(answer)}}
	}
	if len(m.Parts) == 0 && len(m.Values) > 0 {
		// The values as data, and their JSON as text for agents that
		// read only text.
		m.Parts = []a2a.Part{{Kind: a2a.PartData, Data: m.Values}, {Kind: a2a.PartText, Text: string(m.Values)}}
	}
	parts := make([]map[string]any, 0, len(m.Parts))
	for _, p := range m.Parts {
		parts = append(parts, encodePart(p))
	}
	msg["parts"] = parts
	if m.ContextID != "" {
		msg["contextId"] = m.ContextID
	}
	if m.TaskID != "" {
		msg["taskId"] = m.TaskID
	}
	if meta := metadataOf(m); len(meta) > 0 {
		msg["metadata"] = meta
	}
	return msg
}

// messageTo03 converts a message of the 1.0 shape to 0.3's: kind-tagged,
// its role a word, a file part's members in a file object.
func messageTo03(msg map[string]any) map[string]any {
	msg["kind"], msg["role"] = "message", "user"
	parts, _ := msg["parts"].([]map[string]any)
	for i, p := range parts {
		parts[i] = partTo03(p)
	}
	return msg
}

func partTo03(p map[string]any) map[string]any {
	if _, ok := p["text"]; ok {
		p["kind"] = "text"
		return p
	}
	if _, ok := p["data"]; ok {
		p["kind"] = "data"
		return p
	}
	f := map[string]any{}
	for from, to := range map[string]string{"url": "uri", "raw": "bytes", "mediaType": "mimeType", "filename": "name"} {
		if v, ok := p[from]; ok {
			f[to] = v
		}
	}
	out := map[string]any{"kind": "file", "file": f}
	if meta, ok := p["metadata"]; ok {
		out["metadata"] = meta
	}
	return out
}

// The message metadata keys of OutMessage's intents.
const (
	metaResume    = "hitl_resume"
	metaBypass    = "bypass_permissions"
	metaSkillHint = "skillHint"
	metaModel     = "model"
)

// metadataOf spells the message's intents; nil when it has none.
func metadataOf(m a2a.OutMessage) map[string]any {
	var meta map[string]any
	set := func(k string, v any) {
		if meta == nil {
			meta = map[string]any{}
		}
		meta[k] = v
	}
	if m.Resume {
		set(metaResume, true)
	}
	if m.Bypass {
		set(metaBypass, true)
	}
	if m.SkillHint != "" {
		set(metaSkillHint, m.SkillHint)
	}
	if m.Model != "" {
		set(metaModel, m.Model)
	}
	return meta
}

// encodePart builds a part in the 1.0 shape.
func encodePart(p a2a.Part) map[string]any {
	out := map[string]any{}
	switch p.Kind {
	case a2a.PartFile:
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
	case a2a.PartData:
		out["data"] = rawJSON(p.Data)
	default:
		if len(p.Text) > longTextMin {
			out["text"] = newLongText(p.Text)
		} else {
			out["text"] = p.Text
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

// A text part longer than longTextMin is left out of json.Marshal, which
// would grow its buffer by doubling and copy the result once more (about
// 4× the text), and escaped straight into a body of its exact size.
const longTextMin = 64 << 10

// longText stands for a long text in the value given to json.Marshal.
type longText struct {
	s  string
	id string
}

func (l *longText) MarshalJSON() ([]byte, error) { return []byte(`"` + l.id + `"`), nil }

var longSeq atomic.Int64

func newLongText(s string) *longText {
	return &longText{s: s, id: "shim-long-text-" + longNonce() + "-" + strconv.FormatInt(longSeq.Add(1), 10)}
}

// longNonce makes the markers of this process ones no text holds; drawn on
// first use, not at every start.
var longNonce = sync.OnceValue(func() string { return randid.Hex(8) })

// collectLong finds the long texts of an encoded message.
func collectLong(v any, out *[]*longText) {
	switch x := v.(type) {
	case *longText:
		*out = append(*out, x)
	case map[string]any:
		for _, e := range x {
			collectLong(e, out)
		}
	case []map[string]any:
		for _, e := range x {
			collectLong(e, out)
		}
	case []any:
		for _, e := range x {
			collectLong(e, out)
		}
	}
}

// marshalSpliced marshals v with its long texts escaped in place.
func marshalSpliced(v any, longs []*longText) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(longs) == 0 {
		return b, err
	}
	type spot struct {
		at, n int
		s     string
	}
	spots := make([]spot, 0, len(longs))
	size := len(b)
	for _, l := range longs {
		ph := `"` + l.id + `"`
		at := bytes.Index(b, []byte(ph))
		if at < 0 {
			continue
		}
		spots = append(spots, spot{at: at, n: len(ph), s: l.s})
		size += jsonStringLen(l.s) - len(ph)
	}
	slices.SortFunc(spots, func(a, b spot) int { return a.at - b.at })
	if size >= 8<<20 {
		// What the caller decoded the text from (a prompt's request line)
		// is garbage by now; collecting it first lets the body reuse its
		// memory instead of growing the process by as much again.
		runtime.GC()
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, sp := range spots {
		out = append(out, b[prev:sp.at]...)
		out = appendJSONString(out, sp.s)
		prev = sp.at + sp.n
	}
	return append(out, b[prev:]...), nil
}

// jsonStringLen is the length of s as a JSON string, as appendJSONString
// writes it.
func jsonStringLen(s string) int { return jsontext.Len(s) }

// appendJSONString appends s as a JSON string, escaped as encoding/json
// does without HTML escaping (invalid UTF-8 becomes U+FFFD).
func appendJSONString(dst []byte, s string) []byte { return jsontext.AppendString(dst, s) }

// rpcRequest is a JSON-RPC request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// RPC marshals a JSON-RPC request, the long texts of its params spliced
// in without a copy.
func RPC(id int64, method string, params any) []byte {
	var longs []*longText
	collectLong(params, &longs)
	b, _ := marshalSpliced(rpcRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params}, longs)
	return b
}

// Body marshals a request body, long texts spliced in without a copy.
func Body(v any) []byte {
	var longs []*longText
	collectLong(v, &longs)
	b, _ := marshalSpliced(v, longs)
	return b
}
