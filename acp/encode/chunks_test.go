package encode

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/jsontext"
)

// TestAppendJSONTextLikeEncodingJSON: shim's escaper writes the bytes
// encoding/json writes, on a table and on random strings (any bytes).
func TestAppendJSONTextLikeEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := append([]string(nil), jsonTextCases...)
	for range 2000 {
		cases = append(cases, randomText(rng, rng.IntN(40), rng.IntN(2) == 0))
	}
	for _, s := range cases {
		if got, want := string(jsontext.AppendString(nil, s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	}
}

func FuzzAppendJSONText(f *testing.F) {
	for _, s := range jsonTextCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(jsontext.AppendString(nil, s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	})
}

// genericLine is the line the encoder writes for u (what Send wrote for
// every update before chunks of text had a path of their own).
func genericLine(t testing.TB, sessionID string, u acp.Update) string {
	var sp spiller
	u = sp.spill(u)
	b, err := appendNotification(nil, acp.MethodSessionUpdate, acp.SessionNotification{SessionID: sessionID, Update: u}, sp.fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sentLine is the line AppendUpdate writes for u (what Conn.Send queues).
func sentLine(t testing.TB, sessionID string, u acp.Update) string {
	b, err := AppendUpdate(nil, sessionID, u)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chunkUpdates are the chunks of text of every kind, of the message id,
// with the text.
func chunkUpdates(id, text string) []acp.Update {
	return []acp.Update{acp.AgentMessageChunk{MessageID: id, Content: acp.Text(text)}, acp.UserMessageChunk{MessageID: id, Content: acp.Text(text)},
		acp.AgentThoughtChunk{MessageID: id, Content: acp.Text(text)}}
}

// TestSendTextChunkLikeEncoder: AppendUpdate (Conn.Send) writes a chunk of text of any kind
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
	img := acp.AgentMessageChunk{MessageID: "m", Content: acp.ImageContent{Data: "AAAA", MimeType: "image/png"}}
	if got, want := sentLine(t, "s", img), genericLine(t, "s", img); got != want {
		t.Fatalf("image chunk: Send wrote\n%s\nthe encoder writes\n%s", got, want)
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

// lines are the lines Send writes for u and the encoder writes for it,
// and whether each failed.
func lines(t testing.TB, sessionID string, u acp.Update) (sent, encoded string, sentErr, encErr bool) {
	out, err := AppendUpdate(nil, sessionID, u)
	sentErr = err != nil
	var sp spiller
	u = sp.spill(u)
	enc, err := appendNotification(nil, acp.MethodSessionUpdate, acp.SessionNotification{SessionID: sessionID, Update: u}, sp.fields)
	encErr = err != nil
	return string(out), string(enc), sentErr, encErr
}

// toolCallCases are tool_call updates of every shape the fast path
// writes, and some it leaves to the encoder.
func toolCallCases(texts []string) []acp.ToolCall {
	var out []acp.ToolCall
	raws := []json.RawMessage{nil, json.RawMessage(`{"project": "p", "path": "README.md", "offset": 3}`),
		json.RawMessage(" [ 1 , \"a <b> \\u2028\" , {\"x\" :\n null} ] "), json.RawMessage(`"# Project\nhello\n"`),
		json.RawMessage(`{"bad": }`), json.RawMessage(`"é` + "\xff" + `"`), json.RawMessage(strings.Repeat(" ", 10) + "12.50")}
	old := "old"
	for i, s := range texts {
		tc := acp.ToolCall{ToolCallID: "replay-c" + s, Title: "Read " + s, RawInput: raws[i%len(raws)], RawOutput: raws[(i/2)%len(raws)]}
		if i%3 != 0 {
			tc.Kind, tc.Status = acp.ToolKindRead, acp.ToolCompleted
		}
		if i%4 != 0 {
			tc.Content = []acp.ToolCallContent{acp.Content{Content: acp.Text(s)}}
		}
		if i%5 == 1 {
			tc.Content = append(tc.Content, acp.Content{Content: acp.Text("second")})
		}
		if i%2 == 0 {
			tc.Locations = []acp.Location{{Path: "/w/" + s, Line: i - 3}, {Path: "/w/b"}}
		}
		switch i % 11 { // what the encoder writes itself
		case 5:
			tc.Meta = &acp.ToolMeta{TerminalInfo: &acp.TerminalInfo{TerminalID: "t"}}
		case 7:
			tc.Content = append(tc.Content, acp.Diff{Path: "/w/a", OldText: &old, NewText: s})
		case 9:
			tc.RawInput = json.RawMessage(`"` + strings.Repeat("x", longMin) + `"`)
		}
		out = append(out, tc)
	}
	return out
}

// TestSendToolCallLikeEncoder: AppendUpdate (Conn.Send) writes a tool_call byte for byte as
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
		tc := acp.ToolCall{ToolCallID: s, Title: s, Kind: s, Status: acp.ToolStatus(s), Content: []acp.ToolCallContent{acp.Content{Content: acp.Text(s)}},
			Locations: []acp.Location{{Path: path, Line: line}}, RawInput: in, RawOutput: out}
		sent, encoded, sentErr, encErr := lines(t, s, tc)
		if sent != encoded || sentErr != encErr {
			t.Fatalf("%+v: Send wrote (failed %v)\n%s\nthe encoder writes (failed %v)\n%s", tc, sentErr, sent, encErr, encoded)
		}
	})
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
		{acp.ToolCall{}, "SessionUpdate ToolCallID Title Kind Status Content Locations RawInput RawOutput Meta"},
		{acp.Location{}, "Path Line"},
		{acp.Content{}, "Type Content"},
		{acp.TextContent{}, "Type Text"},
		{acp.AgentMessageChunk{}, "SessionUpdate MessageID Content"},
		{acp.AgentThoughtChunk{}, "SessionUpdate MessageID Content"},
		{acp.UserMessageChunk{}, "SessionUpdate MessageID Content"},
	} {
		if got := fieldNames(tc.v); got != tc.want {
			t.Errorf("%T has fields %q; appendToolCall writes %q", tc.v, got, tc.want)
		}
	}
}
