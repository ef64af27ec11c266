package request

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestLongTextSpliced: a long text part is escaped into the body exactly
// as encoding/json would (without HTML escaping), invalid UTF-8 and
// line separators included, and the body decodes to the same message.
func TestLongTextSpliced(t *testing.T) {
	for _, s := range []string{"plain", "q\"b\\s\n\r\t\b\f\x01\x1f\x7f", "bad \xff\xfe utf8 \u2028\u2029 é 日本", ""} {
		want, _ := json.Marshal(s)
		want = []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(want)))
		if got := appendJSONString(nil, s); string(got) != string(want) || jsonStringLen(s) != len(want) {
			t.Errorf("%q: got %s (len %d), want %s", s, got, jsonStringLen(s), want)
		}
	}
	long := strings.Repeat("a \"long\" text\n\xff ", longTextMin/10)
	body := RPC(1, "SendStreamingMessage", map[string]any{"message": Message(a2a.V10, a2a.OutMessage{ContextID: "c",
		Parts: []a2a.Part{{Text: long}, {Text: "short"}, {Text: long + "2"}}})})
	var got struct {
		Params struct {
			Message struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	valid := strings.ToValidUTF8(long, "\ufffd")
	if p := got.Params.Message.Parts; len(p) != 3 || p[0].Text != valid || p[1].Text != "short" || p[2].Text != valid+"2" {
		t.Errorf("the parts did not survive the splice")
	}
	if cap(body) != len(body) {
		t.Errorf("the body's buffer is %d bytes for %d", cap(body), len(body))
	}
}
