package gemini

// The Gemini CLI profile's tool calls: a tool-call-update read into a
// ToolCall (kind, display name, subject, paths, result, diff) and the
// approvals it waits for. The call's title is shim's to build from these
// (bridge/toolview), never this profile's.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shimdev/shim/a2a"
)

// geminiToolUpdate is a tool-call-update's data part.
type geminiToolUpdate struct {
	Request struct {
		CallID string          `json:"callId"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
	} `json:"request"`
	Status string `json:"status"`
	Tool   struct {
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
		Kind        string `json:"kind"`
	} `json:"tool"`
	ConfirmationDetails *struct {
		Type       string   `json:"type"`
		Title      string   `json:"title"`
		Prompt     string   `json:"prompt"`
		Command    string   `json:"command"`
		FileName   string   `json:"fileName"`
		ServerName string   `json:"serverName"`
		ToolName   string   `json:"toolName"`
		URLs       []string `json:"urls"`
	} `json:"confirmationDetails"`
	Response *struct {
		ResultDisplay json.RawMessage `json:"resultDisplay"`
		ResponseParts []struct {
			FunctionResponse struct {
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"responseParts"`
		Error any `json:"error"`
	} `json:"response"`
}

// tool reads a tool-call-update, remembering the calls that wait for
// approval.
func (s *geminiSession) tool(u *geminiToolUpdate) a2a.ToolCall {
	tc := a2a.ToolCall{ID: u.Request.CallID, Name: cmp.Or(u.Request.Name, u.Tool.Name), Kind: geminiKind(u.Tool.Kind)}
	if len(u.Request.Args) > 0 && string(u.Request.Args) != "null" {
		tc.Args = string(u.Request.Args)
	}
	var args map[string]any
	_ = json.Unmarshal(u.Request.Args, &args)
	tc.Display, tc.Subject = u.Tool.DisplayName, geminiSubject(tc.Kind, args)
	tc.Paths = geminiPaths(tc.Kind, args)
	s.mu.Lock()
	s.dropAwait(tc.ID)
	s.mu.Unlock()
	switch u.Status {
	case "executing":
		tc.Phase = a2a.PhaseStarted
	case "success":
		tc.Phase = a2a.PhaseCompleted
	case "error", "cancelled":
		tc.Phase = a2a.PhaseFailed
	case "awaiting_approval":
		tc.Phase = a2a.PhasePending
		a := geminiAwait{callID: tc.ID}
		if d := u.ConfirmationDetails; d != nil {
			a.confType = d.Type
			a.title = d.Title
			a.detail = cmp.Or(d.Command, cmp.Or(d.Prompt, cmp.Or(d.FileName, strings.Join(d.URLs, "\n"))))
			if a.detail == "" && d.ToolName != "" {
				a.detail = strings.TrimPrefix(d.ServerName+" "+d.ToolName, " ")
			}
		}
		s.mu.Lock()
		s.awaiting = append(s.awaiting, a)
		s.mu.Unlock()
	default: // validating, scheduled
		tc.Phase = a2a.PhasePending
	}
	if r := u.Response; r != nil {
		display, diff := geminiDisplay(r.ResultDisplay, args)
		tc.Diff = diff
		var errText string
		for _, p := range r.ResponseParts {
			if e, ok := p.FunctionResponse.Response["error"]; ok && e != nil {
				errText = jsonText(e)
			}
		}
		if errText == "" && r.Error != nil {
			o, _ := r.Error.(map[string]any)
			if msg, _ := o["message"].(string); msg != "" {
				errText = msg
			} else {
				errText = jsonText(r.Error)
			}
		}
		tc.Result = display
		if tc.Phase == a2a.PhaseFailed {
			tc.Error = errText
			if tc.Result == "" {
				tc.Result = errText
			}
		}
	}
	return tc
}

// geminiDisplay reads response.resultDisplay: a text, or an edit's
// {fileDiff, fileName, originalContent, newContent}.
func geminiDisplay(raw json.RawMessage, args map[string]any) (string, *a2a.ToolDiff) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var o struct {
		FileDiff        string  `json:"fileDiff"`
		FileName        string  `json:"fileName"`
		FilePath        string  `json:"filePath"`
		OriginalContent *string `json:"originalContent"`
		NewContent      string  `json:"newContent"`
	}
	if json.Unmarshal(raw, &o) != nil || (o.FileDiff == "" && o.NewContent == "") {
		return string(raw), nil
	}
	path, _ := args["file_path"].(string)
	if !filepath.IsAbs(path) {
		path = cmp.Or(o.FilePath, o.FileName)
	}
	old := ""
	if o.OriginalContent != nil {
		old = *o.OriginalContent
	}
	if !filepath.IsAbs(path) {
		return o.FileDiff, nil
	}
	return o.FileDiff, &a2a.ToolDiff{Path: path, OldText: old, NewText: o.NewContent}
}

// geminiPathArgs are the args Gemini CLI's file tools name their file or
// folder in: read_file, write_file and replace take file_path (older
// versions absolute_path); list_directory, glob and search_file_content
// take dir_path (older versions path).
var geminiPathArgs = []string{"file_path", "absolute_path", "dir_path", "path"}

// geminiPaths is where a call of a file tool is, for the editor to follow:
// the file or folder its args name (a command's folder is not followed);
// a read's offset, 0-based there, is its 1-based line.
func geminiPaths(kind string, args map[string]any) []a2a.ToolPath {
	if kind == "execute" {
		return nil
	}
	for _, k := range geminiPathArgs {
		p, ok := args[k].(string)
		if !ok || strings.TrimSpace(p) == "" {
			continue
		}
		tp := a2a.ToolPath{Path: p}
		if off, ok := args["offset"].(float64); ok && kind == "read" && off >= 0 && off < 1<<31 {
			tp.Line = int(off) + 1
		}
		return []a2a.ToolPath{tp}
	}
	return nil
}

// geminiKind keeps the kinds ACP knows (Gemini CLI's Kind enum is the same
// set).
func geminiKind(k string) string {
	switch k {
	case "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other":
		return k
	}
	return "other"
}

// geminiSubjectArgs are the args a Gemini CLI tool of each kind names
// what it acts on in, first found first: a command, a file or folder, a
// pattern or query, an address or a prompt.
var geminiSubjectArgs = map[string][]string{
	"execute": {"command"},
	"read":    {"file_path", "absolute_path", "path", "dir_path"},
	"edit":    {"file_path", "path"},
	"search":  {"pattern", "query"},
	"fetch":   {"url", "prompt", "query"},
}

// geminiSubject is what a call of the kind acts on, as its args name it
// (without surrounding space); "" when they name nothing.
func geminiSubject(kind string, args map[string]any) string {
	for _, k := range geminiSubjectArgs[kind] {
		if s, ok := args[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// jsonText returns a string as is and any other value as JSON text.
func jsonText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
