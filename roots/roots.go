package roots

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ReloadInterval is the least time between two reloads triggered for the
// same unknown project name, and between two retries of a failed Load.
const ReloadInterval = 30 * time.Second

// Root is one project: a name and an absolute local directory.
type Root struct {
	Name string
	Path string
}

// Loader fetches the server's roots in priority order (first wins for a
// duplicated name). Paths may start with ~; relative paths are dropped.
type Loader func(ctx context.Context) ([]Root, error)

// Map is the project name to root map. It is safe for concurrent use.
// The zero value is not usable; call New.
type Map struct {
	load Loader
	home string
	log  *slog.Logger
	now  func() time.Time // the clock behind the reload limits

	overrides []Root // normalized, first wins

	// loadMu serializes calls to load, so an older answer never replaces
	// a newer one, and guards the Load bookkeeping below.
	loadMu      sync.Mutex
	loadDone    bool      // a load succeeded
	loadTried   bool      // Load has called load at least once
	loadErr     error     // the last failed Load's error
	loadTriedAt time.Time // when Load last called load

	mu         sync.RWMutex
	loaded     []Root               // from the last successful load, normalized
	learned    []Root               // from Learn, normalized
	merged     []Root               // overrides, loaded, learned; one entry per name
	byName     map[string]string    // name to path, from merged
	lastReload map[string]time.Time // name to the time ReloadFor last loaded for it
}

// New makes a map whose overrides (from repeated --root NAME=PATH flags)
// always win; the first override wins for a repeated name. home is this
// machine's home directory, used to expand a leading ~ in every root path
// (overrides, loaded and learned). load may be nil when the server has no
// roots to offer, and log may be nil to discard logs.
func New(overrides []Root, load Loader, home string, log *slog.Logger) *Map {
	return newMap(overrides, load, home, log, time.Now)
}

// newMap is New with now as the clock of the reload limits.
func newMap(overrides []Root, load Loader, home string, log *slog.Logger, now func() time.Time) *Map {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Map{
		load:       load,
		home:       home,
		log:        log,
		now:        now,
		byName:     map[string]string{},
		lastReload: map[string]time.Time{},
	}
	m.overrides = m.normalize(overrides, "override")
	m.rebuildLocked()
	return m
}

// ParseOverride parses a --root flag value "NAME=PATH". The path must be
// absolute, or start with ~ (as "~" or "~/…"), which New expands against
// the home directory; the path is returned cleaned, ~ left as written.
func ParseOverride(s string) (Root, error) {
	name, path, ok := strings.Cut(s, "=")
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	if !ok || name == "" || path == "" {
		return Root{}, fmt.Errorf("root %q: want NAME=PATH", s)
	}
	if hasTilde(path) {
		return Root{Name: name, Path: path}, nil
	}
	if !filepath.IsAbs(path) {
		return Root{}, fmt.Errorf("root %q: path %q is not absolute", s, path)
	}
	return Root{Name: name, Path: filepath.Clean(path)}, nil
}

// Load fetches the server's roots through the loader and merges them below
// the overrides and above the learned roots. Only the first successful call
// loads: later calls return nil at once, so Load may be called lazily from
// any number of places. After a failure, a later call retries once
// ReloadInterval has passed, and returns the failure until then. A failure
// is logged; the map keeps working with the roots it has.
func (m *Map) Load(ctx context.Context) error {
	if m.load == nil {
		return nil
	}
	m.loadMu.Lock()
	defer m.loadMu.Unlock()
	if m.loadDone {
		return nil
	}
	t := m.now()
	if m.loadTried && !elapsed(m.loadTriedAt, t) {
		return m.loadErr
	}
	m.loadTried, m.loadTriedAt = true, t
	m.loadErr = m.reloadLocked(ctx)
	m.loadDone = m.loadErr == nil
	return m.loadErr
}

