package bridge

import (
	"encoding/json"
	"testing"

	"github.com/shimdev/shim/examples/agent"
)

// TestRealServerStreams runs a prompt against the official a2a-go v2
// server, in its 1.0 dialect and in its 0.3 compatibility mode: the
// appended chunks arrive as agent_message_chunks, the final full replace
// adds nothing, the turn ends end_turn with the usage.
func TestRealServerStreams(t *testing.T) {
	for _, dialect := range []string{"1.0", "0.3"} {
		t.Run(dialect, func(t *testing.T) {
			url := startAgent(t, agent.Options{Name: "Go Agent", Dialect: dialect})
			s := startShim(t, url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			res := s.prompt(t, id, "where is the handler?")
			if got := stopReason(t, res); got != "end_turn" {
				t.Fatalf("stopReason %q", got)
			}
			ups := s.Updates(id)
			want := "You asked: where is the handler?\nHere is a streamed answer in several chunks."
			if got := answer(ups, "agent_message_chunk"); got != want {
				t.Errorf("answer:\n got %q\nwant %q", got, want)
			}
			if n := count(ups, "agent_message_chunk"); n < 3 {
				t.Errorf("want the answer in several chunks, got %d", n)
			}
			if got := answer(ups, "agent_thought_chunk"); got != "Thinking about: where is the handler?" {
				t.Errorf("thought %q", got)
			}
			var r struct {
				Usage struct {
					InputTokens, OutputTokens, TotalTokens, CachedReadTokens int
				} `json:"usage"`
			}
			_ = json.Unmarshal(res.Result, &r)
			if r.Usage.InputTokens != 1200 || r.Usage.OutputTokens != 85 || r.Usage.TotalTokens != 1285 || r.Usage.CachedReadTokens != 1000 {
				t.Errorf("usage %+v", r.Usage)
			}
		})
	}
}
