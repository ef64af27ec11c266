package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/sse"
)

// mastraSchema is the resume schema @mastra/server sends with a tool
// approval: JSON Schema, as a JSON string.
const mastraSchema = `{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\",\"properties\":{\"approved\":{\"type\":\"boolean\",\"description\":\"Controls if the tool call is approved or not\"},\"reason\":{\"type\":\"string\"}},\"required\":[\"approved\"],\"additionalProperties\":false}`

// parkCases are park data parts and what ParkData reads from them
// (testdata/golden/parks.golden).
var parkCases = []struct{ name, data string }{
	{"mastra approval", `{"suspendPayload":{"toolCallId":"call_1","toolName":"delete_file","args":{"path":"notes.txt"},"resumeSchema":"` + mastraSchema + `"},"resumeSchema":"` + mastraSchema + `"}`},
	{"mastra suspend", `{"suspendPayload":{"toolCallId":"call_2","toolName":"deploy","suspendPayload":{"message":"Deploy to prod?","env":"prod"},"args":{"service":"api","replicas":3},"resumeSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}}`},
	{"tool at the top, arguments and a requested schema object", `{"name":"run_command","arguments":{"command":"rm -rf build"},"id":"x9","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}`},
	{"tool object wrapper, input", `{"tool":{"tool":"write_file","input":{"path":"a.txt","content":"line 1\nline 2"}}}`},
	{"a name without args is no tool", `{"name":"Ada","age":36,"tags":["x","y"],"nested":{"deep":{"er":null}}}`},
	{"a schema that is not an object schema stays data", `{"schema":{"type":"string"},"inputSchema":"not json"}`},
	{"not an object", `["a",1,true]`},
	{"a string", `"just text"`},
	{"too deep", `{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}`},
	{"a call wrapped in a call's args is the inner call", `{"name":"confirm","args":{"call":{"name":"move_file","args":{"path":"a","dest":"b"},"id":"in-1"},"hint":"ok?"},"id":"out-1"}`},
	{"a call the args are", `{"name":"approve","args":{"tool":"bash","input":{"command":"ls"}}}`},
	{"calls wrapped deeper than parkWrapsMax", `{"name":"w0","args":{"name":"w1","args":{"name":"w2","args":{"name":"w3","args":{"name":"w4","args":{}}}}}}`},
}

func describePark(d *a2a.ParkData) string {
	if d == nil {
		return "nil\n"
	}
	var b strings.Builder
	for _, f := range d.Fields {
		fmt.Fprintf(&b, "  %q: %q\n", f.Key, f.Value)
	}
	if d.More {
		b.WriteString("  more\n")
	}
	if tc := d.Tool; tc != nil {
		fmt.Fprintf(&b, "  tool id=%q name=%q phase=%s args=%s\n", tc.ID, tc.Name, tc.Phase, tc.Args)
	}
	if d.Schema != nil {
		fmt.Fprintf(&b, "  schema %s\n", d.Schema)
	}
	return b.String()
}

// TestParkData: what a park's data parts say (SPEC §12.8), read into
// typed values: their content in order, the tool call they name (at the
// top or one wrapper down), the answer's object schema (a JSON string
// parsed), a schema left out of the content.
func TestParkData(t *testing.T) {
	var b strings.Builder
	for _, tc := range parkCases {
		m := &a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "Additional input is required to continue this task."},
			{Kind: a2a.PartData, Data: []byte(tc.data)}}}
		b.WriteString(tc.name + ":\n" + describePark(parkOf(m)))
	}
	checkGolden(t, "parks", b.String())
}

// TestParkDataSkipsKnownParts: a message with no data part, or only
// extension parts shim reads otherwise, has no park data (an ADK part is
// park data: TestParkDataADKConfirmation).
func TestParkDataSkipsKnownParts(t *testing.T) {
	for _, m := range []*a2a.Message{nil, {Parts: []a2a.Part{{Kind: a2a.PartText, Text: "Which file?"}}},
		{Parts: []a2a.Part{{Kind: a2a.PartData, MimeType: a2a.MimeHitl, Data: []byte(`{"kind":"question","question":"?"}`)}}},
		{Parts: []a2a.Part{{Kind: a2a.PartData, MimeType: a2a.MimeToolCall, Data: []byte(`{"name":"x","args":{}}`)}}},
		{Parts: []a2a.Part{{Kind: a2a.PartData, Data: []byte("  ")}}},
	} {
		if d := parkOf(m); d != nil {
			t.Errorf("%+v: park data %s", m, describePark(d))
		}
	}
}

