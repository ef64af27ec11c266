package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a/wire/rpcerror"
)

// TestErrorDetailsText: a JSON-RPC error's typed details (A2A 1.0.1) add
// their reason and what they say for a person to the error's text; the
// same details in an HTTP+JSON google.rpc.Status do too; anything else in
// data adds nothing.
func TestErrorDetailsText(t *testing.T) {
	const info = `{"@type":"type.googleapis.com/google.rpc.ErrorInfo","domain":"a2a-protocol.org","metadata":{"timestamp":"2026-11-29T11:10:14Z"},"reason":"TASK_NOT_FOUND"}`
	for _, tc := range []struct {
		name, msg, data, want string
	}{
		// As the a2a-go v2 server writes it (reference captures).
		{"a2a-go", "failed to get task: task not found", `[` + info + `]`, "failed to get task: task not found (TASK_NOT_FOUND)"},
		{"one object", "task not found", info, "task not found (TASK_NOT_FOUND)"},
		{"reason already said", "TASK_NOT_FOUND: t1", `[` + info + `]`, "TASK_NOT_FOUND: t1"},
		{"friends", "invalid request", `[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.parts","description":"must not be empty"}]},
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"},
			{"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en","message":"Please add some text"},
			{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"project:x","description":"daily limit"}]},
			{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_PARAMS"},
			{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"stack"}]`,
			"invalid request (INVALID_PARAMS; message.parts: must not be empty; retry after 30s; Please add some text; project:x: daily limit)"},
		{"retry as a Duration object", "busy", `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":12}}]`, "busy (retry after 12s)"},
		{"untyped data", "boom", `{"x":1}`, "boom"},
		{"text data", "boom", `"a string"`, "boom"},
		{"broken list", "boom", `[1, "x", {"@type": 5}]`, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := wireError{Code: "-32001", Message: tc.msg, Data: json.RawMessage(tc.data)}
			if got := w.rpcError().Text(); got != tc.want {
				t.Errorf("JSON-RPC: %q\nwant %q", got, tc.want)
			}
			if !strings.HasPrefix(tc.data, "[") {
				return
			}
			body := `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":` + string(must(json.Marshal(tc.msg))) + `,"details":` + tc.data + `}}`
			re := rpcerror.Decode(400, []byte(body))
			if re == nil {
				t.Fatalf("HTTP+JSON: not read as an error: %s", body)
			}
			if got := re.Text(); got != tc.want {
				t.Errorf("HTTP+JSON: %q\nwant %q", got, tc.want)
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
