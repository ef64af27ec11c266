package request

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestOutMessageIntents: each typed intent of an outgoing message is
// spelled as its metadata key (SPEC §6, §11.1, §11.2), in both dialects,
// and a message without intents carries no metadata at all.
func TestOutMessageIntents(t *testing.T) {
	tests := []struct {
		name string
		m    a2a.OutMessage
		want map[string]any
	}{
		{"none", a2a.OutMessage{ContextID: "c"}, nil},
		{"resume", a2a.OutMessage{TaskID: "t", Resume: true}, map[string]any{"hitl_resume": true}},
		{"bypass", a2a.OutMessage{Bypass: true}, map[string]any{"bypass_permissions": true}},
		{"skill hint", a2a.OutMessage{SkillHint: "Code Review"}, map[string]any{"skillHint": "Code Review"}},
		{"model", a2a.OutMessage{Model: "opus"}, map[string]any{"model": "opus"}},
		{"all", a2a.OutMessage{Resume: true, Bypass: true, SkillHint: "s", Model: "m"},
			map[string]any{"hitl_resume": true, "bypass_permissions": true, "skillHint": "s", "model": "m"}},
	}
	for _, tt := range tests {
		for _, d := range []a2a.Dialect{a2a.V10, a2a.V03} {
			b, err := json.Marshal(Message(d, tt.m))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Metadata map[string]any `json:"metadata"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Metadata, tt.want) {
				t.Errorf("%s (%s): metadata %v, want %v", tt.name, d, got.Metadata, tt.want)
			}
		}
	}
}

// TestApprovalAnswerIsText: a generic agent reads an approval answer as
// the text "approved" or "denied" (SPEC §6); the workspace is not sent.
func TestApprovalAnswerIsText(t *testing.T) {
	for allow, want := range map[bool]string{true: "approved", false: "denied"} {
		m := Message(a2a.V03, a2a.OutMessage{TaskID: "t", Resume: true, Workspace: "/w",
			Approval: &a2a.ApprovalAnswer{ToolCallID: "c", Allow: allow}})
		b, _ := json.Marshal(m)
		var got struct {
			Parts []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"parts"`
			Metadata map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Parts) != 1 || got.Parts[0].Text != want || len(got.Metadata) != 1 {
			t.Errorf("allow=%v: %s", allow, b)
		}
	}
}

// TestMessageSpelledPerDialect: a message of every kind of part is built
// once, in the 1.0 shape, and spelled for 0.3 at the end (kind tags, the
// role a word, a file part's members in a file object), each spelling
// byte for byte what that dialect's servers read.
func TestMessageSpelledPerDialect(t *testing.T) {
	m := a2a.OutMessage{ContextID: "c", TaskID: "t", Parts: []a2a.Part{
		{Kind: a2a.PartText, Text: "hi"},
		{Kind: a2a.PartData, Data: []byte(`{"a":1}`)},
		{Kind: a2a.PartFile, URL: "https://x.example/f.png", MediaType: "image/png", Filename: "f.png"},
		{Kind: a2a.PartFile, Raw: []byte("raw"), Metadata: json.RawMessage(`{"k":"v"}`)},
	}}
	want := map[a2a.Dialect]string{
		a2a.V10: `{"contextId":"c","parts":[{"text":"hi"},{"data":{"a":1}},{"filename":"f.png","mediaType":"image/png","url":"https://x.example/f.png"},{"metadata":{"k":"v"},"raw":"cmF3"}],"role":"ROLE_USER","taskId":"t"}`,
		a2a.V03: `{"contextId":"c","kind":"message","parts":[{"kind":"text","text":"hi"},{"data":{"a":1},"kind":"data"},{"file":{"mimeType":"image/png","name":"f.png","uri":"https://x.example/f.png"},"kind":"file"},{"file":{"bytes":"cmF3"},"kind":"file","metadata":{"k":"v"}}],"role":"user","taskId":"t"}`,
	}
	for d, w := range want {
		msg := Message(d, m)
		delete(msg, "messageId")
		if b, _ := json.Marshal(msg); string(b) != w {
			t.Errorf("%s:\n got %s\nwant %s", d, b, w)
		}
	}
	for d, w := range map[a2a.Dialect]string{a2a.V10: `{"returnImmediately":true}`, a2a.V03: `{"blocking":false}`} {
		if b, _ := json.Marshal(SendConfiguration(d)); string(b) != w {
			t.Errorf("%s configuration %s, want %s", d, b, w)
		}
	}
}
