package roots

import (
	"strings"
)

// Learn adds the roots named in a list_projects tool result, one project a
// line as "- name [mode] /abs/path". The parse is lenient: extra spaces,
// a missing mode, "*" bullets, a trailing ":" after the name, backticks or
// ** around name or path, blank and other lines are all tolerated; lines
// that are not bullets, lack a path, or whose path is not absolute after ~
// expansion are dropped. A learned root never replaces an override, a
// loaded root, or an earlier learned root of the same name; it is kept
// below them, so it shows once the server stops reporting that name.
func (m *Map) Learn(listProjectsResult string) {
	var found []Root
	for line := range strings.Lines(listProjectsResult) {
		r, ok := parseProjectLine(line)
		if !ok {
			continue
		}
		r, ok = m.normalizeOne(r, "list_projects")
		if !ok {
			continue
		}
		found = append(found, r)
	}
	if len(found) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	have := make(map[string]bool, len(m.learned))
	for _, r := range m.learned {
		have[r.Name] = true
	}
	added := 0
	for _, r := range found {
		if have[r.Name] {
			continue
		}
		have[r.Name] = true
		m.learned = append(m.learned, r)
		added++
	}
	if added > 0 {
		m.rebuildLocked()
		m.log.Debug("roots: learned project roots from list_projects", "count", added)
	}
}

// parseProjectLine parses one "- name [mode] path" line. The path is
// returned as written (not yet expanded or checked).
func parseProjectLine(line string) (Root, bool) {
	s := strings.TrimSpace(line)
	bullet := false
	for _, b := range []string{"-", "*", "•"} {
		if rest, ok := strings.CutPrefix(s, b); ok {
			s, bullet = strings.TrimSpace(rest), true
			break
		}
	}
	if !bullet {
		return Root{}, false
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '[' })
	if i < 0 {
		return Root{}, false
	}
	name := strings.TrimSuffix(unquote(s[:i]), ":")
	name = unquote(name)
	s = strings.TrimSpace(s[i:])
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return Root{}, false
		}
		s = strings.TrimSpace(s[end+1:])
	}
	path := unquote(s)
	if name == "" || path == "" {
		return Root{}, false
	}
	return Root{Name: name, Path: path}, true
}

// unquote strips the markdown emphasis and code marks around s.
func unquote(s string) string {
	return strings.TrimSpace(strings.Trim(s, "`*"))
}
