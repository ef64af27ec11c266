// Package privfile writes small private files the way shim's state must be
// written: 0600 in a 0700 directory (modes put back on every write), under
// an advisory lock shared by every process, replaced atomically through a
// synced temporary file, and moved aside, never overwritten, when it cannot
// be read (or, with Versioned.KeepUnreadable, refused and left in place).
// The thread index, the credentials file and the pinned card keys use it.
//
// No file is followed through a symbolic link: files are opened with
// O_NOFOLLOW, modes are set on the opened descriptor (never by path), and
// a file or lock that is a link or another non-regular file is an error
// wrapping [ErrNotRegular] (the writers move it aside: the link itself is
// renamed, its target never touched).
//
// The package starts no goroutine. Its one lock is the advisory lock of a
// file (path + ".lock"): Lock for writers, RLock for readers, across
// processes; Versioned.Update takes Lock, and its callers exclude their
// own goroutines before it (threads' procMu, the credentials store's
// mutex).
package privfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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

// ErrNotRegular is wrapped by the errors for a path that is a symbolic link
// or another file that is not a regular one.
var ErrNotRegular = errors.New("not a regular file (a symbolic link?)")

// notRegular is the error for path.
func notRegular(op, path string) error {
	return &fs.PathError{Op: op, Path: path, Err: ErrNotRegular}
}

// OpenNoFollow opens path with flag (and perm when it creates the file),
// never through a symbolic link: a link, or a file that is not regular,
// is an error wrapping ErrNotRegular, and nothing is opened or created.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if windows {
		if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
			return nil, notRegular("open", path)
		}
	}
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		// ELOOP on Linux and macOS, EMLINK on FreeBSD, ENXIO for a FIFO
		// without a reader: whatever the errno, the path says why.
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, notRegular("open", path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, notRegular("open", path)
	}
	return f, nil
}

