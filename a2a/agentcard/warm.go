package agentcard

// warmCard names every kind of member Parse and ParseSecurity decode
// (interfaces, capabilities with an extension, a skill, a bearer scheme
// and its requirement), in no agent's words.
var warmCard = []byte(`{"name":"n","description":"d","version":"1",
"capabilities":{"streaming":true,"extendedAgentCard":false,"extensions":[{"uri":"u","required":false}]},
"supportedInterfaces":[{"url":"http://127.0.0.1/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
"skills":[{"id":"s","name":"s","description":"d","examples":["e"]}],
"securitySchemes":{"b":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
"securityRequirements":[{"schemes":{"b":{"list":[]}}}]}`)

// Warm decodes a card once, so that the decoder's first use (the types
// it learns, ~0.8 ms) is paid once the process answered the editor's
// first request, not after the agent's card arrives (SPEC §19).
func Warm() {
	_, _ = Parse(warmCard, 0, 0)
	_ = ParseSecurity(warmCard)
}
