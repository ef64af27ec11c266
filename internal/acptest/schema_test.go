package acptest

import (
	"strings"
	"testing"
)

// TestValidatorCatches proves the validator rejects what the schema
// forbids, by method and side, so that tests using it can fail.
func TestValidatorCatches(t *testing.T) {
	v, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]string{"1": "initialize", "2": "session/prompt", "3": "session/new", "4": "session/cancel", "5": "_session/steering", "6": "session/set_mode", "7": "session/delete"}
	of := func(id string) string { return methods[id] }
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t"}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"no_such_update"}}}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, true},
		{`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"finished"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"one"}}`, false},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"auth"}}`, true},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}`, false},
		{`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"a"},"options":[{"optionId":"approve","name":"Allow once","kind":"allow_once"}]}}`, true},
		{`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s","options":[]}}`, false},
		{`{"id":2,"result":{"stopReason":"end_turn"}}`, false},
		{`{"jsonrpc":"2.0","id":4,"result":null}`, true},
		{`{"jsonrpc":"2.0","id":4,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":5,"result":{"outcome":"injected"}}`, true},
		{`{"jsonrpc":"2.0","id":5,"result":{"outcome":"queued"}}`, false},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":6,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"ask"}}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"status"}]}}}`, false},
	}
	for _, tt := range tests {
		err := v.AgentLine([]byte(tt.line), of)
		if (err == nil) != tt.ok {
			t.Errorf("%s: ok=%v, err=%v", strings.TrimSpace(tt.line), tt.ok, err)
		}
	}
}