// ReloadFor makes sure name is known, reloading the server's roots when it
// is not. For one name the loader is called at most once per
// ReloadInterval; a failing loader is logged and not fatal. It reports
// whether name is known afterwards.
func (m *Map) ReloadFor(ctx context.Context, name string) bool {
	if _, ok := m.Lookup(name); ok {
		return true
	}
	if name == "" || m.load == nil {
		return false
	}
	t := m.now()
	m.mu.Lock()
	last, seen := m.lastReload[name]
	throttled := seen && !elapsed(last, t)
	if !throttled {
		m.pruneReloadsLocked(t)
		m.lastReload[name] = t
	}
	m.mu.Unlock()

	// Under loadMu either way: a throttled caller waits for a reload in
	// flight (maybe for the same name) before it answers.
	m.loadMu.Lock()
	if !throttled {
		if err := m.reloadLocked(ctx); err == nil {
			m.loadDone = true
		}
	}
	m.loadMu.Unlock()
	_, ok := m.Lookup(name)
	return ok
}

// reloadLocked calls the loader and, on success, replaces the loaded roots.
// m.loadMu must be held.
func (m *Map) reloadLocked(ctx context.Context) error {
	roots, err := m.load(ctx)
	if err != nil {
		m.log.Warn("roots: loading the server's project roots failed", "err", err)
		return fmt.Errorf("roots: load: %w", err)
	}
	loaded := m.normalize(roots, "server")
	m.mu.Lock()
	m.loaded = loaded
	m.rebuildLocked()
	m.mu.Unlock()
	m.log.Debug("roots: loaded the server's project roots", "count", len(loaded))
	return nil
}

// Lookup returns the root of project name.
func (m *Map) Lookup(name string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.byName[name]
	return p, ok
}

// Known reports whether the map holds any root at all.
func (m *Map) Known() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.merged) > 0
}

// Roots returns every root in priority order (overrides, loaded, learned),
// one per name.
func (m *Map) Roots() []Root {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]Root(nil), m.merged...)
}

// Containing returns the root that the absolute directory dir lies in (dir
// is the root or below it). When roots nest, the deepest one wins; for two
// names with the same path, the one of higher priority. Containment is by
// path component: /rootX is not inside /root. When no root contains dir as
// written, dir and the roots are compared with their symlinks evaluated.
func (m *Map) Containing(dir string) (Root, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return Root{}, false
	}
	dir = filepath.Clean(dir)
	all := m.Roots()
	best, found := -1, false
	for i, r := range all {
		if within(r.Path, dir) && (!found || len(r.Path) > len(all[best].Path)) {
			best, found = i, true
		}
	}
	if found {
		return all[best], true
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Root{}, false
	}
	bestLen := -1
	for i, r := range all {
		realRoot, err := filepath.EvalSymlinks(r.Path)
		if err != nil {
			continue
		}
		if within(realRoot, realDir) && len(realRoot) > bestLen {
			best, bestLen = i, len(realRoot)
		}
	}
	if bestLen < 0 {
		return Root{}, false
	}
	return all[best], true
}

// Resolve returns the absolute, cleaned path of p inside the root of
// project. p may be relative to the root or absolute inside it. It reports
// false when the project is unknown or the path would leave the root (see
// ResolveUnder).
func (m *Map) Resolve(project, p string) (string, bool) {
	root, ok := m.Lookup(project)
	if !ok {
		return "", false
	}
	return resolveUnder(root, p)
}

// ResolveUnder returns the absolute, cleaned path of p inside the absolute
// directory root (a session's working directory, say). p may be relative to
// root or absolute inside it. It reports false when the path would leave
// root: a .. that climbs out, an absolute path elsewhere, or a symlink (the
// path itself or a directory on the way) whose target is outside root's own
// evaluated path. The parts of p that do not exist locally are checked
// lexically only, since the agent may name files it has not created yet.
func (m *Map) ResolveUnder(root, p string) (string, bool) {
	return resolveUnder(root, p)
}