// TestParkDataBounded: a park's data keeps at most ParkFieldsMax bytes of
// content, cut on a character, and says there was more.
func TestParkDataBounded(t *testing.T) {
	long, _ := json.Marshal(map[string]any{"a": strings.Repeat("é", 3000), "b": "never"})
	many := `{` + strings.Repeat(`"":"",`, 100000) + `"k":"v"}`
	huge := `{"x":"` + strings.Repeat("y", parkParseMax) + `"}`
	for _, data := range []string{string(long), many, huge} {
		d := parkOf(&a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartData, Data: []byte(data)}}})
		n := 0
		for _, f := range d.Fields {
			n += len(f.Key) + len(f.Value) + 1
			if !utf8.ValidString(f.Value) {
				t.Fatalf("a value cut inside a character: %q", f.Value[len(f.Value)-4:])
			}
		}
		if n > a2a.ParkFieldsMax || !d.More {
			t.Errorf("%d bytes kept, more %v", n, d.More)
		}
	}
}

// FuzzParkData: any data part reads without a panic, within its bound,
// and a schema read is an object schema.
func FuzzParkData(f *testing.F) {
	for _, tc := range parkCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := parkOf(&a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartData, Data: data}}})
		if d == nil {
			return
		}
		n := 0
		for _, fl := range d.Fields {
			n += len(fl.Key) + len(fl.Value) + 1
		}
		if n > a2a.ParkFieldsMax {
			t.Fatalf("%d bytes kept", n)
		}
		if d.Schema != nil {
			var o map[string]any
			if json.Unmarshal(d.Schema, &o) != nil || o["type"] != "object" {
				t.Fatalf("schema %s", d.Schema)
			}
		}
		if d.Tool != nil && (d.Tool.Name == "" || d.Tool.Phase != a2a.PhasePending) {
			t.Fatalf("tool %+v", d.Tool)
		}
	})
}

// parkOf is what a message's data parts say, as its decode reads them.
func parkOf(m *a2a.Message) *a2a.ParkData {
	if m == nil {
		return nil
	}
	return parkData(m.Parts)
}

// TestParkDataADKConfirmation: Google ADK for TypeScript parks a tool that
// needs confirmation on input-required with one data part, its function
// call adk_request_confirmation whose args hold the call it is about
// (bridge/testdata/frameworks/adk, @google/adk 2.0.0, Apache-2.0). In the
// park that part is the park's data, whatever its ADK kind: the tool call
// is the inner delete_file (pending, its own id and args), the content is
// every value; the status names no tool event. The same part in a working
// status is still an ADK call that runs.
func TestParkDataADKConfirmation(t *testing.T) {
	body, err := os.ReadFile("../../bridge/testdata/frameworks/adk/09-approval-park-stream.response.sse")
	if err != nil {
		t.Fatal(err)
	}
	r := sse.NewReader(bytes.NewReader(body), 64<<20)
	var park *a2a.Event
	for {
		raw, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev, err := DecodeFrame(raw.Data)
		if err != nil {
			t.Fatalf("frame %q: %v", raw.Data, err)
		}
		if ev.Kind == a2a.EventStatus && ev.Status.State == a2a.StateInputRequired {
			park = &ev
		}
	}
	if park == nil {
		t.Fatal("the capture has no input-required status")
	}
	st := park.Status
	d := st.Message.ParkData()
	if d == nil || d.Tool == nil {
		t.Fatalf("park data %s", describePark(d))
	}
	want := a2a.ToolCall{ID: "adk-b72d8106-2983-4c23-b056-4fafdcfc0396", Name: "delete_file", Phase: a2a.PhasePending, Args: `{"path":"notes/old.txt"}`}
	if !reflect.DeepEqual(*d.Tool, want) {
		t.Errorf("tool %+v, want %+v", *d.Tool, want)
	}
	fields := map[string]string{}
	for _, f := range d.Fields {
		fields[f.Key] = f.Value
	}
	for k, v := range map[string]string{"name": "adk_request_confirmation", "args.originalFunctionCall.name": "delete_file",
		"args.originalFunctionCall.args.path": "notes/old.txt", "args.toolConfirmation.confirmed": "false"} {
		if fields[k] != v {
			t.Errorf("field %s = %q, want %q (all: %s)", k, fields[k], v, describePark(d))
		}
	}
	if tcs := st.ToolCalls(); len(tcs) != 0 {
		t.Errorf("the park's status names tool events %+v", tcs)
	}
	st.State = a2a.StateAuthRequired
	if tcs := st.ToolCalls(); len(tcs) != 0 {
		t.Errorf("an auth-required status names tool events %+v", tcs)
	}
	st.State = a2a.StateWorking
	if tcs := st.ToolCalls(); len(tcs) != 1 || tcs[0].Name != "adk_request_confirmation" || tcs[0].Phase != a2a.PhaseStarted {
		t.Errorf("a working status's ADK call: %+v", tcs)
	}
}
