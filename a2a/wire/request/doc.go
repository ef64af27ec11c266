// Package request is what shim sends an A2A agent, spelled for the
// dialect at the edge: an outgoing message built once in the 1.0 shape
// with its typed intents as metadata (hitl_resume, bypass_permissions,
// skillHint, model; an approval's answer, a park's values), then spelled
// by a table per dialect (0.3: kind tags, the role a word, a file part's
// members in a file object) or as the 0.3.0 proto's ProtoJSON (0.3's
// HTTP+JSON bodies); a blocking send's configuration and the
// historyLength of each dialect; and request bodies (a JSON-RPC request,
// an HTTP+JSON body) with long texts escaped straight into a body of
// their size. Reading the answers is package wire's.
//
// Files:
//   - request.go: the dialects' spellings, Message, SendConfiguration,
//     HistoryLength, the intents, RPC and Body with long texts spliced in.
//   - proto03.go: MessageProto03, a message as the 0.3.0 proto's
//     ProtoJSON.
//
// Goroutines and locks: none (the long texts' markers are an atomic
// counter and a nonce drawn once).
package request
