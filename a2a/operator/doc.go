// Package operator is the optional operator HTTP API of protoAgent-style
// servers (SPEC §3.4): sessions, their busy signal and turns, steer,
// hand-off and project roots. It is not A2A, but the same agent over the
// same connection (base, /agents/<slug> prefix, credential and headers).
// A 404 or 405 means the server lacks that part of the API: the call
// reports it absent (ErrAbsent), never as a failure, and it is not asked
// again in this process (nor, once kept, by the next launches for a day:
// API.Remember).
//
// Files:
//   - remembered.go: the parts found absent by an earlier launch, and
//     those found now, kept between launches (Remember, SPEC §19; keep
//     is called with API.mu held and takes only its own leaf lock).
//   - operator.go: API and its calls.
//   - learn.go: a minted session's busy signal and the sessions list,
//     asked at once before its first prompt, off the prompts' path (Learn).
//
// Goroutines: Roots asks its three routes and Learn its two on a goroutine
// each, and waits for them. Locks: API.mu, a leaf.
package operator
