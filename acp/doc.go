// Package acp is the Agent Client Protocol as shim speaks it: the wire
// types (one file per feature), the error codes, the newline-delimited
// stdio stream and the one connection that writes to the editor.
//
// Field names follow the official ACP v1 schema; every value shim writes
// is validated against it in the tests. The package knows nothing of A2A
// or of shim's turns: it imports none of shim's packages.
package acp
