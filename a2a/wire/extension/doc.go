// Package extension reads the payloads of the extensions shim understands
// (SPEC §3.3, reference/protoagent-wire.md) into package a2a's values:
// tool-call-v1 (in message metadata, one object or a list, or the older
// data part), reasoning-v1, hitl-v1 parks (approvals, questions, forms
// with their steps and fields), steer-consumed-v1, cost-v1 (in artifact
// metadata or the older data part) and context-v1. Package wire tells
// which extension a message's metadata or data part speaks, as it decodes
// it, and hands the payload here.
//
// Files:
//   - extension.go: tool calls, reasoning, steers, usage and context; the
//     generic readers of a payload's members.
//   - hitl.go: Park, a hitl-v1 park with its form.
//
// Goroutines and locks: none.
package extension
