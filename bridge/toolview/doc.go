// Package toolview turns a remote agent's tool call (its name, its raw
// argument text, its result text, and what the agent says of it) into
// what an ACP editor shows of a tool_call: a kind, a readable title,
// absolute file locations, a diff for complete writes and edits, and a
// cut result text. It is the one place a tool call's title is decided
// (the A2A side gives hints, never a title). It builds no ACP JSON itself
// and imports nothing from this module but acp (the tool kinds) and
// internal helpers.
//
// Its rules are tables, a row each: the tools shim knows by name, with
// their kind, title and plan (view.go); the titles of calls known only by
// the agent's hints (agentRules, title.go).
//
// It is pure: no goroutine, no lock; its tables are read only.
//
// # Files
//
//	args.go       the arguments recovered from a raw text (ParseArgs)
//	view.go       the tools known by name (kind, title, plan), Kind,
//	              CutResult
//	title.go      Title: the title rules, by name and by the agent's
//	              hints; the one cut of a command in a title
//	locations.go  locations, search hits and diffs
//	plan.go       a plan tool's list
//	exit.go       a command's exit code
//
// Line numbers are 1-based throughout, as in ACP. protoAgent's read_file
// offset is a 1-based line number too (offset 30 is line 30), so it is used
// as the location's line unchanged.
package toolview
