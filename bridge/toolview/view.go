package toolview

// The tools shim knows by name (SPEC §5), a row each in tools: the kind
// of their calls, the title their args give, and whether they write a
// plan (SPEC §11.5). Adding a tool is adding a row.

import (
	"github.com/shimdev/shim/acp"
)

// tool is what shim knows of a tool by its name.
type tool struct {
	kind acp.ToolKind
	// title is the title of a call from its args; "" when they say too
	// little (the title is then the tool's name). nil: the name is the
	// title.
	title func(Args) string
	// plan: the tool writes a to-do list or a plan (SPEC §11.5): its
	// call is "Update plan", and its list becomes the editor's plan.
	plan bool
}

var tools = map[string]tool{
	"read_file":      {kind: acp.ToolKindRead, title: readTitle},
	"list_dir":       {kind: acp.ToolKindRead, title: listTitle},
	"list_projects":  {kind: acp.ToolKindRead},
	"search_files":   {kind: acp.ToolKindSearch, title: searchTitle},
	"find_files":     {kind: acp.ToolKindSearch, title: searchTitle},
	"grep":           {kind: acp.ToolKindSearch, title: searchTitle},
	"write_file":     {kind: acp.ToolKindEdit, title: fileTitle("Write ")},
	"edit_file":      {kind: acp.ToolKindEdit, title: fileTitle("Edit ")},
	"delete_file":    {kind: acp.ToolKindDelete, title: fileTitle("Delete ")},
	"move_file":      {kind: acp.ToolKindMove, title: moveTitle},
	"run_command":    {kind: acp.ToolKindExecute, title: commandTitle},
	"bash":           {kind: acp.ToolKindExecute, title: commandTitle},
	"shell":          {kind: acp.ToolKindExecute, title: commandTitle},
	"code_execution": {kind: acp.ToolKindExecute, title: commandTitle}, // Google ADK code execution
	"fetch":          {kind: acp.ToolKindFetch},
	"web_fetch":      {kind: acp.ToolKindFetch},
	"task":           {kind: acp.ToolKindThink},
	"think":          {kind: acp.ToolKindThink},
	// Plan tools.
	"write_todos":      {kind: acp.ToolKindThink, plan: true},
	"todo_write":       {kind: acp.ToolKindThink, plan: true},
	"TodoWrite":        {kind: acp.ToolKindThink, plan: true},
	"update_plan":      {kind: acp.ToolKindThink, plan: true},
	"update_todos":     {kind: acp.ToolKindThink, plan: true},
	"manage_todo_list": {kind: acp.ToolKindThink, plan: true},
}

// Kind returns the ACP ToolKind of the tool name as SPEC §5 maps it; any
// other name, MCP and plugin tools included, is "other". Names match
// exactly (case-sensitive).
func Kind(name string) acp.ToolKind {
	if t, ok := tools[name]; ok {
		return t.kind
	}
	return acp.ToolKindOther
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
