package wire_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/shimdev/shim/internal/proto03test"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
)

// TestProto03Card: the card Google's platforms serve at …/a2a/v1/card, the
// 0.3 proto's AgentCard in ProtoJSON, picks 0.3's HTTP+JSON at its url (or
// an additional interface's), in JSON names and in proto field names.
func TestProto03Card(t *testing.T) {
	recorded, err := os.ReadFile("testdata/proto03/card.json")
	if err != nil {
		t.Fatal(err)
	}
	const base = "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/123456789012/locations/us-central1/reasoningEngines/7261528349104857088/a2a"
	withRPC := bytes.Replace(recorded, []byte(`"version":`), []byte(`"additionalInterfaces":[{"url":"https://rpc.example/a2a","transport":"JSONRPC"}],"version":`), 1)
	for name, c := range map[string]struct {
		body     []byte
		endpoint string
		binding  a2a.Binding
	}{
		"recorded":           {recorded, base, a2a.BindingHTTPJSON},
		"additional JSONRPC": {withRPC, "https://rpc.example/a2a", a2a.BindingJSONRPC},
	} {
		m, err := proto03test.Strict(t, "AgentCard", c.body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, protoNames := range []bool{false, true} {
			b, _ := protojson.MarshalOptions{UseProtoNames: protoNames}.Marshal(m)
			card, err := agentcard.Parse(b, 0, 0)
			if err != nil || card.Dialect != a2a.V03 || card.Binding != c.binding || card.Endpoint != c.endpoint ||
				card.Name != "Vertex Agent" || !card.Streaming {
				t.Errorf("%s (proto names %v): %+v %v\n%s", name, protoNames, card, err, b)
			}
		}
	}
}
