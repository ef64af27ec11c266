package bridge

// What a person sees (SPEC §18): an empty prompt refused, files in the
// project linked with no setup.

import (
	"testing"
)

// TestEmptyPromptRefused: a prompt with no content, or only whitespace
// text, answers -32602 "the prompt is empty" and reaches no agent: the
// agent's request log holds only the prompt with words sent after them.
func TestEmptyPromptRefused(t *testing.T) {
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		w.artifact("t1", "a1", "You asked: "+c.text(), false)
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	s := startShim(t, f.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	for _, prompt := range [][]any{
		{},
		{text("")},
		{text("  \n\t ")},
		{text(" "), text("\r\n")},
	} {
		res := s.Call("session/prompt", map[string]any{"sessionId": id, "prompt": prompt})
		if res.Error == nil || res.Error.Code != -32602 || res.Error.Message != "the prompt is empty" {
			t.Errorf("prompt %v: answered %+v %s, want -32602 \"the prompt is empty\"", prompt, res.Error, res.Result)
		}
	}
	// The session still works, and its first prompt with words is the
	// only message the agent got.
	if got := stopReason(t, s.prompt(t, id, "hello")); got != "end_turn" {
		t.Fatalf("stop %q", got)
	}
	sent := f.callsOf("SendStreamingMessage")
	if len(sent) != 1 || sent[0].text() != "hello" {
		var texts []string
		for _, c := range sent {
			texts = append(texts, c.text())
		}
		t.Errorf("the agent got %d messages %q, want only \"hello\"", len(sent), texts)
	}
	if n := len(f.callsOf("SendMessage")); n != 0 {
		t.Errorf("the agent got %d SendMessage", n)
	}
}
