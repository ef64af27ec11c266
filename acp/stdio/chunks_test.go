package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/shimdev/shim/acp"
)

// encodingJSON is how encoding/json writes v with HTML escaping off.
func encodingJSON(t testing.TB, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var jsonTextCases = []string{"", "plain", "a\"b\\c/d", "\b\f\n\r\t\x00\x01\x1f\x7f", "<b>&amp;</b>", "é ü 中文 🎉",
	"\u2028\u2029", "bad \xff utf8 \xe2\x82", "\xed\xa0\x80 surrogate", "\"}}}}\n{\"jsonrpc\""}

// randomText is n runes of text with escapes and multi-byte runes; with
// raw set, also arbitrary bytes (invalid UTF-8).
func randomText(rng *rand.Rand, n int, raw bool) string {
	pool := []string{"a", "b", " ", "\n", "\t", "\"", "\\", "\x01", "é", "中", "🎉", "\u2028", "<", "&"}
	var b strings.Builder
	for range n {
		if raw && rng.IntN(8) == 0 {
			b.WriteByte(byte(rng.IntN(256)))
			continue
		}
		b.WriteString(pool[rng.IntN(len(pool))])
	}
	return b.String()
}

// gateWriter blocks its first Write until released, and says when it is
// inside it: while it blocks, everything else queues behind it.
type gateWriter struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	buf     bytes.Buffer
}

