package toolview

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Resolver turns a (project, relative-or-absolute path) into an absolute
// local path that is guaranteed inside a root; ok=false when unknown or
// escaping. project "" means the session cwd.
type Resolver interface {
	Resolve(project, path string) (string, bool)
}

// NewResolver is a Resolver that also resolves the path of a file a call
// may create (a write, an edit, a move's destination), which may not
// exist yet: with no project known, such a path resolves where its folder
// exists (SPEC §18). A Resolver without it resolves them as any path.
type NewResolver interface {
	Resolver
	ResolveNew(project, path string) (string, bool)
}

// resolveNew resolves the path of a file a call may create through r.
func resolveNew(r Resolver, project, path string) (string, bool) {
	if n, ok := r.(NewResolver); ok {
		return n.ResolveNew(project, path)
	}
	return r.Resolve(project, path)
}

// Location is a place in a local file the editor can follow.
type Location struct {
	Path string // absolute
	Line int    // 1-based; 0 = none
}

// FileDiff is the content of an ACP diff block for a write or an edit.
type FileDiff struct {
	Path    string  // absolute
	OldText *string // nil for a write (a new or overwritten file)
	NewText string
}

// Locations returns the files a call touches, resolved through r:
// read_file, list_dir, write_file, edit_file and delete_file their path
// (list_dir with no path the project root); move_file both its path and its
// destination (in the same project); search_files, find_files and grep the
// path they search when they name one other than ".". A read_file with an
// offset above 0 has that offset as its line: protoAgent's offset is a
// 1-based line number, as ACP lines are. The path of a write or an edit,
// and a move's destination, resolve as a file the call may create
// (NewResolver). Paths r refuses, and any r returns that are not
// absolute, are left out; a path listed twice appears once.
func Locations(name string, a Args, r Resolver) []Location {
	project := a.String("project")
	p := a.String("path")
	var out []Location
	creates := false // the paths added next are of a file the call may create
	add := func(path string, line int) {
		if path == "" || r == nil {
			return
		}
		var abs string
		var ok bool
		if creates {
			abs, ok = resolveNew(r, project, path)
		} else {
			abs, ok = r.Resolve(project, path)
		}
		if !ok || !filepath.IsAbs(abs) {
			return
		}
		for _, l := range out {
			if l.Path == abs {
				return
			}
		}
		out = append(out, Location{Path: abs, Line: line})
	}
	switch name {
	case "read_file":
		line := 0
		if off, ok := a.Int("offset"); ok && off > 0 {
			line = off
		}
		add(p, line)
	case "list_dir":
		if p == "" && listsRoot(a) {
			p = "."
		}
		add(p, 0)
	case "write_file", "edit_file":
		creates = true
		add(p, 0)
	case "delete_file":
		add(p, 0)
	case "move_file":
		add(p, 0)
		creates = true
		add(destPath(a), 0)
	case "search_files", "find_files", "grep":
		if p != "." {
			add(p, 0)
		}
	}
	return out
}

// Most locations taken from a search result.
const maxSearchLocations = 20

// SearchLocations returns the hits of a search result, lines of the form
// "rel/path:42: text" or "rel/path:42:7: text" whose path is relative to
// the root of project, as locations on line 42: at most 20, each path and
// line once, in the result's order. Other lines (grep's "path-41- context"
// lines, "--" separators, notes) and paths r refuses are skipped.
func SearchLocations(result, project string, r Resolver) []Location {
	if r == nil {
		return nil
	}
	var out []Location
	seen := make(map[Location]bool)
	for line := range strings.Lines(result) {
		p, n, ok := searchHit(line)
		if !ok {
			continue
		}
		abs, ok := r.Resolve(project, p)
		if !ok || !filepath.IsAbs(abs) {
			continue
		}
		l := Location{Path: abs, Line: n}
		if seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
		if len(out) == maxSearchLocations {
			break
		}
	}
	return out
}

// searchHit parses a "path:line:" prefix: a path that does not start with
// a space or a colon and has no colon in it, then a line number of 1 or
// more, then a colon.
func searchHit(line string) (path string, n int, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 || line[0] == ' ' || line[0] == '\t' {
		return "", 0, false
	}
	rest := line[i+1:]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 || j == len(rest) || rest[j] != ':' {
		return "", 0, false
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil || n < 1 {
		return "", 0, false
	}
	return line[:i], n, true
}

// Diff returns the diff a completed write_file or edit_file shows, only
// when its args arrived whole (a cut write's content is not the file's).
// write_file: NewText is "content", OldText nil. edit_file: OldText and
// NewText are "old_string"/"new_string", else "old_text"/"new_text", else
// protoAgent's own "old"/"new"; both of a pair must be strings. The path
// is resolved through r; ok is false when it is refused, and for any other
// tool or shape.
func Diff(name string, a Args, r Resolver) (d FileDiff, ok bool) {
	if !a.Complete || r == nil {
		return FileDiff{}, false
	}
	p := a.String("path")
	if p == "" {
		return FileDiff{}, false
	}
	switch name {
	case "write_file":
		content, isStr := a.Fields["content"].(string)
		if !isStr {
			return FileDiff{}, false
		}
		d.NewText = content
	case "edit_file":
		found := false
		for _, pair := range [][2]string{{"old_string", "new_string"}, {"old_text", "new_text"}, {"old", "new"}} {
			o, ok1 := a.Fields[pair[0]].(string)
			n, ok2 := a.Fields[pair[1]].(string)
			if ok1 && ok2 {
				d.OldText, d.NewText, found = &o, n, true
				break
			}
		}
		if !found {
			return FileDiff{}, false
		}
	default:
		return FileDiff{}, false
	}
	abs, ok := resolveNew(r, a.String("project"), p)
	if !ok || !filepath.IsAbs(abs) {
		return FileDiff{}, false
	}
	d.Path = abs
	return d, true
}
