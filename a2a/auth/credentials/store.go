package credentials

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shimdev/shim/internal/privfile"
	"github.com/shimdev/shim/internal/redact"
)

// Mode says whether the OS keyring is used (--keyring, SHIM_KEYRING).
type Mode string

const (
	// ModeAuto uses the OS keyring when it answers, else the file.
	ModeAuto Mode = "auto"
	// ModeOn uses the OS keyring; failing to reach it is an error.
	ModeOn Mode = "on"
	// ModeOff never touches the OS keyring: tokens go to the file only.
	ModeOff Mode = "off"
)

// ParseMode accepts "auto", "on" and "off" in any case; "" is ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeOn, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("credentials: --keyring %q: want auto, on or off", s)
}

// Where a token came from or went to, as returned by Save, Token and Lookup.
const (
	SourceFlagToken     = "--token"
	SourceFlagTokenFile = "--token-file"
	SourceEnvToken      = "SHIM_TOKEN"
	SourceEnvTokenFile  = "SHIM_TOKEN_FILE"
	SourceKeyring       = "keyring"
	SourceFile          = "file"
)

// Store keeps tokens in the OS keyring and in Dir/credentials.json, and the
// last URL in the file. Its methods may be called from several goroutines;
// writes from several processes are serialized by an advisory lock where the
// platform has flock (not on Windows).
type Store struct {
	Dir     string       // the config dir (--config-dir)
	Keyring Keyring      // nil: no keyring (ModeAuto then uses the file)
	Mode    Mode         // "" is ModeAuto
	Log     *slog.Logger // nil discards

	mu   sync.Mutex
	file privfile.Versioned // Dir/credentials.json
}

// NewStore returns a Store. It does no I/O: the directory and the file are
// created by the first write.
func NewStore(configDir string, kr Keyring, mode Mode, log *slog.Logger) *Store {
	return newStore(configDir, kr, mode, log, time.Now)
}

// newStore is NewStore with the clock of the moved-aside names and of the
// temporary files' age.
func newStore(configDir string, kr Keyring, mode Mode, log *slog.Logger, now func() time.Time) *Store {
	if mode == "" {
		mode = ModeAuto
	}
	return &Store{Dir: configDir, Keyring: kr, Mode: mode, Log: log,
		file: privfile.Versioned{Path: filepath.Join(configDir, FileName), Version: fileVersion, Name: "credentials file",
			Log: log, Now: now, TempAge: staleTemp}}
}

func (s *Store) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

func (s *Store) mode() (Mode, error) {
	if s.Mode == "" {
		return ModeAuto, nil
	}
	return ParseMode(string(s.Mode))
}

// keyring returns the keyring to use, or nil when the mode or its absence
// says not to.
func (s *Store) keyring() (Keyring, Mode, error) {
	m, err := s.mode()
	if err != nil {
		return nil, "", err
	}
	switch {
	case m == ModeOff:
		return nil, m, nil
	case s.Keyring == nil && m == ModeOn:
		return nil, m, keyringOnError{errors.New("credentials: --keyring on, but no OS keyring is available")}
	}
	return s.Keyring, m, nil
}

// Save stores token for url, which must be normalized (see Normalize), and
// records url as the last URL. In ModeAuto the token goes to the keyring when
// it answers, else to the file; in ModeOn to the keyring or nowhere (error);
// in ModeOff to the file. When the keyring took the token, any copy for url
// in the file is removed. where is SourceKeyring or SourceFile.
func (s *Store) Save(url, token string) (where string, err error) {
	if err := checkNormalized(url); err != nil {
		return "", err
	}
	if err := CheckToken(token); err != nil {
		return "", err
	}
	redact.Add(token)
	kr, mode, err := s.keyring()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	if kr != nil {
		kerr := kr.Set(Service, url, token)
		if kerr == nil {
			err := s.write(func(d *document) {
				delete(d.tokens, url)
				d.lastURL = url
			})
			if err != nil {
				return "", scrub(err, token)
			}
			s.log().Info("token stored in the OS keyring", "url", url)
			return SourceKeyring, nil
		}
		kerr = scrub(kerr, token)
		if mode == ModeOn {
			return "", keyringOnError{fmt.Errorf("credentials: the OS keyring did not take the token (--keyring on): %w", kerr)}
		}
		s.log().Warn("OS keyring unavailable; storing the token in the credentials file",
			"url", url, "path", s.path(), "err", kerr)
		// An older token for url left in the keyring would win over the new
		// one in the file; try to remove it, though the keyring just failed.
		if derr := kr.Delete(Service, url); derr != nil && !errors.Is(derr, ErrNotFound) {
			s.log().Warn("could not clear the OS keyring entry for this URL; if it holds an older token, it takes precedence until `shim logout`",
				"url", url, "err", scrub(derr, token))
		}
	}
	err = s.write(func(d *document) {
		d.tokens[url] = token
		d.lastURL = url
	})
	if err != nil {
		return "", scrub(err, token)
	}
	s.log().Info("token stored in the credentials file", "url", url, "path", s.path())
	return SourceFile, nil
}

