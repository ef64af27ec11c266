package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
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

// TestAppendJSONTextLikeEncodingJSON: shim's escaper writes the bytes
// encoding/json writes, on a table and on random strings (any bytes).
func TestAppendJSONTextLikeEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := append([]string(nil), jsonTextCases...)
	for range 2000 {
		cases = append(cases, randomText(rng, rng.IntN(40), rng.IntN(2) == 0))
	}
	for _, s := range cases {
		if got, want := string(appendJSONString(nil, s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	}
}

func FuzzAppendJSONText(f *testing.F) {
	for _, s := range jsonTextCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	})
}

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
	if err := st.notify(MethodSessionUpdate, SessionNotification{SessionID: sessionID, Update: AgentMessageChunk{MessageID: messageID, Content: Text(s)}}); err != nil {
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
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
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

			// The model: consecutive valid chunks of one session and
			// message join while the join fits in mergeMax.
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
			got := g.buf.String()
			if got != want {
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
			read := map[string]string{}
			sc := bufio.NewScanner(strings.NewReader(got))
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
				if len(m.Params.Update.Content.Text) > mergeMax && !strings.Contains(name, "random") {
					t.Errorf("an update of %d bytes of text, above the %d cap", len(m.Params.Update.Content.Text), mergeMax)
				}
				read[m.Params.SessionID] += m.Params.Update.Content.Text
			}
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

// genericLine is the line the encoder writes for u (what Send wrote for
// every update before chunks of text had a path of their own).
func genericLine(t testing.TB, sessionID string, u Update) string {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	var sp spiller
	u = sp.spill(u)
	if err := q.appendNotification(MethodSessionUpdate, SessionNotification{SessionID: sessionID, Update: u}, sp.fields); err != nil {
		t.Fatal(err)
	}
	return string(q.buf)
}

// sentLine is the line Send writes for u.
func sentLine(t testing.TB, sessionID string, u Update) string {
	var out bytes.Buffer
	c := &Conn{s: newStream(bytes.NewReader(nil), &out, slog.New(slog.DiscardHandler), lineMaxBytes)}
	if err := c.Send(sessionID, u); err != nil {
		t.Fatal(err)
	}
	c.s.flushClose()
	return out.String()
}

// chunkUpdates are the chunks of text of every kind, of the message id,
// with the text.
func chunkUpdates(id, text string) []Update {
	return []Update{AgentMessageChunk{MessageID: id, Content: Text(text)}, UserMessageChunk{MessageID: id, Content: Text(text)},
		AgentThoughtChunk{MessageID: id, Content: Text(text)}}
}

// TestSendTextChunkLikeEncoder: Send writes a chunk of text of any kind
// byte for byte as the encoder writes it (a long text, an empty message
// id, any bytes included).
func TestSendTextChunkLikeEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	texts := append([]string{strings.Repeat("<long & \"text\"> é\n", 5000)}, jsonTextCases...)
	for range 200 {
		texts = append(texts, randomText(rng, rng.IntN(40), rng.IntN(2) == 0))
	}
	for _, id := range []string{"a", "task-1/artifact \"2\" <é>", ""} {
		for _, text := range texts {
			for _, u := range chunkUpdates(id, text) {
				if got, want := sentLine(t, "chat-\"zed\"-1", u), genericLine(t, "chat-\"zed\"-1", u); got != want {
					t.Fatalf("%T %q %q: Send wrote\n%s\nthe encoder writes\n%s", u, id, text, got, want)
				}
			}
		}
	}
	// Anything else still goes through the encoder.
	img := AgentMessageChunk{MessageID: "m", Content: ImageContent{Data: "AAAA", MimeType: "image/png"}}
	if got, want := sentLine(t, "s", img), genericLine(t, "s", img); got != want {
		t.Fatalf("image chunk: Send wrote\n%s\nthe encoder writes\n%s", got, want)
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
	update, id, text, _ := textChunk(AgentMessageChunk{MessageID: "m1", Content: Text("one")})
	if err := q.appendChunk("s1", update, id, text); err != nil {
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

func FuzzSendTextChunk(f *testing.F) {
	for _, s := range jsonTextCases {
		f.Add("m1", s)
	}
	f.Fuzz(func(t *testing.T, id, text string) {
		for _, u := range chunkUpdates(id, text) {
			if got, want := sentLine(t, "s1", u), genericLine(t, "s1", u); got != want {
				t.Fatalf("%T %q %q: Send wrote\n%s\nthe encoder writes\n%s", u, id, text, got, want)
			}
		}
	})
}

// TestRawJSONOfText: a text's raw JSON is what the encoder writes for it.
func TestRawJSONOfText(t *testing.T) {
	for _, s := range append([]string{strings.Repeat("<long & \"text\">\n", 5000)}, jsonTextCases...) {
		if got, want := string(RawJSON(s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: RawJSON %s, encoding/json %s", s, got, want)
		}
	}
}

// lines are the lines Send writes for u and the encoder writes for it,
// and whether each failed.
func lines(t testing.TB, sessionID string, u Update) (sent, encoded string, sentErr, encErr bool) {
	var out bytes.Buffer
	c := &Conn{s: newStream(bytes.NewReader(nil), &out, slog.New(slog.DiscardHandler), lineMaxBytes)}
	sentErr = c.Send(sessionID, u) != nil
	c.s.flushClose()
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	var sp spiller
	u = sp.spill(u)
	encErr = q.appendNotification(MethodSessionUpdate, SessionNotification{SessionID: sessionID, Update: u}, sp.fields) != nil
	return out.String(), string(q.buf), sentErr, encErr
}

// toolCallCases are tool_call updates of every shape the fast path
// writes, and some it leaves to the encoder.
func toolCallCases(texts []string) []ToolCall {
	var out []ToolCall
	raws := []json.RawMessage{nil, json.RawMessage(`{"project": "p", "path": "README.md", "offset": 3}`),
		json.RawMessage(" [ 1 , \"a <b> \\u2028\" , {\"x\" :\n null} ] "), json.RawMessage(`"# Project\nhello\n"`),
		json.RawMessage(`{"bad": }`), json.RawMessage(`"é` + "\xff" + `"`), json.RawMessage(strings.Repeat(" ", 10) + "12.50")}
	old := "old"
	for i, s := range texts {
		tc := ToolCall{ToolCallID: "replay-c" + s, Title: "Read " + s, RawInput: raws[i%len(raws)], RawOutput: raws[(i/2)%len(raws)]}
		if i%3 != 0 {
			tc.Kind, tc.Status = ToolKindRead, ToolCompleted
		}
		if i%4 != 0 {
			tc.Content = []ToolCallContent{Content{Content: Text(s)}}
		}
		if i%5 == 1 {
			tc.Content = append(tc.Content, Content{Content: Text("second")})
		}
		if i%2 == 0 {
			tc.Locations = []Location{{Path: "/w/" + s, Line: i - 3}, {Path: "/w/b"}}
		}
		switch i % 11 { // what the encoder writes itself
		case 5:
			tc.Meta = &ToolMeta{TerminalInfo: &TerminalInfo{TerminalID: "t"}}
		case 7:
			tc.Content = append(tc.Content, Diff{Path: "/w/a", OldText: &old, NewText: s})
		case 9:
			tc.RawInput = json.RawMessage(`"` + strings.Repeat("x", longMin) + `"`)
		}
		out = append(out, tc)
	}
	return out
}

// TestSendToolCallLikeEncoder: Send writes a tool_call byte for byte as
// the encoder writes it, and fails where the encoder fails (raw input
// that is no JSON), queuing nothing then.
func TestSendToolCallLikeEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	texts := append([]string(nil), jsonTextCases...)
	for range 300 {
		texts = append(texts, randomText(rng, rng.IntN(30), rng.IntN(2) == 0))
	}
	fails := 0
	for _, tc := range toolCallCases(texts) {
		sent, encoded, sentErr, encErr := lines(t, "chat-\"zed\"-1", tc)
		if sent != encoded || sentErr != encErr {
			t.Fatalf("%+v: Send wrote (failed %v)\n%s\nthe encoder writes (failed %v)\n%s", tc, sentErr, sent, encErr, encoded)
		}
		if encErr {
			fails++
		}
	}
	if fails == 0 {
		t.Fatal("no case failed to encode")
	}
}

func FuzzSendToolCall(f *testing.F) {
	f.Add("c1", "/w/a.go", 3, []byte(`{"path": "a.go"}`), []byte(`"x\n"`))
	f.Add("", "\xff<&>", -1, []byte(` [1, 2 ] `), []byte(`{`))
	f.Fuzz(func(t *testing.T, s, path string, line int, in, out []byte) {
		tc := ToolCall{ToolCallID: s, Title: s, Kind: s, Status: ToolStatus(s), Content: []ToolCallContent{Content{Content: Text(s)}},
			Locations: []Location{{Path: path, Line: line}}, RawInput: in, RawOutput: out}
		sent, encoded, sentErr, encErr := lines(t, s, tc)
		if sent != encoded || sentErr != encErr {
			t.Fatalf("%+v: Send wrote (failed %v)\n%s\nthe encoder writes (failed %v)\n%s", tc, sentErr, sent, encErr, encoded)
		}
	})
}

// fieldNames is the names of the fields of struct v, in order.
func fieldNames(v any) string {
	typ := reflect.TypeOf(v)
	var names []string
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name)
	}
	return strings.Join(names, " ")
}

// TestToolCallFieldsWritten: appendToolCall and appendChunkLine write each
// field of a tool_call, a location, a content item, a text block and a
// chunk of text by hand; a field added to one of them must be written
// there too (or make plainToolCall or textChunk refuse the update), and
// this list then changed.
func TestToolCallFieldsWritten(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{ToolCall{}, "SessionUpdate ToolCallID Title Kind Status Content Locations RawInput RawOutput Meta"},
		{Location{}, "Path Line"},
		{Content{}, "Type Content"},
		{TextContent{}, "Type Text"},
		{AgentMessageChunk{}, "SessionUpdate MessageID Content"},
		{AgentThoughtChunk{}, "SessionUpdate MessageID Content"},
		{UserMessageChunk{}, "SessionUpdate MessageID Content"},
	} {
		if got := fieldNames(tc.v); got != tc.want {
			t.Errorf("%T has fields %q; appendToolCall writes %q", tc.v, got, tc.want)
		}
	}
}
