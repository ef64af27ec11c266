// Package gemini is the Gemini CLI profile (SPEC §12.5): the JSON-RPC
// binding as @google/gemini-cli-a2a-server speaks it, a binding of its own.
// The server speaks A2A 0.3 and declares no extension: its protocol rides
// metadata.coderAgent, which this package reads into the event model the
// rest of shim knows:
//   - text-content deltas and citations are appended artifact text, a
//     thought is working-status text, a tool-call-update is a ToolCall,
//     the tool-<callId>-output artifact is that call's live output;
//   - only a final status ends a turn: a stale input-required on a frame
//     that is not final reads as working, and a final input-required is a
//     completed turn, unless a tool waits for approval (a park naming it);
//   - a session's first message carries the agent settings (the
//     workspace) and no ids, later ones the server's task and context ids;
//     frames are given the session's context id;
//   - the server aborts a run when the connection of its request closes,
//     so each session's task has a connection of its own, kept busy with
//     tasks/get while an approval is asked, and CancelTask drops the
//     running stream instead of cancelling the task.
//
// Files:
//   - gemini.go: Binding, the profile's frames read into events.
//   - conn.go: a session's task and its connection, the keep-alive,
//     cancel as a dropped connection.
//   - encode.go: outgoing messages, the settings, an approval's answer.
//   - tools.go: a tool-call-update read into a ToolCall (kind, display
//     name, subject, paths, result, diff) and the approvals it waits for;
//     never a title: shim's title rules build it from these hints.
//
// Goroutines: one keep-alive per parked session (warmUp), stopped by the
// session's next message, its cancel or its context; its tasks/get in
// flight runs on a context of its own, cancelled only by the cancel (a
// request cancelled in flight closes the connection); a tasks/get on a
// task's connection whose caller left finishes on a goroutine of its own
// (getBehind, at most geminiWarmWait). Locks:
// Binding.mu (the sessions and the tasks) and geminiSession.mu (a
// session's ids, approvals and running stream) are never held together.
package gemini
