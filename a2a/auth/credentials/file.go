package credentials

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

func (s *Store) path() string { return s.file.Path }

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
	members, fi, err := s.file.Read()
	var corrupt *privfile.CorruptError
	switch {
	case errors.As(err, &corrupt):
		// Moved aside by the next write: a link is never followed.
		return nil, s.corrupt(corrupt.Err)
	case err != nil:
		return nil, fmt.Errorf("credentials: %w", err)
	}
	if fi != nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		s.log().Warn("the credentials file is readable by others; its mode goes back to 0600 on the next write",
			"path", s.path(), "mode", fmt.Sprintf("%#o", fi.Mode().Perm()))
	}
	d, err := s.document(members)
	if errors.As(err, &corrupt) {
		return nil, s.corrupt(corrupt.Err)
	}
	return d, err
}

// corrupt is the error of reading a file that is not one: it wraps
// ErrCorrupt and says why without quoting the content, which may hold
// tokens.
func (s *Store) corrupt(why error) error {
	return fmt.Errorf("%w %s: %v; `shim login` moves it aside and starts a new one", ErrCorrupt, s.path(), why)
}

// document takes the file's members but "version" (nil: no file); members
// of the wrong shape are a *privfile.CorruptError.
func (s *Store) document(top map[string]json.RawMessage) (*document, error) {
	d := newDocument()
	bad := func(why string) error { return &privfile.CorruptError{Path: s.path(), Err: errors.New(why)} }
	if raw, ok := top["lastUrl"]; ok {
		if err := json.Unmarshal(raw, &d.lastURL); err != nil {
			return nil, bad("lastUrl is not a string")
		}
	}
	if raw, ok := top["tokens"]; ok {
		if err := json.Unmarshal(raw, &d.tokens); err != nil {
			return nil, bad("tokens is not an object of strings")
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

// write is one write of the file (privfile.Versioned.Update) with apply
// as the change: the directory made 0700, the file lock taken, stale
// temporary files removed, a corrupt file moved aside, the file replaced
// with a new 0600 one. The caller holds s.mu.
func (s *Store) write(apply func(*document)) error {
	if s.Dir == "" {
		return errors.New("credentials: no config dir")
	}
	err := s.file.Update(func(members map[string]json.RawMessage) ([]byte, error) {
		d, err := s.document(members)
		if err != nil {
			return nil, err
		}
		apply(d)
		return d.encode()
	})
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	return nil
}

func (s *Store) clock() time.Time { return s.file.Now() }