// normalize expands ~, trims names, drops entries with no name or a path
// that is not absolute, and keeps the first entry of a repeated name.
func (m *Map) normalize(in []Root, source string) []Root {
	out := make([]Root, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, r := range in {
		r, ok := m.normalizeOne(r, source)
		if !ok {
			continue
		}
		if seen[r.Name] {
			m.log.Debug("roots: repeated project name, first one kept", "source", source, "name", r.Name, "path", r.Path)
			continue
		}
		seen[r.Name] = true
		out = append(out, r)
	}
	return out
}

// normalizeOne expands ~ in r.Path and reports whether r is usable.
func (m *Map) normalizeOne(r Root, source string) (Root, bool) {
	name := strings.TrimSpace(r.Name)
	path := expandHome(strings.TrimSpace(r.Path), m.home)
	if name == "" || path == "" {
		m.log.Debug("roots: root without a name or path dropped", "source", source, "name", r.Name, "path", r.Path)
		return Root{}, false
	}
	if !filepath.IsAbs(path) {
		if source == "override" {
			m.log.Debug("roots: root with a relative path dropped", "source", source, "name", name, "path", r.Path)
		} else {
			m.log.Warn("roots: refused a root from the server: not an absolute path", "source", source, "name", name, "path", r.Path)
		}
		return Root{}, false
	}
	path = filepath.Clean(path)
	if source != "override" {
		if why := m.tooWide(path); why != "" {
			m.log.Warn("roots: refused a root from the server: "+why, "source", source, "name", name, "path", r.Path)
			return Root{}, false
		}
	}
	return Root{Name: name, Path: path}, true
}

// tooWide says why a root from the server would expose too much of this
// machine (the file system root or the home directory itself, as written
// or once links are evaluated), or "" when it does not. Only --root may
// name such a directory.
func (m *Map) tooWide(path string) string {
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		paths = append(paths, real)
	}
	homes := []string{}
	if m.home != "" {
		h := filepath.Clean(m.home)
		homes = append(homes, h)
		if real, err := filepath.EvalSymlinks(h); err == nil && real != h {
			homes = append(homes, real)
		}
	}
	for _, p := range paths {
		if filepath.Dir(p) == p {
			return "it is the file system root"
		}
		for _, h := range homes {
			if p == h {
				return "it is the home directory itself"
			}
		}
	}
	return ""
}

// rebuildLocked merges the three sources into merged and byName. m.mu must
// be held (or m not yet shared).
func (m *Map) rebuildLocked() {
	merged := make([]Root, 0, len(m.overrides)+len(m.loaded)+len(m.learned))
	byName := make(map[string]string, cap(merged))
	for _, src := range [][]Root{m.overrides, m.loaded, m.learned} {
		for _, r := range src {
			if _, dup := byName[r.Name]; dup {
				continue
			}
			byName[r.Name] = r.Path
			merged = append(merged, r)
		}
	}
	m.merged, m.byName = merged, byName
}

// pruneReloadsLocked forgets reload times that no longer throttle anything,
// so that many distinct unknown names cannot grow the table for ever.
// m.mu must be held.
func (m *Map) pruneReloadsLocked(t time.Time) {
	if len(m.lastReload) < 256 {
		return
	}
	for name, last := range m.lastReload {
		if elapsed(last, t) {
			delete(m.lastReload, name)
		}
	}
}

// elapsed reports whether ReloadInterval has passed from last to t. A clock
// that went backwards counts as elapsed, so a wall clock jump never blocks
// reloads for long.
func elapsed(last, t time.Time) bool {
	d := t.Sub(last)
	return d < 0 || d >= ReloadInterval
}

// hasTilde reports whether p starts with a ~ that expandHome expands.
func hasTilde(p string) bool {
	return p == "~" || strings.HasPrefix(p, "~/") ||
		(filepath.Separator == '\\' && strings.HasPrefix(p, `~\`))
}

// expandHome replaces a leading "~" or "~/" (also "~\" on Windows) in p by
// home. Other forms (~user) and an empty home leave p as it is.
func expandHome(p, home string) string {
	if home == "" || !hasTilde(p) {
		return p
	}
	if p == "~" {
		return home
	}
	return filepath.Join(home, p[2:])
}
