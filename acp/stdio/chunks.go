package stdio

import (
	"unicode/utf8"

	"github.com/shimdev/shim/acp/encode"
)

// Text chunks of one message merge while they wait: when the last line
// still queued (not yet taken by the writer) is a text chunk of the same
// session and messageId, a new chunk's text is appended to it, up to
// mergeMax bytes of text (chunks of two messages never merge: the editor
// tells them apart by their messageId). Nothing waits for a merge: the
// writer takes whatever has queued the moment it is free, so a lone chunk
// goes out at once, and chunks merge only while the editor (or the
// writer) is behind.

// mergeMax caps the text of one merged chunk update (64 KiB): merging
// never makes a line longer than its longest chunk or this.
const mergeMax = 64 << 10

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
		q.buf, t.end = encode.AppendMergedText(q.buf, t.end, text)
		t.n += len(text)
		return nil
	}
	var end int
	q.buf, end = encode.AppendTextChunk(q.buf, sessionID, key, text)
	q.tail = mergeTail{ok: valid && len(text) <= mergeMax, session: sessionID, key: key, end: end, n: len(text)}
	q.cond.Broadcast()
	return nil
}
