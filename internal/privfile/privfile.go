// Package privfile writes small private files the way shim's state must be
// written: 0600 in a 0700 directory (modes put back on every write), under
// an advisory lock shared by every process, replaced atomically through a
// synced temporary file, and moved aside, never overwritten, when it cannot
// be read. The thread index and the credentials file both use it.
package privfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// The modes of the files and of their directory.
const (
	FileMode = 0o600
	DirMode  = 0o700
)

var windows = runtime.GOOS == "windows"

// EnsureDir creates dir and puts its mode back to 0700.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	if windows {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() != DirMode {
		return os.Chmod(dir, DirMode)
	}
	return nil
}

// Lock takes the exclusive advisory lock of path (on path + ".lock"),
// which excludes other processes and other callers in this one.
func Lock(path string) (unlock func(), err error) {
	lk := flock.New(path + ".lock")
	if err := lk.Lock(); err != nil {
		return nil, err
	}
	return func() { _ = lk.Unlock() }, nil
}

// RLock takes the shared lock of path, for readers.
func RLock(path string) (unlock func(), err error) {
	lk := flock.New(path + ".lock")
	if err := lk.RLock(); err != nil {
		return nil, err
	}
	return func() { _ = lk.Unlock() }, nil
}

// TempPrefix is the name prefix of path's temporary files.
func TempPrefix(path string) string { return filepath.Base(path) + ".tmp-" }

// Replace writes data to a 0600 temporary file beside path, syncs it and
// renames it over path. beforeRename, when set, runs between the two (a
// test's stand-in for a crash).
func Replace(path string, data []byte, beforeRename func(tmp string)) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix(path)+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if !windows {
		if err = f.Chmod(FileMode); err != nil {
			return err
		}
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(tmp)
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if !windows {
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return nil
}

// RemoveStaleTemps deletes the temporary files of writers of path that
// died before their rename, when older than minAge (0: all; call it under
// the lock). It returns what it removed and what it could not.
func RemoveStaleTemps(path string, minAge time.Duration, now time.Time) (removed []string, errs []error) {
	dir := filepath.Dir(path)
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	prefix := TempPrefix(path)
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), prefix) {
			continue
		}
		if minAge > 0 {
			if fi, err := de.Info(); err != nil || now.Sub(fi.ModTime()) < minAge {
				continue
			}
		}
		p := filepath.Join(dir, de.Name())
		if err := os.Remove(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errs
}

// MoveAside renames path to <path>.corrupt-<unix time> (with a numeric
// suffix when that name is taken), keeps it 0600 and returns its path.
func MoveAside(path string, now time.Time) (string, error) {
	base := path + ".corrupt-" + strconv.FormatInt(now.Unix(), 10)
	aside := base
	for n := 1; ; n++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		} else if err != nil {
			return "", err
		}
		aside = base + "-" + strconv.Itoa(n)
	}
	if err := os.Rename(path, aside); err != nil {
		return "", err
	}
	if !windows {
		_ = os.Chmod(aside, FileMode)
	}
	return aside, nil
}

// Encode finishes a JSON object whose known members are already in head
// (an object's opening brace and members, without the closing one): it
// appends the unknown top-level members a reader kept, in name order, and
// indents the whole, one newline at the end.
func Encode(head []byte, extra map[string]json.RawMessage) ([]byte, error) {
	b := bytes.NewBuffer(head)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name, _ := json.Marshal(k)
		b.WriteByte(',')
		b.Write(name)
		b.WriteByte(':')
		b.Write(extra[k])
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
