// Package turnsbody is the one made-up thread of the replay bench and the
// tests that measure it: a protoAgent operator API /turns body of as many
// turns as asked, each shaped like a real one.
package turnsbody

import (
	"bytes"
	"fmt"
)

// Body renders turns [from, to) of a thread as protoAgent's operator API
// answers /turns (protoagent-wire.md §3.3's shape): the user's text, a
// tool call started and completed in message metadata, the answer as an
// artifact and as text.
func Body(from, to int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"turns":[`)
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(',')
		}
		answer := fmt.Sprintf("Turn %d: the README says hello. It explains how to build the project, run its tests and "+
			"where the configuration lives; the function you asked about is in src/main.go line %d.", i, i%400+1)
		fmt.Fprintf(&b, `{"task_id":"t%d","state":"TASK_STATE_COMPLETED","last_updated":"2026-09-24T10:00:00",`+
			`"text":%q,"status":{"state":"TASK_STATE_COMPLETED"},`+
			`"artifacts":[{"artifactId":"t%d-answer","parts":[{"text":%q}]}],"history":[`+
			`{"role":"ROLE_USER","parts":[{"text":"Question %d: what does the README say about building?"}]},`+
			`{"role":"ROLE_AGENT","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c%d","name":"read_file","phase":"started","args":"{\"project\": \"p\", \"path\": \"README.md\", \"offset\": 3}"}}},`+
			`{"role":"ROLE_AGENT","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c%d","name":"read_file","phase":"completed","result":"# Project\nhello\n"}}}`+
			`]}`, i, answer, i, answer, i, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}
