package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/sse"
)

// rpc wraps a result object in a JSON-RPC response.
func rpc(result string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`)
}

func decodeOK(t *testing.T, frame []byte) a2a.Event {
	t.Helper()
	ev, err := DecodeFrame(frame)
	if err != nil {
		t.Fatalf("DecodeFrame(%s): %v", frame, err)
	}
	return ev
}

// lenientFrames are frames of either dialect, spelled every way servers
// spell them, each with the check of its event (TestDecodeFrameLenient).
var lenientFrames = []struct {
	name  string
	frame string
	check func(t *testing.T, ev a2a.Event)
}{
	{"1.0 camelCase status update", `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "c", a2a.StateWorking) }},
	{"snake_case wrapper and ids", `{"status_update":{"task_id":"t","context_id":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "c", a2a.StateInputRequired) }},
	{"snake_case artifact update", `{"artifact_update":{"task_id":"t","context_id":"c","append":true,"last_chunk":true,
			"artifact":{"artifact_id":"a","parts":[{"raw":"aGk=","media_type":"text/plain","filename":"f.txt"}]}}}`,
		func(t *testing.T, ev a2a.Event) {
			want(t, ev, a2a.EventArtifact, "t", "c", "")
			if !ev.Append || !ev.LastChunk || ev.Artifact.ID != "a" {
				t.Errorf("append/last/id: %+v", ev)
			}
			p := ev.Artifact.Parts[0]
			if p.Kind != a2a.PartFile || string(p.Raw) != "hi" || p.MediaType != "text/plain" || p.Filename != "f.txt" {
				t.Errorf("part %+v", p)
			}
		}},
	{"enum number 3 is completed", `{"statusUpdate":{"taskId":"t","status":{"state":3}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateCompleted) }},
	{"enum number 6 is input-required", `{"statusUpdate":{"taskId":"t","status":{"state":6}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateInputRequired) }},
	{"enum number as float", `{"statusUpdate":{"taskId":"t","status":{"state":4.0}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateFailed) }},
	{"enum number out of range", `{"statusUpdate":{"taskId":"t","status":{"state":99}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateUnknown) }},
	{"x-y state (0.3)", `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"input-required"},"final":true}`,
		func(t *testing.T, ev a2a.Event) {
			want(t, ev, a2a.EventStatus, "t", "c", a2a.StateInputRequired)
			if !ev.Final {
				t.Error("final lost")
			}
		}},
	{"lowercase snake state", `{"statusUpdate":{"taskId":"t","status":{"state":"auth_required"}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateAuthRequired) }},
	{"cancelled spelling", `{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_CANCELLED"}}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateCanceled) }},
	{"absent booleans are false", `{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`,
		func(t *testing.T, ev a2a.Event) {
			if ev.Append || ev.LastChunk || ev.Final {
				t.Errorf("flags %+v", ev)
			}
		}},
	{"null and string booleans", `{"artifactUpdate":{"taskId":"t","append":"true","lastChunk":null,"artifact":{"artifactId":"a"}}}`,
		func(t *testing.T, ev a2a.Event) {
			if !ev.Append || ev.LastChunk {
				t.Errorf("flags %+v", ev)
			}
		}},
	{"role enum number", `{"message":{"messageId":"m","role":2,"parts":[{"text":"hi"}]}}`,
		func(t *testing.T, ev a2a.Event) {
			want(t, ev, a2a.EventMessage, "", "", "")
			if ev.Message.Role != "agent" || ev.Message.Text() != "hi" {
				t.Errorf("message %+v", ev.Message)
			}
		}},
	{"role names", `{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"},"history":[{"role":"ROLE_USER"},{"role":"agent"},{"role":1}]}}`,
		func(t *testing.T, ev a2a.Event) {
			var roles []string
			for _, m := range ev.Task.History {
				roles = append(roles, m.Role)
			}
			if strings.Join(roles, ",") != "user,agent,user" || !ev.Task.History[0].FromUser() {
				t.Errorf("roles %v", roles)
			}
		}},
	{"message with no parts", `{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT"}}}}`,
		func(t *testing.T, ev a2a.Event) {
			if m := ev.Status.Message; m == nil || m.ID != "m" || len(m.Parts) != 0 || m.Text() != "" {
				t.Errorf("message %+v", m)
			}
		}},
	{"metadata numbers as float", `{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","metadata":{"https://proto-labs.ai/a2a/ext/cost-v1":{"usage":{"input_tokens":18234.0,"output_tokens":12},"costUsd":0.25}}}}}`,
		func(t *testing.T, ev a2a.Event) {
			u, ok := ev.Artifact.Usage()
			if !ok || u.InputTokens != 18234 || u.OutputTokens != 12 || u.CostUSD != 0.25 {
				t.Errorf("usage %+v %v", u, ok)
			}
		}},
	{"unknown fields ignored", `{"statusUpdate":{"taskId":"t","futureField":{"deep":[1,2]},"status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:00Z","extra":true}},"alsoNew":1}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateCompleted) }},
	{"wrong types for metadata and flags", `{"artifactUpdate":{"taskId":"t","append":{"x":1},"metadata":"nope","artifact":{"artifactId":"a","metadata":[1],"parts":[{"text":"x","metadata":7}]}}}`,
		func(t *testing.T, ev a2a.Event) {
			if ev.Append || ev.Artifact.Metadata != nil || ev.Artifact.Parts[0].Metadata != nil {
				t.Errorf("%+v", ev)
			}
		}},
	{"0.3 task kind", `{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventTask, "t", "c", a2a.StateSubmitted) }},
	{"0.3 artifact-update kind", `{"kind":"artifact-update","taskId":"t","contextId":"c","append":true,"artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}}`,
		func(t *testing.T, ev a2a.Event) {
			want(t, ev, a2a.EventArtifact, "t", "c", "")
			if !ev.Append || ev.Artifact.Parts[0].Text != "x" {
				t.Errorf("%+v", ev)
			}
		}},
	{"0.3 message kind", `{"kind":"message","messageId":"m","role":"agent","contextId":"c","parts":[{"kind":"text","text":"x"}]}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventMessage, "", "c", "") }},
	{"no wrapper, no kind: status update by shape", `{"taskId":"t","status":{"state":"working"}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateWorking) }},
	{"no wrapper, no kind: task by shape", `{"id":"t","status":{"state":"working"}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventTask, "t", "", a2a.StateWorking) }},
	{"status without status object", `{"statusUpdate":{"taskId":"t"}}`,
		func(t *testing.T, ev a2a.Event) { want(t, ev, a2a.EventStatus, "t", "", a2a.StateUnknown) }},
}

func TestDecodeFrameLenient(t *testing.T) {
	for _, tt := range lenientFrames {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, decodeOK(t, rpc(tt.frame)))
		})
	}
}

func want(t *testing.T, ev a2a.Event, kind a2a.EventKind, task, ctx string, state a2a.State) {
	t.Helper()
	if ev.Kind != kind || ev.TaskID != task || ev.ContextID != ctx {
		t.Errorf("got kind=%s task=%q ctx=%q, want %s %q %q", ev.Kind, ev.TaskID, ev.ContextID, kind, task, ctx)
	}
	if state != "" && ev.Status.State != state {
		t.Errorf("state %q, want %q", ev.Status.State, state)
	}
}

func TestDecodeFrameErrors(t *testing.T) {
	for _, in := range []string{``, `not json`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","result":{"foo":1}}`, `[1,2]`, `{"result":"text"}`} {
		_, err := DecodeFrame([]byte(in))
		var de *a2a.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%q: want *DecodeError, got %v", in, err)
		}
	}
	// The error is checked before the result.
	_, err := DecodeFrame([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone","data":{"x":1}},"result":{"task":{"id":"t"}}}`))
	var rpcErr *a2a.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32001 || string(rpcErr.Data) != `{"x":1}` {
		t.Errorf("want RPCError, got %v", err)
	}
	// A float error code.
	_, err = DecodeFrame([]byte(`{"error":{"code":-32603.0,"message":"x"}}`))
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32603 {
		t.Errorf("float code: %v", err)
	}
}

func TestPartEncodings(t *testing.T) {
	tests := []struct {
		name string
		part string
		want a2a.Part
	}{
		// 1.0 flat.
		{"1.0 text", `{"text":"hi"}`, a2a.Part{Kind: a2a.PartText, Text: "hi"}},
		{"1.0 empty text", `{"text":""}`, a2a.Part{Kind: a2a.PartText}},
		{"1.0 raw", `{"raw":"aGk=","mediaType":"text/plain","filename":"a.txt"}`, a2a.Part{Kind: a2a.PartFile, Raw: []byte("hi"), MediaType: "text/plain", Filename: "a.txt"}},
		{"1.0 raw unpadded url-safe", `{"raw":"_-8"}`, a2a.Part{Kind: a2a.PartFile, Raw: []byte{0xff, 0xef}}},
		{"1.0 url", `{"url":"https://x/y.png","mediaType":"image/png"}`, a2a.Part{Kind: a2a.PartFile, URL: "https://x/y.png", MediaType: "image/png"}},
		{"1.0 data", `{"data":{"a":1},"mediaType":"application/json","metadata":{"mimeType":"application/vnd.protolabs.reasoning-v1+json"}}`,
			a2a.Part{Kind: a2a.PartData, Data: []byte(`{"a":1}`), MediaType: "application/json", MimeType: a2a.MimeReasoning,
				Metadata: json.RawMessage(`{"mimeType":"application/vnd.protolabs.reasoning-v1+json"}`)}},
		{"snake mime_type in metadata", `{"data":[1],"metadata":{"mime_type":"x/y"}}`,
			a2a.Part{Kind: a2a.PartData, Data: []byte(`[1]`), MimeType: "x/y", Metadata: json.RawMessage(`{"mime_type":"x/y"}`)}},
		// 0.3 kind-tagged.
		{"0.3 text", `{"kind":"text","text":"hi"}`, a2a.Part{Kind: a2a.PartText, Text: "hi"}},
		{"0.3 data", `{"kind":"data","data":{"a":1}}`, a2a.Part{Kind: a2a.PartData, Data: []byte(`{"a":1}`)}},
		{"0.3 file bytes", `{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"a.txt"}}`,
			a2a.Part{Kind: a2a.PartFile, Raw: []byte("hi"), MediaType: "text/plain", Filename: "a.txt"}},
		{"0.3 file uri", `{"kind":"file","file":{"uri":"https://x/y.pdf","mime_type":"application/pdf"}}`,
			a2a.Part{Kind: a2a.PartFile, URL: "https://x/y.pdf", MediaType: "application/pdf"}},
		// Member-discriminated.
		{"$case data", `{"content":{"$case":"data","value":{"k":"v"}},"metadata":{"mimeType":"application/vnd.protolabs.hitl-v1+json"}}`,
			a2a.Part{Kind: a2a.PartData, Data: []byte(`{"k":"v"}`), MimeType: a2a.MimeHitl, Metadata: json.RawMessage(`{"mimeType":"application/vnd.protolabs.hitl-v1+json"}`)}},
		{"$case text", `{"content":{"$case":"text","value":"hi"}}`, a2a.Part{Kind: a2a.PartText, Text: "hi"}},
		{"$case url", `{"content":{"$case":"url","value":"https://x"}}`, a2a.Part{Kind: a2a.PartFile, URL: "https://x"}},
		{"$case raw", `{"content":{"$case":"raw","value":"aGk="}}`, a2a.Part{Kind: a2a.PartFile, Raw: []byte("hi")}},
		// Lenient leftovers.
		{"no recognizable member is empty text", `{"foo":1}`, a2a.Part{Kind: a2a.PartText}},
		{"invalid base64 gives no bytes", `{"raw":"!!!"}`, a2a.Part{Kind: a2a.PartFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := decodeOK(t, rpc(`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[`+tt.part+`]}}}`))
			if len(ev.Artifact.Parts) != 1 {
				t.Fatalf("%d parts", len(ev.Artifact.Parts))
			}
			got := ev.Artifact.Parts[0]
			if string(got.Data) != string(tt.want.Data) {
				t.Errorf("data %s, want %s", got.Data, tt.want.Data)
			}
			got.Data, tt.want.Data = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// statusMessage decodes a working status whose message has the given
// parts and metadata.
func statusMessage(t *testing.T, parts, metadata string) *a2a.Message {
	t.Helper()
	if metadata == "" {
		metadata = "{}"
	}
	ev := decodeOK(t, rpc(`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[`+parts+`],"metadata":`+metadata+`}}}}`))
	return ev.Status.Message
}

func TestToolCalls(t *testing.T) {
	t.Run("metadata object", func(t *testing.T) {
		m := statusMessage(t, `{"text":"x"}`, `{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"tc1","name":"run_command","phase":"STARTED","args":{"cmd":"ls"},"parentToolCallId":"p0"}}`)
		got := m.ToolCalls()
		wantTC := []a2a.ToolCall{{ID: "tc1", Name: "run_command", Phase: "started", Args: `{"cmd":"ls"}`, ParentID: "p0"}}
		if !reflect.DeepEqual(got, wantTC) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("object args as the server wrote them", func(t *testing.T) {
		// Whitespace between tokens dropped, none inside strings; key order,
		// numbers and characters as written (not re-encoded: no sorting,
		// no float64 rounding, no \u003c).
		m := statusMessage(t, ``, `{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"tc1","name":"run","args":{ "cmd" : "ls -la \"my dir\\\" x",
			"n": 12345678901234567890, "f": 1.50, "h": "<b> & \u00e9", "a": [ 1, { } ] }}}`)
		want := `{"cmd":"ls -la \"my dir\\\" x","n":12345678901234567890,"f":1.50,"h":"<b> & \u00e9","a":[1,{}]}`
		if got := m.ToolCalls(); len(got) != 1 || got[0].Args != want {
			t.Errorf("got %+v\nwant args %s", got, want)
		}
	})
	t.Run("metadata list, snake case, string args", func(t *testing.T) {
		m := statusMessage(t, ``, `{"https://proto-labs.ai/a2a/ext/tool-call-v1":[
			{"tool_call_id":"a","name":"read","phase":"completed","args":"{\"path\":\"/x","result":"ok"},
			"garbage",
			{"tool_call_id":"b","name":"edit","phase":"failed","error":{"msg":"denied"},"parent_tool_call_id":"a"}]}`)
		got := m.ToolCalls()
		wantTC := []a2a.ToolCall{
			{ID: "a", Name: "read", Phase: "completed", Args: `{"path":"/x`, Result: "ok"},
			{ID: "b", Name: "edit", Phase: "failed", Error: `{"msg":"denied"}`, ParentID: "a"},
		}
		if !reflect.DeepEqual(got, wantTC) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("older data part", func(t *testing.T) {
		m := statusMessage(t, `{"kind":"data","data":{"toolCallId":"c","name":"grep","phase":"started"},"metadata":{"mimeType":"application/vnd.protolabs.tool-call-v1+json"}}`, "")
		if got := m.ToolCalls(); len(got) != 1 || got[0].ID != "c" || got[0].Name != "grep" {
			t.Errorf("got %+v", got)
		}
		if !m.Parts[0].Known() {
			t.Error("a vendor data part is not Known")
		}
	})
	t.Run("ADK function call and response", func(t *testing.T) {
		m := statusMessage(t, `
			{"data":{"id":"f1","name":"search","args":{"q":"go"}},"metadata":{"adk_type":"function_call"}},
			{"data":{"id":"f1","name":"search","response":{"result":"found"}},"metadata":{"adk_type":"function_response"}},
			{"data":{"id":"f2","name":"fetch","response":{"error":"404"}},"metadata":{"adk_type":"function_response"}},
			{"data":{"id":"f3","name":"calc","response":{"value":2,"unit":"m"}},"metadata":{"adk_type":"function_response"}}`, "")
		got := m.ToolCalls()
		wantTC := []a2a.ToolCall{
			{ID: "f1", Name: "search", Phase: "started", Args: `{"q":"go"}`},
			{ID: "f1", Name: "search", Phase: "completed", Result: "found"},
			{ID: "f2", Name: "fetch", Phase: "failed", Error: "404", Result: `{"error":"404"}`},
			{ID: "f3", Name: "calc", Phase: "completed", Result: `{"value":2,"unit":"m"}`}, // as the server wrote it
		}
		if !reflect.DeepEqual(got, wantTC) {
			t.Errorf("got  %+v\nwant %+v", got, wantTC)
		}
		if !m.Parts[0].Known() {
			t.Error("an ADK part is not Known")
		}
	})
	t.Run("none", func(t *testing.T) {
		if got := statusMessage(t, `{"text":"x"},{"data":{"id":"f"}}`, "").ToolCalls(); len(got) != 0 {
			t.Errorf("got %+v", got)
		}
		var nilMsg *a2a.Message
		if nilMsg.ToolCalls() != nil || nilMsg.Thoughts() != nil || nilMsg.Hitl() != nil || nilMsg.Text() != "" || nilMsg.HitlResume() {
			t.Error("nil message accessors")
		}
	})
}

func TestThoughts(t *testing.T) {
	m := statusMessage(t, `
		{"data":{"text":"thinking..."},"metadata":{"mimeType":"application/vnd.protolabs.reasoning-v1+json"},"mediaType":"application/json"},
		{"text":"hidden step","metadata":{"adk_thought":true}},
		{"content":{"$case":"data","value":{"text":"more"}},"metadata":{"mimeType":"application/vnd.protolabs.reasoning-v1+json"}},
		{"kind":"data","data":{"text":""},"metadata":{"mimeType":"application/vnd.protolabs.reasoning-v1+json"}},
		{"text":"visible"}`, "")
	if got := m.Thoughts(); !reflect.DeepEqual(got, []string{"thinking...", "hidden step", "more"}) {
		t.Errorf("thoughts %q", got)
	}
	if got := m.Text(); got != "visible" {
		t.Errorf("text %q (thoughts must not be in it)", got)
	}
	if !m.Parts[1].Thought() || m.Parts[4].Thought() {
		t.Error("Thought()")
	}
}

// hitlPart is a hitl-v1 data part of payload (TestHitl).
func hitlPart(payload string) string {
	return `{"data":` + payload + `,"metadata":{"mimeType":"application/vnd.protolabs.hitl-v1+json"}}`
}

func TestHitl(t *testing.T) {
	hitl := hitlPart
	t.Run("approval", func(t *testing.T) {
		m := statusMessage(t, `{"text":"Allow?"},`+hitl(`{"kind":"approval","title":"Run rm -rf build","detail":"in /repo","project":"shim"}`), "")
		h := m.Hitl()
		if h == nil || h.Kind != "approval" || h.Title != "Run rm -rf build" || h.Detail != "in /repo" || h.Project != "shim" {
			t.Errorf("%+v", h)
		}
	})
	t.Run("question", func(t *testing.T) {
		h := statusMessage(t, hitl(`{"kind":"QUESTION","question":"Which branch?"}`), "").Hitl()
		if h == nil || h.Kind != "question" || h.Question != "Which branch?" {
			t.Errorf("%+v", h)
		}
	})
	t.Run("no kind: a question from the title or the text", func(t *testing.T) {
		h := statusMessage(t, hitl(`{"title":"Pick one"}`), "").Hitl()
		if h == nil || h.Kind != "question" || h.Question != "Pick one" {
			t.Errorf("%+v", h)
		}
		h = statusMessage(t, `{"text":"What now?"},`+hitl(`{}`), "").Hitl()
		if h == nil || h.Kind != "question" || h.Question != "What now?" {
			t.Errorf("%+v", h)
		}
	})
	t.Run("form", testHitlForm)
	t.Run("form steps", testHitlFormSteps)
	t.Run("$case encoding", func(t *testing.T) {
		h := statusMessage(t, `{"content":{"$case":"data","value":{"kind":"approval","title":"T"}},"metadata":{"mimeType":"application/vnd.protolabs.hitl-v1+json"}}`, "").Hitl()
		if h == nil || h.Kind != "approval" || h.Title != "T" {
			t.Errorf("%+v", h)
		}
	})
	t.Run("none", func(t *testing.T) {
		if h := statusMessage(t, `{"text":"x"}`, "").Hitl(); h != nil {
			t.Errorf("%+v", h)
		}
	})
}

// testHitlForm: a form's fields, read from its steps' schemas (TestHitl).
func testHitlForm(t *testing.T) {
	h := statusMessage(t, hitlPart(`{"kind":"form","title":"Deploy","description":"Pick targets","steps":[{"schema":{
		"required":["env"],
		"properties":{
			"env":{"type":"string","title":"Environment","enum":["dev","prod"]},
			"regions":{"type":"array","items":{"oneOf":[{"const":"eu","title":"Europe"},{"const":"us"}]}},
			"note":{"type":"string","description":"free text"}}}}]}`), "").Hitl()
	if h == nil || h.Kind != "form" || h.Title != "Deploy" || h.Description != "Pick targets" {
		t.Fatalf("%+v", h)
	}
	wantF := []a2a.FormField{
		{Name: "env", Title: "Environment", Type: "string", Required: true, Options: []string{"dev", "prod"}},
		{Name: "note", Type: "string", Description: "free text"},
		{Name: "regions", Type: "array", Multiple: true, Options: []string{"Europe", "us"}},
	}
	if !reflect.DeepEqual(h.Fields, wantF) {
		t.Errorf("fields\n got %+v\nwant %+v", h.Fields, wantF)
	}
}

// testHitlFormSteps: a form's steps, each schema as sent (TestHitl).
func testHitlFormSteps(t *testing.T) {
	h := statusMessage(t, hitlPart(`{"kind":"form","title":"Deploy","steps":[
		{"title":"Where","description":"the target","schema":{"properties":{"z":{"type":"string"},"a":{"type":"boolean"}}}},
		{"title":7,"schema":{"properties":{"n":{"type":"integer"}}}},
		{}]}`), "").Hitl()
	if h == nil || len(h.Steps) != 3 {
		t.Fatalf("%+v", h)
	}
	if s := h.Steps[0]; s.Title != "Where" || s.Description != "the target" ||
		string(s.Schema) != `{"properties":{"z":{"type":"string"},"a":{"type":"boolean"}}}` {
		t.Errorf("step 1: %+v (%s)", s, s.Schema)
	}
	if s := h.Steps[1]; s.Title != "" || string(s.Schema) != `{"properties":{"n":{"type":"integer"}}}` {
		t.Errorf("step 2: %+v (%s)", s, s.Schema)
	}
	if s := h.Steps[2]; s.Title != "" || s.Schema != nil {
		t.Errorf("step 3: %+v", s)
	}
}

func TestSteersConsumedAndResume(t *testing.T) {
	m := statusMessage(t, `{"data":{"items":[{"id":"s1","text":"use tabs"},{"id":"s2","text":"and tests"}]},"metadata":{"mimeType":"application/vnd.protolabs.steer-consumed-v1+json"}}`,
		`{"hitl_resume":true}`)
	if got := m.SteersConsumed(); !reflect.DeepEqual(got, []a2a.SteerItem{{ID: "s1", Text: "use tabs"}, {ID: "s2", Text: "and tests"}}) {
		t.Errorf("steers %+v", got)
	}
	if !m.HitlResume() {
		t.Error("HitlResume false")
	}
	if m2 := statusMessage(t, `{"text":"x"}`, `{"hitl_resume":"yes"}`); m2.HitlResume() || m2.SteersConsumed() != nil {
		t.Error("plain message")
	}
}

// TestBigMetadataReadNotKept: a metadata object past 64 KiB is read as a
// small one is (tool calls, hitl_resume, cost-v1, a part's mime type and
// ADK keys) but not kept as Metadata, so that no model value holds the
// frame.
func TestBigMetadataReadNotKept(t *testing.T) {
	pad := `"pad":"` + strings.Repeat("x", 70<<10) + `"`
	m := statusMessage(t, `{"data":{"id":"f","name":"n","args":{}},"metadata":{`+pad+`,"adk_type":"function_call","mimeType":"x/y"}}`,
		`{`+pad+`,"hitl_resume":true,"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c","name":"run","args":{"a":1}}}`)
	if !m.HitlResume() || m.Metadata != nil || m.Parts[0].Metadata != nil {
		t.Errorf("resume %v, metadata kept: %d and %d bytes", m.HitlResume(), len(m.Metadata), len(m.Parts[0].Metadata))
	}
	if p := m.Parts[0]; !p.ToolEvent || p.ToolEventType != "function_call" || p.MimeType != "x/y" {
		t.Errorf("part %+v", p)
	}
	want := []a2a.ToolCall{{ID: "c", Name: "run", Args: `{"a":1}`}, {ID: "f", Name: "n", Phase: a2a.PhaseStarted, Args: `{}`}}
	if got := m.ToolCalls(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	ev := decodeOK(t, rpc(`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","metadata":{`+pad+`,"https://proto-labs.ai/a2a/ext/cost-v1":{"usage":{"input_tokens":3}}}}}}`))
	if u, ok := ev.Artifact.Usage(); !ok || u.InputTokens != 3 || ev.Artifact.Metadata != nil {
		t.Errorf("usage %+v %v, metadata kept: %d bytes", u, ok, len(ev.Artifact.Metadata))
	}
}

func TestUsage(t *testing.T) {
	artifact := func(t *testing.T, body string) *a2a.Artifact {
		t.Helper()
		return decodeOK(t, rpc(`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a",`+body+`}}}`)).Artifact
	}
	t.Run("metadata", func(t *testing.T) {
		a := artifact(t, `"metadata":{"https://proto-labs.ai/a2a/ext/cost-v1":{"usage":{"input_tokens":18234.0,"output_tokens":512,"cache_read_input_tokens":100,"cache_creation_input_tokens":7},"costUsd":0.0123}}`)
		u, ok := a.Usage()
		wantU := a2a.Usage{InputTokens: 18234, OutputTokens: 512, CacheReadTokens: 100, CacheCreationTokens: 7, CostUSD: 0.0123}
		if !ok || u != wantU {
			t.Errorf("got %+v %v", u, ok)
		}
	})
	t.Run("older cost-v1 data part, camelCase, flat", func(t *testing.T) {
		a := artifact(t, `"parts":[{"kind":"data","data":{"inputTokens":"10","outputTokens":20.0,"cost_usd":"0.5"},"metadata":{"mimeType":"application/vnd.protolabs.cost-v1+json"}}]`)
		u, ok := a.Usage()
		if !ok || u != (a2a.Usage{InputTokens: 10, OutputTokens: 20, CostUSD: 0.5}) {
			t.Errorf("got %+v %v", u, ok)
		}
	})
	t.Run("none", func(t *testing.T) {
		if _, ok := artifact(t, `"parts":[{"text":"x"}]`).Usage(); ok {
			t.Error("usage found")
		}
		var a *a2a.Artifact
		if _, ok := a.Usage(); ok {
			t.Error("nil artifact")
		}
	})
	t.Run("context-v1", func(t *testing.T) {
		a := artifact(t, `"parts":[{"data":{"contextTokens":1200.0,"contextWindow":200000},"metadata":{"mimeType":"application/vnd.protolabs.context-v1+json"}}]`)
		ci, ok := a.Context()
		if !ok || ci != (a2a.ContextInfo{Tokens: 1200, Window: 200000}) {
			t.Errorf("got %+v %v", ci, ok)
		}
	})
}

// TestTaskEvents: a task read back is expressed as the frames a stream
// would have carried: agent messages after the last user message (the
// status message not repeated), artifacts as full replaces, final status.
func TestTaskEvents(t *testing.T) {
	task, err := DecodeTask([]byte(`{"id":"t","contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"Which?"}]}},
		"history":[{"messageId":"a0","role":"ROLE_AGENT","parts":[{"text":"old"}]},{"messageId":"u","role":"ROLE_USER","parts":[{"text":"go"}]},
		{"messageId":"a1","role":"ROLE_AGENT","parts":[{"text":"step"}]},{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"Which?"}]}],
		"artifacts":[{"artifactId":"x","parts":[{"text":"out"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	evs := a2a.TaskEvents(task)
	if kinds(evs) != "status:working,artifact,status:input-required" {
		t.Fatalf("got %s", kinds(evs))
	}
	if evs[0].Status.Message.ID != "a1" || !evs[1].LastChunk || evs[1].Append || evs[2].Final {
		t.Errorf("%+v", evs)
	}
}

// TestADKCodeExecution: Google ADK executable_code and
// code_execution_result parts, from frames shaped as ADK's A2A converter
// writes them, are code_execution calls: the code as args, the output as
// the result, failed by outcome.
func TestADKCodeExecution(t *testing.T) {
	data, err := os.ReadFile("testdata/adk/code-execution.sse")
	if err != nil {
		t.Fatal(err)
	}
	r := sse.NewReader(bytes.NewReader(data), 64<<20)
	var got []a2a.ToolCall
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
		got = append(got, ev.Status.Message.ToolCalls()...)
		for i := range ev.Status.Message.Parts {
			if p := &ev.Status.Message.Parts[i]; p.Kind == a2a.PartData && !p.Known() {
				t.Errorf("an ADK code part is not Known: %+v", p)
			}
		}
	}
	want := []a2a.ToolCall{
		{Name: a2a.ToolCodeExecution, Phase: a2a.PhaseStarted, Args: `{"code":"print(sum(range(10)))\n","language":"PYTHON"}`},
		{Name: a2a.ToolCodeExecution, Phase: a2a.PhaseCompleted, Result: "45\n"},
		{Name: a2a.ToolCodeExecution, Phase: a2a.PhaseStarted, Args: `{"code":"1/0","language":"PYTHON"}`},
		{Name: a2a.ToolCodeExecution, Phase: a2a.PhaseFailed, Result: "ZeroDivisionError: division by zero", Error: "OUTCOME_FAILED"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func kinds(evs []a2a.Event) string {
	var s []string
	for _, ev := range evs {
		k := ev.Kind.String()
		if ev.Kind == a2a.EventStatus || ev.Kind == a2a.EventTask {
			k += ":" + string(ev.Status.State)
		}
		s = append(s, k)
	}
	return strings.Join(s, ",")
}

// TestExtensionsReadOnce: what a message's and an artifact's extensions
// say is read as the frame is decoded, once: the accessors return the
// values read then, whatever happens to the parts and metadata after.
func TestExtensionsReadOnce(t *testing.T) {
	ev := decodeOK(t, []byte(benchToolFrame))
	m := ev.Status.Message
	tools := m.ToolCalls()
	if len(tools) != 1 || tools[0].Name != "read_file" {
		t.Fatalf("tool calls %+v", tools)
	}
	m.Metadata, m.Parts = nil, nil
	if got := m.ToolCalls(); !reflect.DeepEqual(got, tools) {
		t.Errorf("tool calls read again from the metadata: %+v", got)
	}
	ev = decodeOK(t, rpc(`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"x"}],
		"metadata":{"https://proto-labs.ai/a2a/ext/cost-v1":{"usage":{"input_tokens":3}}}}}}`))
	ev.Artifact.Metadata = nil
	if u, ok := ev.Artifact.Usage(); !ok || u.InputTokens != 3 {
		t.Errorf("usage read again from the metadata: %+v %v", u, ok)
	}
}
