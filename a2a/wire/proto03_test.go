package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/proto03test"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/sse"
)

// describe03 is describe plus each data part's JSON and each artifact's
// usage: what a DataPart's unwrapping changes.
func describe03(ev a2a.Event) string {
	line := describe(ev)
	var ps []a2a.Part
	switch {
	case ev.Artifact != nil:
		ps = ev.Artifact.Parts
	case ev.Message != nil:
		ps = ev.Message.Parts
	case ev.Status.Message != nil:
		ps = ev.Status.Message.Parts
	}
	for _, p := range ps {
		if p.Kind == a2a.PartData {
			var v any
			_ = json.Unmarshal(p.Data, &v)
			b, _ := json.Marshal(v) // keys sorted: protojson varies their order
			line += " data=" + string(b)
		}
	}
	if ev.Status.Message != nil {
		for _, tc := range ev.Status.Message.ToolCalls() {
			line += fmt.Sprintf(" call=%s/%s", tc.Kind, tc.Name)
		}
	}
	return line
}

// frames03 reads the data of a stream file's events.
func frames03(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	r := sse.NewReader(bytes.NewReader(b), 1<<20)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Data)
	}
}

// TestProto03Bodies decodes the 0.3 HTTP+JSON binding's bodies recorded
// from the Vertex AI Agent Engine stand-in (JSON names and proto field
// names) and hand-written part shapes: streams, tasks, a send's answer, a
// google.rpc.Status; the events as golden lines, a DataPart's data read as
// the part's (so reasoning-v1, ADK's parts and cost-v1 are read from it).
func TestProto03Bodies(t *testing.T) {
	var lines []string
	streams, _ := filepath.Glob("testdata/proto03/*.sse")
	for _, f := range streams {
		for _, data := range frames03(t, f) {
			ev, err := DecodeRESTFrameProto03(data)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, data, err)
			}
			lines = append(lines, filepath.Base(f)+": "+describe03(ev))
		}
	}
	for _, name := range []string{"task.json", "task-proto-names.json"} {
		b, _ := os.ReadFile("testdata/proto03/" + name)
		task, err := DecodeTaskProto03(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ev := range a2a.TaskEvents(task) {
			lines = append(lines, name+": "+describe03(ev))
		}
	}
	b, _ := os.ReadFile("testdata/proto03/send-message.json")
	evs, err := DecodeSendResultProto03(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		lines = append(lines, "send-message.json: "+describe03(ev))
	}
	b, _ = os.ReadFile("testdata/proto03/error-notfound.json")
	var rpc *a2a.RPCError
	if _, err := DecodeRESTFrameProto03(b); !errors.As(err, &rpc) {
		t.Fatalf("error frame: %v", err)
	}
	lines = append(lines, fmt.Sprintf("error-notfound.json: code=%d message=%q", rpc.Code, rpc.Message))
	checkGolden(t, "proto03", strings.Join(lines, "\n")+"\n")
}

