package toolview

// What a call acts on, as an approval names it (SPEC §18): the command
// or the file a park's detail names, compared with a call's args, so
// that a park is asked on the card of the call it is about.

import "github.com/shimdev/shim/acp"

// SameSubject reports whether two calls of kind kind, with args a and b,
// act on the same thing: a command the same command (its first line, as
// its title shows it), any other call the same file (its path, and its
// project when both name one). False when a names none.
func SameSubject(kind acp.ToolKind, a, b Args) bool {
	if kind == acp.ToolKindExecute {
		c := commandLine(a)
		return c != "" && c == commandLine(b)
	}
	p := a.String("path")
	if p == "" || p != b.String("path") {
		return false
	}
	pa, pb := a.String("project"), b.String("project")
	return pa == "" || pb == "" || pa == pb
}