func newGate() *gateWriter {
	return &gateWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.once.Do(func() { close(g.entered); <-g.release })
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

// notifyLine is the line notify writes for one text chunk of the message
// messageID.
func notifyLine(t testing.TB, sessionID, messageID, s string) string {
	var out bytes.Buffer
	st := newStream(bytes.NewReader(nil), &out, slog.New(slog.DiscardHandler), lineMaxBytes)
	if err := st.notify(acp.MethodSessionUpdate, acp.SessionNotification{SessionID: sessionID, Update: acp.AgentMessageChunk{MessageID: messageID, Content: acp.Text(s)}}); err != nil {
		t.Fatal(err)
	}
	st.flushClose()
	return out.String()
}

type queued struct {
	session, message, text string
	other                  bool // a message that is not a text chunk
}

// TestTextChunkMerge: chunks queued behind a busy writer merge per
// session and messageId, in order, byte for byte what the unmerged lines
// carry (each with its messageId), each merged text at most mergeMax;
// anything between two chunks (another session, another message id,
// another JSON-RPC message) ends a merge.
func TestTextChunkMerge(t *testing.T) {
	for name, script := range mergeScripts() {
		t.Run(name, func(t *testing.T) {
			got := queueBehindBusyWriter(t, script)
			if want := mergedModel(t, script); got != want {
				t.Fatalf("wrote\n%.2000s\nwant\n%.2000s", got, want)
			}
			// And what the editor reads: every session's text, in order.
			texts := map[string]string{}
			for _, q := range script {
				if !q.other {
					var seen string // what a reader of the unmerged line gets
					_ = json.Unmarshal([]byte(encodingJSON(t, q.text)), &seen)
					texts[q.session] += seen
				}
			}
			read := readTexts(t, got, !strings.Contains(name, "random"))
			for sid, w := range texts {
				if read[sid] != w {
					t.Errorf("session %s read %.200q…, want %.200q…", sid, read[sid], w)
				}
			}
			if name == "cap" && strings.Count(got, "\n") != 3 {
				t.Errorf("100 KiB in 1 KiB chunks made %d lines, want 3 (the first, 64 KiB, 36 KiB)", strings.Count(got, "\n"))
			}
			if name == "one message" && strings.Count(got, "\n") != 2 {
				t.Errorf("three queued chunks of one message made %d lines, want 2 (the first, one merged)", strings.Count(got, "\n"))
			}
		})
	}
}

// mergeScripts are TestTextChunkMerge's scripts: the cases by hand, a
// cap, and random ones.
func mergeScripts() map[string][]queued {
	rng := rand.New(rand.NewPCG(7, 11))
	big := strings.Repeat("x", 1<<10)
	scripts := map[string][]queued{
		"one message":     {{session: "s1", message: "a", text: "Hel"}, {session: "s1", message: "a", text: "lo, "}, {session: "s1", message: "a", text: "world"}},
		"two messages":    {{session: "s1", message: "a", text: "x"}, {session: "s1", message: "b", text: "\n\ny"}, {session: "s1", message: "b", text: "z"}},
		"two sessions":    {{session: "s1", message: "a", text: "1"}, {session: "s2", message: "a", text: "2"}, {session: "s1", message: "a", text: "3"}},
		"a reply between": {{session: "s1", message: "a", text: "1"}, {other: true}, {session: "s1", message: "a", text: "2"}},
		"invalid utf-8":   {{session: "s1", message: "a", text: "ok \xe2\x82"}, {session: "s1", message: "a", text: "\xac after"}},
	}
	var capped []queued // 100 KiB in 1 KiB chunks: two updates, 64 + 36 KiB
	for range 100 {
		capped = append(capped, queued{session: "s1", message: "a", text: big})
	}
	scripts["cap"] = capped
	for i := range 20 {
		var q []queued
		for range 1 + rng.IntN(60) {
			switch rng.IntN(10) {
			case 0:
				q = append(q, queued{other: true})
			default:
				q = append(q, queued{session: fmt.Sprint("s", rng.IntN(2)), message: fmt.Sprint("a", rng.IntN(2)), text: randomText(rng, rng.IntN(300), rng.IntN(4) == 0)})
			}
		}
		scripts[fmt.Sprint("random ", i)] = q
	}
	return scripts
}

// queueBehindBusyWriter queues the script while the writer holds a first
// line, then lets it write, and returns what was written.
func queueBehindBusyWriter(t *testing.T, script []queued) string {
	g := newGate()
	s := newStream(bytes.NewReader(nil), g, slog.New(slog.DiscardHandler), lineMaxBytes)
	if err := s.out.post([]byte(`{"first":true}`), false); err != nil {
		t.Fatal(err)
	}
	<-g.entered // the writer holds the first line; the rest queues
	for _, q := range script {
		var err error
		if q.other {
			err = s.out.post([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), false)
		} else {
			err = s.out.appendText(q.session, q.message, q.text)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	close(g.release)
	s.flushClose()
	return g.buf.String()
}

// mergedModel is what the script should write. The model: consecutive
// valid chunks of one session and message join while the join fits in
// mergeMax.
func mergedModel(t *testing.T, script []queued) string {
	want := `{"first":true}` + "\n"
	var cur *queued
	endCur := func() {
		if cur != nil {
			want += notifyLine(t, cur.session, cur.message, cur.text)
			cur = nil
		}
	}
	for _, q := range script {
		switch {
		case q.other:
			endCur()
			want += `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
		case cur != nil && cur.session == q.session && cur.message == q.message && utf8.ValidString(cur.text) &&
			utf8.ValidString(q.text) && len(cur.text)+len(q.text) <= mergeMax:
			cur.text += q.text
		default:
			endCur()
			c := q
			cur = &c
		}
	}
	endCur()
	return want
}

// readTexts is the text of each session an editor reads in the lines
// written; with capped, an update of more than mergeMax bytes of text is
// an error.
func readTexts(t *testing.T, written string, capped bool) map[string]string {
	read := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(written))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Params struct {
				SessionID string `json:"sessionId"`
				Update    struct {
					Content struct{ Text string } `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		if len(m.Params.Update.Content.Text) > mergeMax && capped {
			t.Errorf("an update of %d bytes of text, above the %d cap", len(m.Params.Update.Content.Text), mergeMax)
		}
		read[m.Params.SessionID] += m.Params.Update.Content.Text
	}
	return read
}

// TestTextChunkLineLikeNotify: a chunk that merges with nothing is the
// line notify writes for it, its messageId included (none when empty).
func TestTextChunkLineLikeNotify(t *testing.T) {
	for _, id := range []string{"a", "task-1/artifact \"2\"", ""} {
		for _, text := range jsonTextCases {
			var out bytes.Buffer
			s := newStream(bytes.NewReader(nil), &out, slog.New(slog.DiscardHandler), lineMaxBytes)
			if err := s.out.appendText("chat-\"zed\"-1", id, text); err != nil {
				t.Fatal(err)
			}
			s.flushClose()
			if want := notifyLine(t, "chat-\"zed\"-1", id, text); out.String() != want {
				t.Errorf("%q %q: textChunk wrote\n%s\nnotify writes\n%s", id, text, out.String(), want)
			}
		}
	}
}

// TestSendTextChunkNeverMerged: a chunk Send queued takes no text of a
// SendText after it (as no update the encoder wrote did).
func TestSendTextChunkNeverMerged(t *testing.T) {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	if err := q.appendText("s1", "m1", "zero"); err != nil {
		t.Fatal(err)
	}
	if err := q.appendUpdate("s1", acp.AgentMessageChunk{MessageID: "m1", Content: acp.Text("one")}); err != nil {
		t.Fatal(err)
	}
	if err := q.appendText("s1", "m1", "two"); err != nil {
		t.Fatal(err)
	}
	want := notifyLine(t, "s1", "m1", "zero") + notifyLine(t, "s1", "m1", "one") + notifyLine(t, "s1", "m1", "two")
	if string(q.buf) != want {
		t.Fatalf("queued\n%s\nwant\n%s", q.buf, want)
	}
}
