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

// TestValidatorCatchesNative proves that elicitation/create requests and
// the client's answers, plan updates and terminal content are checked by
// their own definitions.
func TestValidatorCatchesNative(t *testing.T) {
	v, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	of := func(string) string { return "" }
	lines := []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string","title":"Answer"}},"required":["answer"]}}}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","message":"Which?"}}`, false},
		{`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","message":"Which?","requestedSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"medium","status":"pending"}]}}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"urgent","status":"pending"}]}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"low","status":"cancelled"}]}}}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"Run: ls","kind":"execute","content":[{"type":"terminal","terminalId":"t"}],"_meta":{"terminal_info":{"terminal_id":"t"}}}}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"Run: ls","content":[{"type":"terminal"}]}}}`, false},
	}
	for _, tt := range lines {
		err := v.AgentLine([]byte(tt.line), of)
		if (err == nil) != tt.ok {
			t.Errorf("%s: ok=%v, err=%v", tt.line, tt.ok, err)
		}
	}
	answers := []struct {
		result string
		ok     bool
	}{
		{`{"action":"accept","content":{"answer":"main","n":3,"tags":["a"],"go":true}}`, true},
		{`{"action":"decline"}`, true},
		{`{"action":"cancel"}`, true},
		{`{"action":"accept","content":{"where":{"x":1}}}`, false},
		{`{}`, false},
	}
	for _, tt := range answers {
		err := v.ClientAnswer("elicitation/create", []byte(tt.result))
		if (err == nil) != tt.ok {
			t.Errorf("%s: ok=%v, err=%v", tt.result, tt.ok, err)
		}
	}
	if err := v.ClientAnswer("session/request_permission", []byte(`{"outcome":{"outcome":"selected","optionId":"approve"}}`)); err != nil {
		t.Error(err)
	}
	if err := v.ClientAnswer("session/request_permission", []byte(`{"outcome":"yes"}`)); err == nil {
		t.Error("a malformed permission answer passed")
	}
}

// TestValidatorCatchesCancelAndURL proves that $/cancel_request (the
// schema's "protocol" side), URL elicitations and elicitation/complete
// are checked by their own definitions.
func TestValidatorCatchesCancelAndURL(t *testing.T) {
	v, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`, true},
		{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}}`, true},
		{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1.5}}`, false},
		{`{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","elicitationId":"e1","url":"https://id.example/device","requestId":2}}`, true},
		{`{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://id.example/device","requestId":2}}`, false},
		{`{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","elicitationId":"e1","requestId":2}}`, false},
		{`{"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"e1"}}`, true},
		{`{"jsonrpc":"2.0","method":"elicitation/complete","params":{}}`, false},
	} {
		err := v.AgentLine([]byte(tt.line), func(string) string { return "" })
		if (err == nil) != tt.ok {
			t.Errorf("%s: ok=%v, err=%v", tt.line, tt.ok, err)
		}
	}
}
