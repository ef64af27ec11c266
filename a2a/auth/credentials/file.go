package credentials

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"time"

	"github.com/shimdev/shim/internal/privfile"
)

const (
	// FileName is the name of the credentials file in the config dir.
	FileName    = "credentials.json"
	fileVersion = 1
	tempPrefix  = FileName + ".tmp-"
	// staleTemp is the age after which a temporary file is taken for one
	// left by a writer that died before its rename.
	staleTemp = time.Minute
)

// ErrCorrupt is wrapped by the errors of reads that find a credentials file
// that is not JSON of the expected shape or not version 1. The next write
// moves such a file aside.
var ErrCorrupt = errors.New("credentials: unreadable credentials file")

// Path returns the credentials file path.
func (s *Store) Path() string { return s.path() }

func (s *Store) path() string { return filepath.Join(s.Dir, FileName) }

// document is the parsed file. extra keeps unknown top-level fields.
type document struct {
	lastURL string
	tokens  map[string]string
	extra   map[string]json.RawMessage
}

func newDocument() *document { return &document{tokens: make(map[string]string)} }

// read returns the stored document; a missing file is an empty one. The
// caller holds s.mu.
func (s *Store) read() (*document, error) {
	p := s.path()
	data, fi, err := privfile.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return newDocument(), nil
	}
	if errors.Is(err, privfile.ErrNotRegular) {
		// Moved aside like a corrupt file: a link is never followed.
		return nil, fmt.Errorf("%w %s: not a regular file (a symbolic link?); `shim login` moves it aside and starts a new one", ErrCorrupt, p)
	}
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	if runtime.GOOS != "windows" {
		if fi.Mode().Perm()&0o077 != 0 {
			s.log().Warn("the credentials file is readable by others; its mode goes back to 0600 on the next write",
				"path", p, "mode", fmt.Sprintf("%#o", fi.Mode().Perm()))
		}
	}
	d, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v; `shim login` moves it aside and starts a new one", ErrCorrupt, p, err)
	}
	return d, nil
}

// parse decodes the file. Its errors say what is wrong without quoting the
// content, which may hold tokens.
func parse(data []byte) (*document, error) {
	top, err := privfile.DecodeVersioned(data, fileVersion)
	if err != nil {
		return nil, err
	}
	d := newDocument()
	if raw, ok := top["lastUrl"]; ok {
		if err := json.Unmarshal(raw, &d.lastURL); err != nil {
			return nil, errors.New("lastUrl is not a string")
		}
	}
	if raw, ok := top["tokens"]; ok {
		if err := json.Unmarshal(raw, &d.tokens); err != nil {
			return nil, errors.New("tokens is not an object of strings")
		}
		if d.tokens == nil {
			d.tokens = make(map[string]string)
		}
	}
	delete(top, "lastUrl")
	delete(top, "tokens")
	if len(top) > 0 {
		d.extra = top
	}
	return d, nil
}

// encode renders the document: version, lastUrl, tokens, then unknown
// fields, indented.
func (d *document) encode() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":%d`, fileVersion)
	if d.lastURL != "" {
		u, _ := json.Marshal(d.lastURL)
		b.WriteString(`,"lastUrl":`)
		b.Write(u)
	}
	tokens, err := json.Marshal(d.tokens)
	if err != nil {
		return nil, errors.New("credentials: cannot encode the tokens")
	}
	b.WriteString(`,"tokens":`)
	b.Write(tokens)
	out, err := privfile.Encode(b.Bytes(), d.extra)
	if err != nil {
		return nil, errors.New("credentials: cannot encode the file")
	}
	return out, nil
}

// write runs the read-modify-write cycle with apply as the change: it makes
// the directory 0700, takes the file lock, moves a corrupt file aside, and
// replaces the file with a new 0600 one. The caller holds s.mu.
func (s *Store) write(apply func(*document)) error {
	if s.Dir == "" {
		return errors.New("credentials: no config dir")
	}
	if err := privfile.EnsureDir(s.Dir); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	unlock, lockAside, err := privfile.Lock(s.path(), s.clock)
	if err != nil {
		return fmt.Errorf("credentials: lock: %w", err)
	}
	defer unlock()
	if lockAside != "" {
		s.log().Warn("credentials: the lock file was not a regular file; moved aside and made a new one",
			"path", s.path()+".lock", "movedTo", lockAside)
	}

	// Young temporary files are left alone: they may be a live writer's.
	_, errs := privfile.RemoveStaleTemps(s.path(), staleTemp, s.clock())
	for _, err := range errs {
		s.log().Warn("credentials: cannot remove a stale temporary file", "err", err)
	}
	d, err := s.read()
	if errors.Is(err, ErrCorrupt) {
		aside, mvErr := privfile.MoveAside(s.path(), s.clock())
		if mvErr != nil {
			return fmt.Errorf("credentials: moving the unreadable credentials file aside: %w", mvErr)
		}
		s.log().Warn("credentials file unreadable; moved aside and started a new one",
			"path", s.path(), "movedTo", aside, "err", err)
		d = newDocument()
	} else if err != nil {
		return err
	}
	apply(d)
	data, err := d.encode()
	if err != nil {
		return err
	}
	if err := privfile.Replace(s.path(), data); err != nil {
		return fmt.Errorf("credentials: writing %s: %w", s.path(), err)
	}
	return nil
}

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}
