package acp

import (
	"encoding/json"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
)

// TestReduceSchema pins what a form step's JSON Schema becomes in an ACP
// form (SPEC §11.3), and that the result is a valid elicitation/create.
func TestReduceSchema(t *testing.T) {
	step := `{"type":"object","properties":{
	  "env":{"title":"Environment","type":"string","enum":["staging","prod"]},
	  "notes":{"title":"Notes","type":"string","description":"anything else"},
	  "size":{"title":"Size","type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	  "count":{"type":"integer","title":"Count"},
	  "ratio":{"type":["number","null"]},
	  "go":{"type":"boolean","title":"Go?"},
	  "tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b"]}},
	  "picks":{"type":"array","items":{"oneOf":[{"const":"x","title":"X"},{"const":"y","title":"Y"}]}},
	  "where":{"type":"object","title":"Where","description":"a place","properties":{"x":{"type":"number"}}},
	  "list":{"type":"array","title":"Free list","items":{"type":"string"}}},
	  "required":["env","nope","tags"]}`
	got, err := json.Marshal(ReduceSchema(json.RawMessage(step)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"env":{"type":"string","title":"Environment","enum":["staging","prod"]},` +
		`"notes":{"type":"string","title":"Notes","description":"anything else"},` +
		`"size":{"type":"string","title":"Size","enum":["s","l"]},` +
		`"count":{"type":"integer","title":"Count"},` +
		`"ratio":{"type":"number"},` +
		`"go":{"type":"boolean","title":"Go?"},` +
		`"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b"]}},` +
		`"picks":{"type":"array","items":{"type":"string","enum":["x","y"]}},` +
		`"where":{"type":"string","title":"Where","description":"a place"},` +
		`"list":{"type":"string","title":"Free list"}},` +
		`"required":["env","tags"]}`
	if string(got) != want {
		t.Errorf("reduced:\n got %s\nwant %s", got, want)
	}
	v, err := acptest.Schema()
	if err != nil {
		t.Fatal(err)
	}
	for _, schema := range []FormSchema{ReduceSchema(json.RawMessage(step)), AnswerForm(), ReduceSchema(json.RawMessage(`"not an object"`))} {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": MethodElicitationCreate,
			"params": CreateElicitationParams{SessionID: "s", Mode: ElicitationFormMode, Message: "Which?", RequestedSchema: schema}})
		if err := v.AgentLine(req, func(string) string { return "" }); err != nil {
			t.Errorf("%s: %v", req, err)
		}
	}
	if got, _ := json.Marshal(AnswerForm()); string(got) != `{"type":"object","properties":{"answer":{"type":"string","title":"Answer"}},"required":["answer"]}` {
		t.Errorf("answer form: %s", got)
	}
}

func TestFormMessage(t *testing.T) {
	for _, tt := range [][3]string{{"Deploy", "", "Deploy"}, {"Deploy", "to where", "Deploy\n\nto where"}, {"", "only", "only"}} {
		if got := FormMessage(tt[0], tt[1]); got != tt[2] {
			t.Errorf("FormMessage(%q, %q) = %q", tt[0], tt[1], got)
		}
	}
}

func TestClientCapabilities(t *testing.T) {
	for _, tt := range []struct {
		caps         string
		form, termal bool
	}{
		{`{}`, false, false},
		{`{"elicitation":{"form":{}},"_meta":{"terminal_output":true}}`, true, true},
		{`{"elicitation":{"form":null,"url":{}},"_meta":{"terminal_output":"yes"}}`, false, false},
		{`{"elicitation":true,"_meta":[]}`, false, false},
	} {
		var c ClientCapabilities
		if err := json.Unmarshal([]byte(tt.caps), &c); err != nil {
			t.Fatal(err)
		}
		if c.FormElicitation() != tt.form || c.TerminalOutput() != tt.termal {
			t.Errorf("%s: form %v terminal %v", tt.caps, c.FormElicitation(), c.TerminalOutput())
		}
	}
}
