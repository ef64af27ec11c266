package encode

import (
	"encoding/json"
	"slices"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/jsontext"
)

// Each Append function here appends one whole line, its newline included, to
// b and returns it; on an error b is given back as it was, so that a
// caller appending to a queue has queued nothing.

// AppendUpdate appends the session/update line of u, byte for byte as
// AppendNotification writes it: a chunk of text and a plain tool_call
// without reflection (chunks.go), anything else through the encoder
// with its long fields written in place (long.go).
func AppendUpdate(b []byte, sessionID string, u acp.Update) ([]byte, error) {
	if update, id, text, ok := textChunk(u); ok {
		line, _ := appendChunkLine(b, sessionID, update, id, text)
		return line, nil
	}
	if tc, ok := plainToolCall(u); ok {
		if line, ok := appendToolCall(b, sessionID, tc); ok {
			return line, nil
		}
	}
	var sp spiller
	u = sp.spill(u)
	return appendNotification(b, acp.MethodSessionUpdate, acp.SessionNotification{SessionID: sessionID, Update: u}, sp.fields)
}

// AppendNotification appends a notification's line, encoded in one pass
// (jsonrpc2's own path marshals the params four times over), HTML
// characters as they are: an update as big as a tool's whole input is
// held once by the caller's buffer, not once more on its way.
func AppendNotification(b []byte, method string, params any) ([]byte, error) {
	return appendNotification(b, method, params, nil)
}

// appendNotification is AppendNotification with the long fields taken out
// of params (long.go) written where their markers stand.
func appendNotification(b []byte, method string, params any, long []longField) ([]byte, error) {
	start := len(b)
	w := appendWriter{b: append(b, `{"jsonrpc":"2.0","method":`...)}
	w.b = jsontext.AppendString(w.b, method)
	w.b = append(w.b, `,"params":`...)
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return b, err
	}
	line := append(w.b[:len(w.b)-1], '}', '\n') // the encoder's newline out
	if len(long) > 0 {
		skel := slices.Clone(line[start:])
		var err error
		if line, err = appendLong(line[:start], skel, long); err != nil {
			return b, err
		}
	}
	return line, nil
}

// appendWriter appends what is written to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// ResultLine is the answer of a request that succeeded, byte for byte as
// jsonrpc2.Response marshals it ({"id":…,"result":…,"jsonrpc":"2.0"}),
// without a second pass of the encoder over the result (its JSON is
// already compact and escaped) or the envelope's reflection at a start;
// no newline. initialize's result is written by hand (initialize.go),
// as acp writes its lines, without escaping <, > and &.
func ResultLine(id acp.ID, result any) ([]byte, error) {
	var res []byte
	switch r := result.(type) {
	case acp.InitializeResult:
		res = appendInitializeResult(nil, &r)
	case *acp.InitializeResult:
		if r == nil {
			res = []byte("null")
		} else {
			res = appendInitializeResult(nil, r)
		}
	default:
		var err error
		if res, err = json.Marshal(result); err != nil {
			return nil, err
		}
	}
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	const head, mid, tail = `{"id":`, `,"result":`, `,"jsonrpc":"2.0"}`
	b := make([]byte, 0, len(head)+len(idJSON)+len(mid)+len(res)+len(tail))
	b = append(append(append(append(append(b, head...), idJSON...), mid...), res...), tail...)
	return b, nil
}
