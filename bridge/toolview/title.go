package toolview

// Titles a person reads on a tool call (SPEC §5), decided here alone: by
// the tool's name (the rows of tools), else by what the agent says of the
// call (the rows of agentRules), else its name. Adding a rule is adding a
// row. A command's title is the command itself: its first line, cut at 80
// characters and then "…" (firstLine), whichever rule shows it (SPEC §18).

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/textcut"
)

// Hints are what the agent itself says of a call beside its name and
// args: its kind, its display text (a display name of its tool, such as
// "ReadFile", or words of its own), and what the call acts on as its args
// name it (Subject: a file or folder, a command, a pattern or query, an
// address). They title a call whose name shim has no title for.
type Hints struct {
	Kind    acp.ToolKind
	Display string
	Subject string
}

// Title returns the title a person reads on the tool call (SPEC §5):
//
//	read_file            Read <file>, plus " (lines A–B)" for offset A and limit L
//	                     (B = A+L−1) or " (from line A)" for an offset alone
//	list_dir             List <file>
//	search_files, find_files, grep
//	                     Search <project> for '<query>' / Search for '<query>'
//	write_file           Write <file>
//	edit_file            Edit <file>
//	delete_file          Delete <file>
//	move_file            Move <file> to <dest>
//	run_command, bash, shell, code_execution
//	                     <command> (its first line, cut at 80 characters, then "…")
//	a plan tool (write_todos, todo_write, TodoWrite, update_plan,
//	update_todos, manage_todo_list)
//	                     Update plan, with or without args
//	anything else        the agent's hints (agentRules), else the tool name
//
// <file> is "<project>/<path>" when the args name a project, else "<path>";
// an absolute path is shown alone. list_dir with no path (or ".") lists the
// project's root: "List <project>". Until the args arrive (the early
// announce, no fields), and whenever the field a title needs is missing
// (a path, a query or pattern, a command: absent or cut), the title is the
// tool name. move_file with its destination missing is "Move <file>".
// A limit without an offset adds no line range, and offsets and limits
// below 1 are ignored.
//
// A call whose name gives no title but its name is titled by the agent's
// hints when it gave a display text or a subject: the first row of
// agentRules for its kind (and display name) that its subject fills, else
// the display text, else the name.
func Title(name string, a Args, h Hints) string {
	t := nameTitle(name, a)
	if t == name && (h.Display != "" || h.Subject != "") {
		return h.title(name)
	}
	return t
}

// planTitle is the title of a plan tool's call.
const planTitle = "Update plan"

// nameTitle is the title the tool's name and args give: the name when
// they give none.
func nameTitle(name string, a Args) string {
	t, ok := tools[name]
	switch {
	case t.plan:
		return planTitle
	case !ok || t.title == nil || len(a.Fields) == 0 && a.cutKey == "":
		return name
	}
	if s := t.title(a); s != "" {
		return s
	}
	return name
}

// agentRule titles a call by the agent's hints: a call of the agent's
// kind kind (and, when display is set, of one of those display names)
// whose subject is known.
type agentRule struct {
	kind    acp.ToolKind
	display []string
	title   func(display, subject string) string
}

// agentRules are the titles of calls shim knows only by the agent's
// hints, first match first.
var agentRules = []agentRule{
	{kind: acp.ToolKindExecute, title: func(_, s string) string { return runTitle(s) }},
	{kind: acp.ToolKindRead, display: []string{"ReadFile", "ReadManyFiles"}, title: verb("Read ")},
	{kind: acp.ToolKindRead, title: verb("List ")},
	{kind: acp.ToolKindEdit, display: []string{"WriteFile"}, title: verb("Write ")},
	{kind: acp.ToolKindEdit, title: verb("Edit ")},
	{kind: acp.ToolKindSearch, title: func(_, s string) string { return "Search for '" + s + "'" }},
	{kind: acp.ToolKindFetch, title: func(d, s string) string { return d + ": " + s }},
}

// verb is the title of a call that does v to its subject.
func verb(v string) func(display, subject string) string {
	return func(_, s string) string { return v + s }
}

// title is the title the hints give a call of the tool name: the first
// rule that matches (with a subject), else the display text, else name.
func (h Hints) title(name string) string {
	display := cmp.Or(h.Display, name)
	if h.Subject == "" {
		return display
	}
	for _, r := range agentRules {
		if r.kind == h.Kind && (r.display == nil || slices.Contains(r.display, display)) {
			if t := r.title(display, h.Subject); t != "" {
				return t
			}
			break
		}
	}
	return display
}

// ChildTitle returns title prefixed with "↳ ", the title of a call made
// inside another (one with a parentToolCallId). A title that already has
// the prefix is returned as is.
func ChildTitle(title string) string {
	const prefix = "↳ "
	if strings.HasPrefix(title, prefix) {
		return title
	}
	return prefix + title
}

