package privfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Versioned is one of shim's private versioned files: a JSON object
// {"version": N, …} that only shim reads and writes (the thread index, the
// credentials file). Every write is one cycle (Update): the directory
// made 0700, the exclusive lock taken, the temporary files of writers that
// died removed, the file read (one that cannot be read moved aside, never
// overwritten), and the new content put in its place atomically, 0600.
type Versioned struct {
	// Path is the file; its lock is Path + ".lock", its temporary files
	// are beside it.
	Path string
	// Version is the one version read.
	Version int
	// Name is what the log calls the file ("thread index").
	Name string
	// Log gets what a write did besides writing (a file or a lock moved
	// aside, stale temporary files removed); nil discards.
	Log *slog.Logger
	// Now is the clock of the moved-aside names; nil is time.Now.
	Now func() time.Time
	// TempAge: a write leaves temporary files younger than this alone (0:
	// it removes every one, as no live writer owns one under the lock).
	TempAge time.Duration
	// KeepUnreadable makes Update fail with the *CorruptError of a file
	// that cannot be read as one, leaving it in place, instead of moving it
	// aside and starting a new one: for a file whose loss would weaken a
	// check (the pinned keys of known agents), which the person repairs.
	KeepUnreadable bool
}

// CorruptError is the error for a versioned file that cannot be read as
// one: a link or not a regular file, not a JSON object, another version,
// or members its owner cannot take. Err says why without quoting the
// content, which may hold secrets. A write moves such a file aside.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *CorruptError) Unwrap() error { return e.Err }

// Read reads the file without a lock: its members but "version" (nil when
// there is no file) and what the opened file's fstat says of it (nil with
// no file; given with a *CorruptError when the file was opened).
func (v *Versioned) Read() (map[string]json.RawMessage, fs.FileInfo, error) {
	data, fi, err := ReadFile(v.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case errors.Is(err, ErrNotRegular):
		// Moved aside like a corrupt file: a link is never followed.
		return nil, nil, &CorruptError{Path: v.Path, Err: ErrNotRegular}
	case err != nil:
		return nil, nil, err
	}
	members, err := DecodeVersioned(data, v.Version)
	if err != nil {
		return nil, fi, &CorruptError{Path: v.Path, Err: err}
	}
	return members, fi, nil
}

// Update writes the file: change gets its members as they are now (nil
// when there is none) and returns the whole new content. When the file
// cannot be read as one (Read's *CorruptError, or one change returns for
// members it cannot take), it is moved aside, logged, and change is
// called again with none; with KeepUnreadable, Update returns that error
// and writes nothing. Update excludes other processes; a caller
// excludes its own goroutines.
func (v *Versioned) Update(change func(members map[string]json.RawMessage) ([]byte, error)) error {
	if err := EnsureDir(filepath.Dir(v.Path)); err != nil {
		return err
	}
	unlock, lockAside, err := Lock(v.Path, v.now)
	if err != nil {
		return fmt.Errorf("lock %s.lock: %w", v.Path, err)
	}
	defer unlock()
	if lockAside != "" {
		v.log().Warn(v.Name+": the lock file was not a regular file; moved aside and made a new one",
			"path", v.Path+".lock", "movedTo", lockAside)
	}
	var at time.Time // what "young" is measured from; no clock read when no age is kept
	if v.TempAge > 0 {
		at = v.now()
	}
	removed, errs := RemoveStaleTemps(v.Path, v.TempAge, at)
	for _, p := range removed {
		v.log().Info(v.Name+": removed stale temp file", "path", p)
	}
	for _, err := range errs {
		v.log().Warn(v.Name+": cannot remove stale temp file", "err", err)
	}
	data, corrupt, err := v.rewrite(change)
	if err != nil {
		return err
	}
	if corrupt != nil {
		err = v.replaceUnreadable(data, corrupt)
	} else {
		err = Replace(v.Path, data)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", v.Path, err)
	}
	v.log().Debug(v.Name+" written", "path", v.Path)
	return nil
}

// replaceUnreadable puts data in the place of the file that cannot be
// read, which is moved aside once data is written (a write that fails
// leaves it where it was) and put back if the rename fails.
func (v *Versioned) replaceUnreadable(data []byte, corrupt *unreadable) error {
	tmp, err := WriteTemp(v.Path, data)
	if err != nil {
		return err
	}
	aside, err := MoveAside(v.Path, corrupt.at)
	if err != nil {
		return removeTemp(tmp, fmt.Errorf("move aside the unreadable %s: %w", v.Name, err))
	}
	if err := commit(tmp, v.Path); err != nil {
		_ = os.Rename(aside, v.Path)
		return err
	}
	v.log().Warn(v.Name+" unreadable; moved aside and started a new one",
		"path", v.Path, "movedTo", aside, "err", corrupt.err)
	return nil
}

// unreadable is a file to move aside: why it cannot be read as one, and
// the time its moved-aside name takes (read before change runs again).
type unreadable struct {
	err error
	at  time.Time
}

// rewrite is what change makes of the file; corrupt is set when the file
// cannot be read as one, the content then change's of none: the file is
// to be moved aside.
func (v *Versioned) rewrite(change func(map[string]json.RawMessage) ([]byte, error)) (data []byte, corrupt *unreadable, err error) {
	members, _, err := v.Read()
	if err == nil {
		data, err = change(members)
	}
	var c *CorruptError
	if !errors.As(err, &c) || v.KeepUnreadable {
		return data, nil, err
	}
	corrupt = &unreadable{err: err, at: v.now()}
	data, err = change(nil)
	return data, corrupt, err
}

func (v *Versioned) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

func (v *Versioned) log() *slog.Logger {
	if v.Log != nil {
		return v.Log
	}
	return slog.New(slog.DiscardHandler)
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

// DecodeVersioned is the one reader of shim's versioned files
// ({"version": N, …}: the thread index, the credentials file). It parses
// data as a JSON object whose "version" is version and returns its other
// top-level members, for the caller to take its own and keep the rest.
// Its errors say what is wrong without quoting the content, which may
// hold tokens.
func DecodeVersioned(data []byte, version int) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not JSON (error at byte %d)", se.Offset)
		}
		return nil, errors.New("not a JSON object")
	}
	if top == nil {
		return nil, errors.New("not a JSON object")
	}
	raw, ok := top["version"]
	if !ok {
		return nil, errors.New("no version")
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errors.New("version is not an integer")
	}
	if v != version {
		return nil, fmt.Errorf("version %d, want %d", v, version)
	}
	delete(top, "version")
	return top, nil
}
