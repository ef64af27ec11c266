package encode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shimdev/shim/acp"
)

// TestLongFieldsLikeEncodingJSON: a tool update whose fields are long
// (raw input with whitespace and newlines, raw output, a terminal's
// output, a diff's texts) is written byte for byte as encoding/json
// writes it, each long field in place, the update itself unchanged; a
// long raw input that is not JSON fails like encoding/json and queues
// nothing.
func TestLongFieldsLikeEncodingJSON(t *testing.T) {
	text := strings.Repeat("<a & b> \"q\" \\ \n\t\x01 é \u2028 \xff ", longMin/20)
	raw := json.RawMessage("{\n  \"todos\": [" + strings.Repeat(`{"content": "x <y>", "status": "pending"}, `, longMin/40) + "{}\n]\n}")
	old := text + "old"
	meta := &acp.ToolMeta{TerminalOutput: &acp.TerminalOutput{TerminalID: "c1", Data: text}, TerminalExit: &acp.TerminalExit{TerminalID: "c1"}}
	updates := []acp.Update{
		acp.ToolCall{ToolCallID: "c1", Title: "Run", Kind: "execute", RawInput: raw, Content: []acp.ToolCallContent{acp.Terminal{TerminalID: "c1"}}},
		acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCompleted, Meta: meta, RawOutput: acp.RawJSON(text), Content: []acp.ToolCallContent{
			acp.Content{Content: acp.Text("short")}, acp.Diff{Path: "/a", OldText: &old, NewText: text}, acp.Diff{Path: "/b", NewText: "small"}}},
		acp.ToolCallUpdate{ToolCallID: "c2", RawInput: json.RawMessage(`{"small": "<x>"}`)},
	}
	for i, u := range updates {
		var sp spiller
		sp.spill(u)
		if n, want := len(sp.fields), []int{1, 4, 0}[i]; n != want {
			t.Errorf("%T: %d long fields, want %d", u, n, want)
		}
		want, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		sent, err := AppendUpdate(nil, "s1", u)
		if err != nil {
			t.Fatal(err)
		}
		out := bytes.NewBuffer(sent)
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":`)
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(acp.SessionNotification{SessionID: "s1", Update: u}); err != nil {
			t.Fatal(err)
		}
		line := strings.TrimSuffix(b.String(), "\n") + "}\n"
		if out.String() != line {
			t.Errorf("%T: wrote %d bytes, encoding/json %d; differ at %d", u, out.Len(), len(line), diffAt(out.String(), line))
		}
		if after, _ := json.Marshal(u); !bytes.Equal(after, want) {
			t.Errorf("%T: the update was changed", u)
		}
	}

	bad := append(json.RawMessage(`{"a": [`), raw...)
	out, err := AppendUpdate(nil, "s1", acp.ToolCall{ToolCallID: "c3", RawInput: bad})
	if err == nil {
		t.Error("a long raw input that is not JSON was sent")
	}
	if out, err = AppendUpdate(out, "s1", acp.ToolCallUpdate{ToolCallID: "c4"}); err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c4"}}}`+"\n" {
		t.Errorf("after the failed send: %q", got)
	}
}

func diffAt(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