func readTitle(a Args) string {
	f, ok := fileLabel(a)
	if !ok {
		return ""
	}
	if off, ok := a.Int("offset"); ok && off > 0 {
		if lim, ok := a.Int("limit"); ok && lim > 0 && off <= math.MaxInt-lim {
			return "Read " + f + " (lines " + strconv.Itoa(off) + "–" + strconv.Itoa(off+lim-1) + ")"
		}
		return "Read " + f + " (from line " + strconv.Itoa(off) + ")"
	}
	return "Read " + f
}

func listTitle(a Args) string {
	if f, ok := fileLabel(a); ok {
		return "List " + f
	}
	if p := a.String("project"); p != "" && listsRoot(a) {
		return "List " + p
	}
	return ""
}

func searchTitle(a Args) string {
	q := a.String("query")
	if q == "" {
		q = a.String("pattern")
	}
	if q == "" {
		return ""
	}
	if p := a.String("project"); p != "" {
		return "Search " + p + " for '" + q + "'"
	}
	return "Search for '" + q + "'"
}

// fileTitle is the title of a tool that does verb to one file.
func fileTitle(verb string) func(Args) string {
	return func(a Args) string {
		if f, ok := fileLabel(a); ok {
			return verb + f
		}
		return ""
	}
}

func moveTitle(a Args) string {
	f, ok := fileLabel(a)
	if !ok {
		return ""
	}
	if d := destPath(a); d != "" {
		return "Move " + f + " to " + d
	}
	return "Move " + f
}

// commandTitle is the title of a command tool's call: the command's
// first line (firstLine is the same on a line it cut).
func commandTitle(a Args) string { return runTitle(commandLine(a)) }

// runTitle is the title of a command: its first line, cut at 80
// characters and then "…" (SPEC §18: no "Run: " before it, as
// claude-agent-acp titles its terminal calls); "" when it has no line.
func runTitle(command string) string { return firstLine(command) }

// fileLabel returns <file> for the title: "<project>/<path>", or the path
// alone with no project or when it is absolute; false with no path.
func fileLabel(a Args) (string, bool) {
	p := a.String("path")
	if p == "" {
		return "", false
	}
	if pr := a.String("project"); pr != "" && !strings.HasPrefix(p, "/") {
		if p == "." {
			return pr, true
		}
		return pr + "/" + p, true
	}
	return p, true
}

// listsRoot reports whether list_dir's args name no path because the path
// was left out (so it lists the project root), not because it was cut.
func listsRoot(a Args) bool {
	_, present := a.Fields["path"]
	return a.Complete && !present
}

// destPath returns a move's destination.
func destPath(a Args) string {
	for _, k := range destKeys {
		if d := a.String(k); d != "" {
			return d
		}
	}
	return ""
}

var destKeys = []string{"dest", "destination", "new_path", "to"}

// Most characters of a command shown in a title.
const maxCommandRunes = 80

// commandLine returns the first line of the command in a, cut at 80
// characters; a command given as a list of words is joined with spaces.
// When the raw text was cut inside the command, its beginning still serves
// if it already holds the whole first line or more than 80 characters of
// it (the last character that arrived is not trusted: a cut escape may
// have damaged it).
func commandLine(a Args) string {
	for _, k := range []string{"command", "cmd"} {
		var c string
		switch v := a.Fields[k].(type) {
		case string:
			c = v
		case []any:
			words := make([]string, 0, len(v))
			for _, w := range v {
				if s, ok := w.(string); ok {
					words = append(words, s)
				}
			}
			c = strings.Join(words, " ")
		}
		if c = firstLine(c); c != "" {
			return c
		}
	}
	if a.cutKey != "command" && a.cutKey != "cmd" {
		return ""
	}
	t := a.cutText
	if _, size := utf8.DecodeLastRuneInString(t); size > 0 {
		t = t[:len(t)-size]
	}
	t = strings.TrimLeftFunc(t, unicode.IsSpace)
	// Without a line end, only more than 80 characters say that the
	// line is cut in the title whatever comes next.
	if !strings.ContainsAny(t, "\r\n") && utf8.RuneCountInString(t) <= maxCommandRunes {
		return ""
	}
	return firstLine(t)
}

// firstLine returns the first non-blank line of c without surrounding
// space, cut at 80 characters and then "…": the one cut of a command in a
// title.
func firstLine(c string) string {
	c = strings.TrimLeftFunc(c, unicode.IsSpace)
	if i := strings.IndexAny(c, "\r\n"); i >= 0 {
		c = c[:i]
	}
	c = strings.TrimRightFunc(c, unicode.IsSpace)
	if cut := textcut.FirstChars(c, maxCommandRunes); len(cut) < len(c) {
		return strings.TrimRightFunc(cut, unicode.IsSpace) + "…"
	}
	return c
}
