package request

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2apb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/shimdev/shim/a2a"
)

// proto03 is the A2A 0.3.0 proto, for a real ProtoJSON reader
// (google.golang.org/protobuf's protojson) to check the spelling against:
// a2a-go's a2apb follows a later 0.3 revision whose only incompatible
// change is Message field 5, "parts" there and "content" in 0.3.0;
// renaming it gives the 0.3.0 JSON names (as package wire's tests do).
var proto03 = sync.OnceValues(func() (protoreflect.FileDescriptor, error) {
	fdp := protodesc.ToFileDescriptorProto(a2apb.File_a2a_proto)
	for _, m := range fdp.GetMessageType() {
		for _, f := range m.GetField() {
			if m.GetName() == "Message" && f.GetNumber() == 5 {
				f.Name, f.JsonName = proto.String("content"), proto.String("content")
			}
		}
	}
	return protodesc.NewFile(fdp, protoregistry.GlobalFiles)
})

// strict03 reads b as the ProtoJSON of the 0.3.0 proto's message name,
// refusing unknown fields (as Google's front ends and a2a-python do).
func strict03(t testing.TB, name protoreflect.Name, b []byte) (*dynamicpb.Message, error) {
	t.Helper()
	fd, err := proto03()
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(fd.Messages().ByName(name))
	return m, protojson.Unmarshal(b, m)
}

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
	if _, err := strict03(t, "SendMessageRequest", body); err != nil {
		t.Errorf("a strict ProtoJSON reader refuses %s: %v", body, err)
	}
	// A long text is spliced in as in every dialect.
	long := strings.Repeat("é\"x", 30<<10)
	body = Body(map[string]any{"message": MessageProto03(a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: long}}})})
	if _, err := strict03(t, "SendMessageRequest", body); err != nil {
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
	if _, err := strict03(t, "SendMessageRequest", rpc); err == nil {
		t.Errorf("a strict ProtoJSON reader takes %s", rpc)
	}
}
