package wire

// Strict03 is strict03 for the tests of package wire_test (the agent
// card's parse is package agentcard's, which imports wire).
var Strict03 = strict03