// TestProto03LikeProtojson: every body of testdata/proto03 is ProtoJSON a
// strict reader of the 0.3.0 proto takes, and decodes to the same events
// however protojson writes it again (JSON names or proto field names,
// enums as names).
func TestProto03LikeProtojson(t *testing.T) {
	bodies := map[string][]byte{}
	streams, _ := filepath.Glob("testdata/proto03/*.sse")
	for _, f := range streams {
		for i, data := range frames03(t, f) {
			bodies[fmt.Sprintf("%s#%d", filepath.Base(f), i)] = data
		}
	}
	for _, name := range []string{"task.json", "task-proto-names.json", "send-message.json"} {
		bodies[name], _ = os.ReadFile("testdata/proto03/" + name)
	}
	decode := func(name string, b []byte) string {
		switch {
		case strings.HasPrefix(name, "task"):
			task, err := DecodeTaskProto03(b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return describe03(taskEvent(task))
		case strings.HasPrefix(name, "send"):
			evs, err := DecodeSendResultProto03(b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return describe03(evs[0])
		}
		ev, err := DecodeRESTFrameProto03(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return describe03(ev)
	}
	for name, b := range bodies {
		msg := protoreflect.Name("StreamResponse")
		switch {
		case strings.HasPrefix(name, "task"):
			msg = "Task"
		case strings.HasPrefix(name, "send"):
			msg = "SendMessageResponse"
		}
		m, err := proto03test.Strict(t, msg, b)
		if err != nil {
			t.Errorf("%s is not the 0.3.0 proto's ProtoJSON: %v", name, err)
			continue
		}
		want := decode(name, b)
		for _, protoNames := range []bool{false, true} {
			again, err := protojson.MarshalOptions{UseProtoNames: protoNames}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := decode(name, again); got != want {
				t.Errorf("%s written again (proto names %v):\n got %s\nwant %s\n%s", name, protoNames, got, want, again)
			}
		}
	}
}

// TestProto03DataPart: a kind-less part's data is the 0.3 proto's
// DataPart, whose data member is the part's ({} for an empty one); a
// kind-tagged part (0.3's JSON-RPC shape) keeps its data, and 1.0's
// decoder reads the same body's data as the value itself.
func TestProto03DataPart(t *testing.T) {
	for _, c := range []struct{ part, want03, want10 string }{
		{`{"data":{"data":{"a":1}}}`, `{"a":1}`, `{"data":{"a":1}}`},
		{`{"data":{"data":{"data":2}}}`, `{"data":2}`, `{"data":{"data":2}}`},
		{`{"data":{}}`, `{}`, `{}`},
		{`{"data":{"data":null}}`, `{}`, `{"data":null}`},
		{`{"kind":"data","data":{"data":{"a":1}}}`, `{"data":{"a":1}}`, `{"data":{"a":1}}`},
		{`{"data":[1,2]}`, `[1,2]`, `[1,2]`},
	} {
		body := []byte(`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[` + c.part + `]}}}`)
		for codec, decode := range map[string]func([]byte) (a2a.Event, error){"0.3": DecodeRESTFrameProto03, "1.0": DecodeRESTFrame} {
			ev, err := decode(body)
			if err != nil {
				t.Fatalf("%s %s: %v", codec, c.part, err)
			}
			want := map[string]string{"0.3": c.want03, "1.0": c.want10}[codec]
			if p := ev.Artifact.Parts[0]; p.Kind != a2a.PartData || string(p.Data) != want {
				t.Errorf("%s %s: part %v %s, want data %s", codec, c.part, p.Kind, p.Data, want)
			}
		}
	}
}

// FuzzDecodeRESTFrameProto03 decodes arbitrary bytes as a frame of the 0.3
// HTTP+JSON binding: what FuzzDecodeFrame checks; and when a strict
// ProtoJSON reader of the 0.3.0 proto takes the bytes as a StreamResponse
// with a payload, the frame decodes without error, to the same event
// however protojson writes it again (JSON names or proto field names).
// The seeds are in testdata/fuzz/FuzzDecodeRESTFrameProto03/: the frames
// of testdata/proto03 and hand-written edge cases.
func FuzzDecodeRESTFrameProto03(f *testing.F) {
	f.Add([]byte(`{"artifactUpdate":{}}`))
	f.Add([]byte(`{"statusUpdate":{"status":{"state":"TASK_STATE_UNSPECIFIED"}}}`))
	f.Add([]byte(`{"artifactUpdate":{"artifact":{"parts":[{}]}}}`))
	f.Add([]byte(`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_CANCELLED","update":{"content":[{"data":{"data":{"a":1}}}]}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		ev, err := DecodeRESTFrameProto03(in)
		checkDecoded(t, ev, err)
		m, perr := proto03test.Strict(t, "StreamResponse", in)
		if perr != nil {
			return
		}
		payload := m.WhichOneof(m.Descriptor().Oneofs().ByName("payload"))
		if payload == nil || !populated(m.Get(payload).Message()) {
			// No payload, or one with nothing in it at any depth
			// ({"artifactUpdate":{}}): no event, and the codec may
			// refuse it (checkDecoded saw that it refuses cleanly).
			return
		}
		if err != nil {
			t.Fatalf("protojson reads %s, the codec does not: %v", in, err)
		}
		want := describe03(ev)
		for _, protoNames := range []bool{false, true} {
			again, err := protojson.MarshalOptions{UseProtoNames: protoNames}.Marshal(m)
			if err != nil {
				return // a value protojson reads but cannot write (a NaN)
			}
			ev, err := DecodeRESTFrameProto03(again)
			if err != nil {
				t.Fatalf("%s: %v", again, err)
			}
			if got := describe03(ev); got != want {
				t.Fatalf("%s written again as %s:\n got %s\nwant %s", in, again, got, want)
			}
		}
	})
}

// populated reports whether a message has a field set at any depth: a
// scalar, a list or a map with members, or a message that is populated
// itself (protojson reads {"artifact":{}} as an artifact with nothing set).
func populated(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
			found = populated(v.Message())
		} else {
			found = true
		}
		return !found
	})
	return found
}