// Token returns the token stored for url (which must be normalized): the
// keyring's (unless ModeOff), else the file's, else "" with source "". It
// never returns a token stored under another URL. In ModeAuto a keyring that
// fails or hangs counts as holding nothing; in ModeOn it is an error.
func (s *Store) Token(url string) (token, source string, err error) {
	if err := checkNormalized(url); err != nil {
		return "", "", err
	}
	kr, mode, err := s.keyring()
	if err != nil {
		return "", "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	if kr != nil {
		t, kerr := kr.Get(Service, url)
		switch {
		case kerr == nil && t != "":
			redact.Add(t)
			return t, SourceKeyring, nil
		case kerr == nil, errors.Is(kerr, ErrNotFound):
		case mode == ModeOn:
			return "", "", keyringOnError{fmt.Errorf("credentials: reading the OS keyring (--keyring on): %w", scrub(kerr, t))}
		default:
			s.log().Debug("OS keyring unavailable; looking in the credentials file", "url", url, "err", scrub(kerr, t))
		}
	}
	d, err := s.read()
	if err != nil {
		return "", "", err
	}
	if t := d.tokens[url]; t != "" {
		redact.Add(t)
		return t, SourceFile, nil
	}
	return "", "", nil
}

// Forget removes the token stored for url (which must be normalized) from the
// keyring (unless ModeOff) and from the file. The last URL is kept. Nothing
// stored is not an error. In ModeAuto a keyring that fails is logged and
// passed over; in ModeOn it is an error (the file entry is removed anyway).
func (s *Store) Forget(url string) error {
	if err := checkNormalized(url); err != nil {
		return err
	}
	if err := s.ForgetOAuth(url); err != nil { // the OAuth record beside the token (oauth.go)
		s.log().Warn("could not remove the OAuth record for this URL", "url", url, "err", err)
	}
	kr, mode, err := s.keyring()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	var kerr error
	if kr != nil {
		if err := kr.Delete(Service, url); err != nil && !errors.Is(err, ErrNotFound) {
			if mode == ModeOn {
				kerr = keyringOnError{fmt.Errorf("credentials: removing the token from the OS keyring (--keyring on): %w", err)}
			} else {
				s.log().Warn("OS keyring unavailable; a token for this URL may remain in it", "url", url, "err", err)
			}
		}
	}
	d, err := s.read()
	switch {
	case errors.Is(err, ErrCorrupt):
		// The write below moves it aside, which forgets what it held.
	case err != nil:
		return errors.Join(kerr, err)
	default:
		if _, ok := d.tokens[url]; !ok {
			return kerr
		}
	}
	err = s.write(func(d *document) { delete(d.tokens, url) })
	if err == nil {
		s.log().Info("token removed from the credentials file", "url", url, "path", s.path())
	}
	return errors.Join(kerr, err)
}

// LastURL returns the URL of the last Save, or "" when there is none.
func (s *Store) LastURL() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.read()
	if err != nil {
		return "", err
	}
	return d.lastURL, nil
}

// CheckToken fails for a token that cannot be sent as a bearer token: empty,
// or holding white space or control characters. The error never contains the
// token.
func CheckToken(token string) error {
	if token == "" {
		return errors.New("credentials: empty token")
	}
	if !utf8.ValidString(token) {
		return errors.New("credentials: the token is not valid UTF-8")
	}
	for i, r := range token {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("credentials: the token holds white space or a control character at byte %d of %d", i, len(token))
		}
	}
	return nil
}

// scrub returns err with every occurrence of token replaced, for errors of
// code outside this package that might repeat what it was given.
func scrub(err error, token string) error {
	if err == nil || token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return redactedError(strings.ReplaceAll(err.Error(), token, "[redacted]"))
}

type redactedError string

func (e redactedError) Error() string { return string(e) }
