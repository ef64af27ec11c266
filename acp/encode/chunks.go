package encode

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/jsontext"
)

// A chunk of text and a plain tool_call are written without reflection
// (a replay writes ten thousand of the first and one a call of the
// second), byte for byte as AppendNotification writes them.

// The session/update line of an agent_message_chunk of text, around its
// message id and its escaped text: the bytes AppendNotification writes
// for it.
const (
	chunkHead    = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`
	chunkUpdate  = `,"update":{"sessionUpdate":"agent_message_chunk"`
	chunkID      = `,"messageId":`
	chunkContent = `,"content":{"type":"text","text":"`
	chunkEnd     = `"}}}}` + "\n"
)

// The other chunks of text written the same way (textChunk).
const (
	userChunkUpdate    = `,"update":{"sessionUpdate":"user_message_chunk"`
	thoughtChunkUpdate = `,"update":{"sessionUpdate":"agent_thought_chunk"`
)

// textChunk is the text and message id of a chunk of text u is, and the
// start of its update object; ok is false for any other update.
func textChunk(u acp.Update) (update, messageID, text string, ok bool) {
	var c acp.ContentBlock
	switch m := u.(type) {
	case acp.AgentMessageChunk:
		update, messageID, c = chunkUpdate, m.MessageID, m.Content
	case acp.UserMessageChunk:
		update, messageID, c = userChunkUpdate, m.MessageID, m.Content
	case acp.AgentThoughtChunk:
		update, messageID, c = thoughtChunkUpdate, m.MessageID, m.Content
	default:
		return "", "", "", false
	}
	t, ok := c.(acp.TextContent)
	return update, messageID, t.Text, ok
}

// AppendTextChunk appends the session/update line of an
// agent_message_chunk of text of the message messageID, and returns the
// offset in it where the text ends: AppendMergedText adds more text
// there.
func AppendTextChunk(b []byte, sessionID, messageID, text string) (line []byte, textEnd int) {
	return appendChunkLine(b, sessionID, chunkUpdate, messageID, text)
}

// AppendMergedText appends text to the text of the chunk line that ends b,
// whose text ends at textEnd (AppendTextChunk), and returns where the
// text ends now. Only valid UTF-8 merges: the JSON of a+b is then the
// JSON of a followed by the JSON of b; the caller checks.
func AppendMergedText(b []byte, textEnd int, text string) (line []byte, newEnd int) {
	b = jsontext.AppendText(b[:textEnd], text)
	newEnd = len(b)
	return append(b, chunkEnd...), newEnd
}

// appendChunkLine appends the line of a chunk of text and returns the
// offset of its closing `"}}}}`.
func appendChunkLine(b []byte, sessionID, update, key, text string) ([]byte, int) {
	b = append(b, chunkHead...)
	b = jsontext.AppendString(b, sessionID)
	b = append(b, update...)
	if key != "" {
		b = append(b, chunkID...)
		b = jsontext.AppendString(b, key)
	}
	b = append(b, chunkContent...)
	b = jsontext.AppendText(b, text)
	end := len(b)
	return append(b, chunkEnd...), end
}

// The session/update line of a tool_call, around its fields: the bytes
// AppendNotification writes for it.
const (
	toolCallUpdate = `,"update":{"sessionUpdate":"tool_call","toolCallId":`
	toolTextItem   = `{"type":"content","content":{"type":"text","text":`
)

// plainToolCall reports whether u is a tool_call appendToolCall writes:
// no _meta, content of text blocks only, no long field (long.go).
func plainToolCall(u acp.Update) (acp.ToolCall, bool) {
	tc, ok := u.(acp.ToolCall)
	if !ok || tc.Meta != nil || len(tc.RawInput) >= longMin || len(tc.RawOutput) >= longMin {
		return acp.ToolCall{}, false
	}
	for _, c := range tc.Content {
		if cc, ok := c.(acp.Content); !ok {
			return acp.ToolCall{}, false
		} else if _, ok := cc.Content.(acp.TextContent); !ok {
			return acp.ToolCall{}, false
		}
	}
	return tc, true
}

// appendToolCall appends the line of a plain tool_call (plainToolCall)
// byte for byte as AppendNotification writes it, its raw input and output
// compacted as the encoder compacts them. false: a raw value is no JSON,
// b is given back as it was.
func appendToolCall(b []byte, sessionID string, tc acp.ToolCall) ([]byte, bool) {
	start := len(b)
	b = append(b, chunkHead...)
	b = jsontext.AppendString(b, sessionID)
	b = append(b, toolCallUpdate...)
	b = jsontext.AppendString(b, tc.ToolCallID)
	b = append(b, `,"title":`...)
	b = jsontext.AppendString(b, tc.Title)
	if tc.Kind != "" {
		b = append(b, `,"kind":`...)
		b = jsontext.AppendString(b, tc.Kind)
	}
	if tc.Status != "" {
		b = append(b, `,"status":`...)
		b = jsontext.AppendString(b, string(tc.Status))
	}
	b = appendTextItems(b, tc.Content)
	b = appendLocations(b, tc.Locations)
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{`,"rawInput":`, tc.RawInput}, {`,"rawOutput":`, tc.RawOutput}} {
		if len(f.raw) == 0 {
			continue
		}
		buf := bytes.NewBuffer(append(b, f.key...))
		if json.Compact(buf, f.raw) != nil {
			return b[:start], false // the encoder says what is wrong
		}
		b = buf.Bytes()
	}
	return append(b, "}}}\n"...), true
}

// appendTextItems appends a plain tool_call's content: text blocks only.
func appendTextItems(b []byte, content []acp.ToolCallContent) []byte {
	if len(content) == 0 {
		return b
	}
	b = append(b, `,"content":[`...)
	for i, c := range content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, toolTextItem...)
		b = jsontext.AppendString(b, c.(acp.Content).Content.(acp.TextContent).Text)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// appendLocations appends a tool_call's locations.
func appendLocations(b []byte, locations []acp.Location) []byte {
	if len(locations) == 0 {
		return b
	}
	b = append(b, `,"locations":[`...)
	for i, l := range locations {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = jsontext.AppendString(b, l.Path)
		if l.Line != 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(l.Line), 10)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
