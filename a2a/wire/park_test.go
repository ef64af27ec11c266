package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
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
// extension parts shim reads otherwise, has no park data.
func TestParkDataSkipsKnownParts(t *testing.T) {
	for _, m := range []*a2a.Message{nil, {Parts: []a2a.Part{{Kind: a2a.PartText, Text: "Which file?"}}},
		{Parts: []a2a.Part{{Kind: a2a.PartData, MimeType: a2a.MimeHitl, Data: []byte(`{"kind":"question","question":"?"}`)}}},
		{Parts: []a2a.Part{{Kind: a2a.PartData, Data: []byte(`{"x":1}`), Metadata: map[string]any{"adk_type": "function_call"}}}},
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
