package request

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/proto03test"

	"github.com/shimdev/shim/a2a"
)

// TestMessageSpelledProto03: a message of every kind of part, spelled as
// the 0.3.0 proto's ProtoJSON byte for byte, which a strict reader of that
// proto takes as a SendMessageRequest; the part metadata and the file
// name the proto has no field for are left out.
func TestMessageSpelledProto03(t *testing.T) {
	m := a2a.OutMessage{ContextID: "c", TaskID: "t", Model: "m1", Parts: []a2a.Part{
		{Kind: a2a.PartText, Text: "hi"},
		{Kind: a2a.PartData, Data: []byte(`{"a":1}`)},
		{Kind: a2a.PartFile, URL: "https://x.example/f.png", MediaType: "image/png", Filename: "f.png"},
		{Kind: a2a.PartFile, Raw: []byte("raw"), Metadata: json.RawMessage(`{"k":"v"}`)},
	}}
	msg := MessageProto03(m)
	delete(msg, "messageId")
	want := `{"content":[{"text":"hi"},{"data":{"data":{"a":1}}},{"file":{"fileWithUri":"https://x.example/f.png","mimeType":"image/png"}},{"file":{"fileWithBytes":"cmF3"}}],"contextId":"c","metadata":{"model":"m1"},"role":"ROLE_USER","taskId":"t"}`
	if b, _ := json.Marshal(msg); string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	body := Body(map[string]any{"message": MessageProto03(m), "configuration": SendConfiguration(a2a.V03)})
	if _, err := proto03test.Strict(t, "SendMessageRequest", body); err != nil {
		t.Errorf("a strict ProtoJSON reader refuses %s: %v", body, err)
	}
	// A long text is spliced in as in every dialect.
	long := strings.Repeat("é\"x", 30<<10)
	body = Body(map[string]any{"message": MessageProto03(a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: long}}})})
	if _, err := proto03test.Strict(t, "SendMessageRequest", body); err != nil {
		t.Errorf("a long text: %v", err)
	}
	var back struct {
		Message struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(body, &back) != nil || len(back.Message.Content) != 1 || back.Message.Content[0].Text != long {
		t.Error("a long text does not come back as it was")
	}
	// The reader is strict: 0.3's JSON-RPC spelling is not its.
	rpc := Body(map[string]any{"message": Message(a2a.V03, m)})
	if _, err := proto03test.Strict(t, "SendMessageRequest", rpc); err == nil {
		t.Errorf("a strict ProtoJSON reader takes %s", rpc)
	}
}
