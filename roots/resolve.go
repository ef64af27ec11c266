package roots

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resolveUnder implements ResolveUnder.
func resolveUnder(root, p string) (string, bool) {
	if root == "" || !filepath.IsAbs(root) || strings.IndexByte(root, 0) >= 0 || strings.IndexByte(p, 0) >= 0 {
		return "", false
	}
	root = filepath.Clean(root)
	var cand string
	if filepath.IsAbs(p) {
		cand = filepath.Clean(p)
	} else {
		cand = filepath.Join(root, p)
	}
	if !within(root, cand) || !staysInside(root, cand) {
		return "", false
	}
	return cand, true
}

// staysInside reports whether cand, already lexically inside root, stays
// inside root's evaluated path when its symlinks are followed: each
// existing component below root that is a symlink must evaluate inside,
// so a link that leads out is refused even when the rest of the path would
// come back in. The part that does not exist is checked lexically only, and
// so is everything below a root that does not exist locally. Anything that
// exists but cannot be evaluated (a dangling symlink, a loop) is refused.
func staysInside(root, cand string) bool {
	if _, err := os.Lstat(root); err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(cand, root), string(filepath.Separator))
	cur := root
	for part := range strings.SplitSeq(rest, string(filepath.Separator)) {
		if part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			// Missing (or not reachable: a file on the way, no
			// permission): nothing further exists to follow.
			return true
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(cur)
		if err != nil || !within(realRoot, real) {
			return false
		}
	}
	return true
}

// within reports whether the cleaned absolute path p is root or lies below
// it, comparing whole path components: /rootX is not within /root.
func within(root, p string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}
