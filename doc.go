// Package shim is the root of the module: it holds no code, only this
// glossary. shim lets an editor speaking the Agent Client Protocol (ACP)
// drive a remote agent speaking A2A. cmd/shim is the program; README.md
// has the layout of the packages, and each package's doc.go lists its
// files, the goroutines it starts and the order its locks are taken in.
//
// # Glossary
//
// One word, one meaning, in code, comments, logs and the README. What a
// person reads (a notice, an error, a dialog) uses none of the words
// marked "code only": it says what happened in plain words.
//
// The two sides:
//   - ACP: the editor's side, JSON-RPC over shim's stdin and stdout
//     (package acp). shim is the ACP agent; the editor is the client.
//   - A2A: the agent's side, JSON-RPC or HTTP+JSON over HTTP, streamed
//     with server-sent events (packages under a2a). shim is the A2A
//     client; the agent is the server.
//
// The editor's side:
//   - Session: an ACP session, one conversation in the editor. Never
//     used for the A2A side.
//   - Turn: one session/prompt and everything until its answer
//     (package bridge/turn).
//   - Tool call: one ACP tool_call and its updates; what the editor draws
//     as a card. Never called a card in code.
//   - Thought: text the agent shows as its thinking (agent_thought_chunk).
//   - Notice: shim's own words about itself to the person: a notice where
//     the editor shows notices, else a thought, a line of the answer or
//     only the log (package bridge/render/notice).
//   - Dialog: what the editor asks the person: a permission request
//     (session/request_permission) or a form (elicitation/create).
//   - Steer: a message sent with "Send Now" into a running turn
//     (package steer).
//   - Thread: a conversation this machine has seen, listed and replayed
//     from the thread index, threads.json (package threads).
//   - Root: a project folder the agent's paths resolve against, never
//     leaving it (package roots).
//
// The agent's side:
//   - Card: the agent card only (/.well-known/agent-card.json and the
//     extended card). Pin: a card's signing key remembered for its card
//     URL in known_agents.json (package a2a/cardsig).
//   - Context: the A2A contextId a session maps to. (Go's
//     context.Context keeps its standard meaning.)
//   - Task: an A2A task; a turn sends one message and follows the tasks it
//     starts.
//   - Snapshot: a task as the server sends it whole (a Task object),
//     and nothing else.
//   - Event: one decoded frame of a stream or a snapshot, in the one
//     event model both dialects decode into (package a2a).
//   - Park (code only): a task stopped for the person (input-required,
//     auth-required), which shim turns into a dialog.
//   - Dialect: the version of A2A's JSON a server speaks (1.0 or 0.3).
//   - Binding: an implementation of an A2A protocol binding, JSON-RPC or
//     HTTP+JSON (package a2a/binding and its implementations).
//   - Transport: an http.RoundTripper, and nothing else.
//   - Profile: the known behaviour of one vendor's server (Gemini CLI's),
//     recognised from its card or named with --agent-profile, kept in one
//     package of its own (package a2a/gemini). An AWS profile is AWS's
//     word, used only for it.
//   - Departure: a place where a server departs from the A2A
//     specification and what it means is plain, so shim reads it anyway;
//     each is read in one place (a2a/wire/departures.go), named for what
//     the server does.
//   - Operator API (code only): the optional HTTP API some agents serve
//     beside A2A (package a2a/operator).
//   - Remembered: what an agent's origin served (its card, with its ETag
//     and Last-Modified) and did not (operator API routes that answered
//     404 or 405), kept between launches for at most a day in
//     remembered.json (package a2a/remember). Never a credential.
//   - Hand-off: a session the operator API's console offers to an editor.
//
// Credentials:
//   - Origin: scheme, host and port; a secret goes only to its own.
//   - Credential: what puts a request's secret on (a2a/auth.Credential).
//   - Stored: a credential kept on disk or in the keyring, with its
//     renewal (a2a/auth.Stored, package a2a/auth/credentials).
//   - Token: a bearer secret; refresh token: the OAuth secret that renews
//     it, sent only to its token URL.
//   - Platform: a managed agent platform (AgentCore, Vertex AI Agent
//     Engine, Gemini Enterprise, Foundry, ServiceNow) whose own credential
//     shim finds and sends only to that platform's hosts
//     (package a2a/auth/platform).
//   - Helper: shim-platform, the program installed beside shim that holds
//     the AWS and Azure credential libraries; found, never written.
package shim
