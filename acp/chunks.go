package acp

import (
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