// ReadFile reads path (see OpenNoFollow) and returns its content and what
// the opened file's fstat says (its mode, never a link target's).
func ReadFile(path string) ([]byte, fs.FileInfo, error) {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// OpenAppend opens path for appending, creating it 0600, and puts the
// mode of an existing file back to 0600 through the opened descriptor. A
// path that is a link or not a regular file is an error wrapping
// ErrNotRegular, and the link and its target are left as they are.
func OpenAppend(path string) (*os.File, error) {
	f, err := OpenNoFollow(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, FileMode)
	if err != nil {
		return nil, err
	}
	if !windows {
		if fi, err := f.Stat(); err == nil && fi.Mode().Perm() != FileMode {
			if err := f.Chmod(FileMode); err != nil {
				_ = f.Close()
				return nil, err
			}
		}
	}
	return f, nil
}

// lockFlag opens a lock file without following a link at its name.
const lockFlag = os.O_CREATE | os.O_RDONLY | noFollow

// newLock returns the lock of path, on path + ".lock".
func newLock(path string) *flock.Flock {
	return flock.New(path+".lock", flock.SetFlag(lockFlag), flock.SetPermissions(FileMode))
}

// checkLock fails when the lock file just opened (and locked) is not a
// regular file, or when its name is a link (Windows has no O_NOFOLLOW).
func checkLock(lk *flock.Flock, path string) error {
	if fi, err := lk.Stat(); err == nil && !fi.Mode().IsRegular() {
		return notRegular("lock", path+".lock")
	}
	if fi, err := os.Lstat(path + ".lock"); err == nil && !fi.Mode().IsRegular() {
		return notRegular("lock", path+".lock")
	}
	return nil
}

// lockErr is the error of a lock that could not be taken: ErrNotRegular
// when the lock file is a link or not a regular file.
func lockErr(err error, path string) error {
	if fi, lerr := os.Lstat(path + ".lock"); lerr == nil && !fi.Mode().IsRegular() {
		return notRegular("lock", path+".lock")
	}
	return err
}

// Lock takes the exclusive advisory lock of path (on path + ".lock"),
// which excludes other processes and other callers in this one. A lock
// file that is a symbolic link or not a regular file is moved aside like
// a corrupt file (the link itself renamed, at now(); its target untouched)
// and a new one made; aside is where it went ("" when nothing was moved).
func Lock(path string, now func() time.Time) (unlock func(), aside string, err error) {
	return LockNotify(path, now, nil)
}

// LockNotify is Lock that first tries without waiting: when another holder
// has the lock, it calls busy (once, when not nil) before waiting for it.
func LockNotify(path string, now func() time.Time, busy func()) (unlock func(), aside string, err error) {
	for try := 0; ; try++ {
		lk := newLock(path)
		var err error
		if busy != nil {
			var ok bool
			if ok, err = lk.TryLock(); err == nil && !ok {
				busy()
				busy = nil
				err = lk.Lock()
			}
		} else {
			err = lk.Lock()
		}
		if err == nil {
			err = checkLock(lk, path)
			if err != nil {
				_ = lk.Unlock()
			}
		} else {
			err = lockErr(err, path)
		}
		if err == nil {
			return func() { _ = lk.Unlock() }, aside, nil
		}
		if !errors.Is(err, ErrNotRegular) || try > 0 {
			return nil, aside, err
		}
		if aside, err = MoveAside(path+".lock", now()); err != nil {
			return nil, "", err
		}
	}
}

// RLock takes the shared lock of path, for readers. A lock file that is a
// link or not a regular file is an error wrapping ErrNotRegular; readers
// leave it in place (the next Lock moves it aside).
func RLock(path string) (unlock func(), err error) {
	lk := newLock(path)
	if err := lk.RLock(); err != nil {
		return nil, lockErr(err, path)
	}
	if err := checkLock(lk, path); err != nil {
		_ = lk.Unlock()
		return nil, err
	}
	return func() { _ = lk.Unlock() }, nil
}

// TempPrefix is the name prefix of path's temporary files.
func TempPrefix(path string) string { return filepath.Base(path) + ".tmp-" }

// Replace writes data to a 0600 temporary file beside path, syncs it and
// renames it over path: readers see the old content or the new, whole. A
// write that fails (a full disk, a file too large, a read-only directory)
// leaves path as it was and no temporary file.
func Replace(path string, data []byte) error {
	tmp, err := WriteTemp(path, data)
	if err != nil {
		return err
	}
	return commit(tmp, path)
}

// commit renames tmp (WriteTemp's) over path and syncs the directory; a
// rename that fails removes tmp.
func commit(tmp, path string) error {
	err := fault("rename")
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return removeTemp(tmp, err)
	}
	if !windows {
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return nil
}

// WriteTemp writes data to a new 0600 temporary file beside path (named
// TempPrefix(path) and a random tail) and syncs it; Replace then renames
// it over path. A write that fails removes it. A writer that dies in
// between leaves it to RemoveStaleTemps; readers never read it.
func WriteTemp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix(path)+"*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	if err := fill(f, data); err != nil {
		_ = f.Close()
		return "", removeTemp(tmp, err)
	}
	if err := f.Close(); err != nil {
		return "", removeTemp(tmp, err)
	}
	return tmp, nil
}

// fill makes f 0600 and writes data to it, synced.
func fill(f *os.File, data []byte) error {
	if !windows {
		if err := f.Chmod(FileMode); err != nil {
			return err
		}
	}
	if err := fault("write"); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := fault("sync"); err != nil {
		return err
	}
	return f.Sync()
}

// removeTemp removes the temporary file of a write that failed with err,
// and returns err (with why the file stays, when it does).
func removeTemp(tmp string, err error) error {
	if rmErr := os.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return fmt.Errorf("%w (and its temporary file %s stays: %v)", err, tmp, rmErr)
	}
	return err
}

// testFault, set by tests only, fails the step of a write it names
// ("write", "sync", "rename") with the error it returns; nil in shim.
var testFault func(step string) error

// fault is the error testFault gives step (nil without it).
func fault(step string) error {
	if testFault == nil {
		return nil
	}
	return testFault(step)
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
// suffix when that name is taken), keeps it 0600 and returns its path. A
// symbolic link is renamed itself; no mode change reaches its target.
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
		if f, err := OpenNoFollow(aside, os.O_RDONLY, 0); err == nil {
			_ = f.Chmod(FileMode)
			_ = f.Close()
		}
	}
	return aside, nil
}
