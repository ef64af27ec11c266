package encode

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/acp"
)

// TestResultLine: a successful answer's line is the one jsonrpc2 marshals
// for it, byte for byte, for ids and results of every shape.
func TestResultLine(t *testing.T) {
	ids := []jsonrpc2.ID{{Num: 0}, {Num: 1<<53 + 1}, {Str: "", IsString: true}, {Str: `a"b\\c<d>&é` + "\u2028\x01", IsString: true}}
	results := []any{
		nil,
		struct{}{},
		map[string]any{"z": 1, "a": []any{"<html>&", 1.5, nil, true}, "u": "\u2028\u2029\xff"},
		"plain",
		json.RawMessage(`{ "spaced" : [ 1 , 2 ] }`),
	}
	for _, id := range ids {
		for _, r := range results {
			res, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(&jsonrpc2.Response{ID: id, Result: (*json.RawMessage)(&res)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ResultLine(id, r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("id %v result %v:\n got %s\nwant %s", id, r, got, want)
			}
		}
	}
	if _, err := ResultLine(jsonrpc2.ID{}, func() {}); err == nil {
		t.Error("a result that does not marshal must fail")
	}
}

// TestResultLineInitialize: initialize's answer is the envelope around the
// result as it writes itself.
func TestResultLineInitialize(t *testing.T) {
	r := acp.InitializeResult{ProtocolVersion: 1, AgentInfo: acp.Implementation{Name: "shim", Title: "R&D <agent>"}}
	got, err := ResultLine(jsonrpc2.ID{Num: 0}, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":0,"result":` + string(appendInitializeResult(nil, &r)) + `,"jsonrpc":"2.0"}`; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	var back struct {
		Result acp.InitializeResult `json:"result"`
	}
	if err := json.Unmarshal(got, &back); err != nil || back.Result.AgentInfo.Title != "R&D <agent>" {
		t.Errorf("read back %+v (%v)", back.Result, err)
	}
}
