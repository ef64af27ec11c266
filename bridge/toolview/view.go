package toolview

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shimdev/shim/acp"
)

var kinds = map[string]acp.ToolKind{
	"read_file":      acp.ToolKindRead,
	"list_dir":       acp.ToolKindRead,
	"list_projects":  acp.ToolKindRead,
	"search_files":   acp.ToolKindSearch,
	"find_files":     acp.ToolKindSearch,
	"grep":           acp.ToolKindSearch,
	"write_file":     acp.ToolKindEdit,
	"edit_file":      acp.ToolKindEdit,
	"delete_file":    acp.ToolKindDelete,
	"move_file":      acp.ToolKindMove,
	"run_command":    acp.ToolKindExecute,
	"bash":           acp.ToolKindExecute,
	"shell":          acp.ToolKindExecute,
	"code_execution": acp.ToolKindExecute, // Google ADK code execution
	"fetch":          acp.ToolKindFetch,
	"web_fetch":      acp.ToolKindFetch,
	"task":           acp.ToolKindThink,
	"think":          acp.ToolKindThink,
}

// Kind returns the ACP ToolKind of the tool name as SPEC §5 maps it; any
// other name, MCP and plugin tools included, is "other". Names match
// exactly (case-sensitive).
func Kind(name string) acp.ToolKind {
	if planTools[name] {
		return acp.ToolKindThink
	}
	if k, ok := kinds[name]; ok {
		return k
	}
	return acp.ToolKindOther
}

// Most characters of a command shown in a title.
const maxCommandRunes = 80

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
//	run_command, bash, shell
//	                     Run: <command> (its first line, cut at 80 characters)
//	a plan tool (write_todos, todo_write, TodoWrite, update_plan,
//	update_todos, manage_todo_list)
//	                     Update plan, with or without args
//	anything else        the tool name
//
// <file> is "<project>/<path>" when the args name a project, else "<path>";
// an absolute path is shown alone. list_dir with no path (or ".") lists the
// project's root: "List <project>". Until the args arrive (the early
// announce, no fields), and whenever the field a title needs is missing
// (a path, a query or pattern, a command: absent or cut), the title is the
// tool name. move_file with its destination missing is "Move <file>".
// A limit without an offset adds no line range, and offsets and limits
// below 1 are ignored.
func Title(name string, a Args) string {
	if planTools[name] {
		return planTitle
	}
	if len(a.Fields) == 0 && a.cutKey == "" {
		return name
	}
	if title, ok := titles[name]; ok {
		if t := title(a); t != "" {
			return t
		}
		return name
	}
	if Kind(name) == acp.ToolKindExecute {
		if c := commandLine(a); c != "" {
			return "Run: " + c
		}
	}
	return name
}

// titles is the title of each file and search tool from its args; ""
// when they say too little (the title is then the tool's name).
var titles = map[string]func(Args) string{
	"read_file":    readTitle,
	"list_dir":     listTitle,
	"search_files": searchTitle,
	"find_files":   searchTitle,
	"grep":         searchTitle,
	"write_file":   fileTitle("Write "),
	"edit_file":    fileTitle("Edit "),
	"delete_file":  fileTitle("Delete "),
	"move_file":    moveTitle,
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

// Most characters of a result shown in a tool call.
const maxResultRunes = 4000

// CutResult returns the first 4000 characters (runes) of a tool's result
// text, followed by "\n…" when the text was longer.
func CutResult(s string) string {
	n := 0
	for i := range s {
		if n == maxResultRunes {
			return s[:i] + "\n…"
		}
		n++
	}
	return s
}

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

// commandLine returns the first line of the command in a, cut at 80
// characters; a command given as a list of words is joined with spaces.
// When the raw text was cut inside the command, its beginning still serves
// if it already holds the whole first line or 80 characters of it (the last
// character that arrived is not trusted: a cut escape may have damaged it).
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
	if !strings.ContainsAny(t, "\r\n") && utf8.RuneCountInString(t) < maxCommandRunes {
		return ""
	}
	return firstLine(t)
}

// firstLine returns the first non-blank line of c without surrounding
// space, cut at 80 characters.
func firstLine(c string) string {
	c = strings.TrimLeftFunc(c, unicode.IsSpace)
	if i := strings.IndexAny(c, "\r\n"); i >= 0 {
		c = c[:i]
	}
	n := 0
	for i := range c {
		if n == maxCommandRunes {
			c = c[:i]
			break
		}
		n++
	}
	return strings.TrimRightFunc(c, unicode.IsSpace)
}
