package acp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/shimdev/shim/internal/jsontext"
)

// Text chunks of one message merge while they wait: when the last line
// still queued (not yet taken by the writer) is a text chunk of the same
// session and messageId, a new chunk's text is appended to it, up to
// mergeMax bytes of text (chunks of two messages never merge: the editor
// tells them apart by their messageId). Nothing waits for a merge: the writer takes whatever has
// queued the moment it is free, so a lone chunk goes out at once, and
// chunks merge only while the editor (or the writer) is behind.

// mergeMax caps the text of one merged chunk update (64 KiB): merging
// never makes a line longer than its longest chunk or this.
const mergeMax = 64 << 10

// mergeTail locates the text chunk at the end of the queue.
type mergeTail struct {
	ok      bool
	session string
	key     string
	end     int // offset of the chunk's closing `"}}}}` in the queue
	n       int // bytes of text in the chunk
}

// The session/update line of an agent_message_chunk of text, around its
// message id and its escaped text: the bytes appendNotification writes
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
// start of its update object; ok is false for any other update. Such a
// chunk is written by appendChunk, byte for byte as appendNotification
// writes it, without reflection (a replay writes ten thousand).
func textChunk(u Update) (update, messageID, text string, ok bool) {
	var c ContentBlock
	switch m := u.(type) {
	case AgentMessageChunk:
		update, messageID, c = chunkUpdate, m.MessageID, m.Content
	case UserMessageChunk:
		update, messageID, c = userChunkUpdate, m.MessageID, m.Content
	case AgentThoughtChunk:
		update, messageID, c = thoughtChunkUpdate, m.MessageID, m.Content
	default:
		return "", "", "", false
	}
	t, ok := c.(TextContent)
	return update, messageID, t.Text, ok
}

// SendText queues answer text (an agent_message_chunk of text, of the
// message messageID) like Send, without waiting; the text merges into the
// chunk at the end of the queue when that one is of the same session and
// message and both fit in mergeMax. The editor reads exactly the same
// text, in the same order, in fewer updates.
func (c *Conn) SendText(sessionID, messageID, text string) error {
	return c.s.out.appendText(sessionID, messageID, text)
}

// appendText queues a text chunk, merged when it can be. Only valid UTF-8
// merges: the JSON of a+b is then the JSON of a followed by the JSON of b.
func (q *queue) appendText(sessionID, key, text string) error {
	valid := utf8.ValidString(text)
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(); err != nil {
		return err
	}
	if t := &q.tail; valid && t.ok && t.session == sessionID && t.key == key && t.n+len(text) <= mergeMax {
		q.buf = appendJSONText(q.buf[:t.end], text)
		t.end = len(q.buf)
		t.n += len(text)
		q.buf = append(q.buf, chunkEnd...)
		return nil
	}
	end := q.appendChunkLine(sessionID, chunkUpdate, key, text)
	q.tail = mergeTail{ok: valid && len(text) <= mergeMax, session: sessionID, key: key, end: end, n: len(text)}
	return nil
}

// appendChunk queues a chunk of text (textChunk) as its own update, as
// appendNotification does: nothing merges into it.
func (q *queue) appendChunk(sessionID, update, key, text string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(); err != nil {
		return err
	}
	q.appendChunkLine(sessionID, update, key, text)
	q.tail.ok = false
	return nil
}

// appendChunkLine appends the line of a chunk of text and returns the
// offset of its closing `"}}}}`; q.mu is held.
func (q *queue) appendChunkLine(sessionID, update, key, text string) int {
	b := append(q.buf, chunkHead...)
	b = appendJSONString(b, sessionID)
	b = append(b, update...)
	if key != "" {
		b = append(b, chunkID...)
		b = appendJSONString(b, key)
	}
	b = append(b, chunkContent...)
	b = appendJSONText(b, text)
	end := len(b)
	q.buf = append(b, chunkEnd...)
	q.cond.Broadcast()
	return end
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping off.
func appendJSONString(b []byte, s string) []byte { return jsontext.AppendString(b, s) }

// appendJSONText appends the inside of s as a JSON string, byte for byte
// what encoding/json writes with SetEscapeHTML(false)
// (TestAppendJSONTextLikeEncodingJSON).
func appendJSONText(b []byte, s string) []byte { return jsontext.AppendText(b, s) }

// The session/update line of a tool_call, around its fields: the bytes
// appendNotification writes for it.
const (
	toolCallUpdate = `,"update":{"sessionUpdate":"tool_call","toolCallId":`
	toolTextItem   = `{"type":"content","content":{"type":"text","text":`
)

// plainToolCall reports whether u is a tool_call appendToolCall writes:
// no _meta, content of text blocks only, no long field (long.go).
func plainToolCall(u Update) (ToolCall, bool) {
	tc, ok := u.(ToolCall)
	if !ok || tc.Meta != nil || len(tc.RawInput) >= longMin || len(tc.RawOutput) >= longMin {
		return ToolCall{}, false
	}
	for _, c := range tc.Content {
		if cc, ok := c.(Content); !ok {
			return ToolCall{}, false
		} else if _, ok := cc.Content.(TextContent); !ok {
			return ToolCall{}, false
		}
	}
	return tc, true
}

// appendToolCall queues a plain tool_call (plainToolCall) byte for byte
// as appendNotification writes it, without reflection (a replay writes
// one a call); its raw input and output compacted as the encoder
// compacts them. false: a raw value is no JSON, nothing was queued.
func (q *queue) appendToolCall(sessionID string, tc ToolCall) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.usable(); err != nil {
		return true, err
	}
	start := len(q.buf)
	b := append(q.buf, chunkHead...)
	b = appendJSONString(b, sessionID)
	b = append(b, toolCallUpdate...)
	b = appendJSONString(b, tc.ToolCallID)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, tc.Title)
	if tc.Kind != "" {
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, tc.Kind)
	}
	if tc.Status != "" {
		b = append(b, `,"status":`...)
		b = appendJSONString(b, string(tc.Status))
	}
	if len(tc.Content) > 0 {
		b = append(b, `,"content":[`...)
		for i, c := range tc.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, toolTextItem...)
			b = appendJSONString(b, c.(Content).Content.(TextContent).Text)
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	if len(tc.Locations) > 0 {
		b = append(b, `,"locations":[`...)
		for i, l := range tc.Locations {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendJSONString(b, l.Path)
			if l.Line != 0 {
				b = append(b, `,"line":`...)
				b = strconv.AppendInt(b, int64(l.Line), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{`,"rawInput":`, tc.RawInput}, {`,"rawOutput":`, tc.RawOutput}} {
		if len(f.raw) == 0 {
			continue
		}
		buf := bytes.NewBuffer(append(b, f.key...))
		if json.Compact(buf, f.raw) != nil {
			q.buf = q.buf[:start] // the encoder says what is wrong
			return false, nil
		}
		b = buf.Bytes()
	}
	q.buf = append(b, "}}}\n"...)
	q.tail.ok = false
	q.cond.Broadcast()
	return true, nil
}
