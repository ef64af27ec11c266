package wire

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
			b, err := json.Marshal(EncodeMessage(d, tt.m))
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
		m := EncodeMessage(a2a.V03, a2a.OutMessage{TaskID: "t", Resume: true, Workspace: "/w",
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
