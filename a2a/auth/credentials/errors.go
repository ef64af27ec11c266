package credentials

import "errors"

// ErrKeyringOn is what every failure of --keyring on is (errors.Is): no OS
// keyring, or one that did not store, read or remove a token. Callers pick
// their advice by it, never by the error's text.
var ErrKeyringOn = errors.New("credentials: --keyring on, and the OS keyring failed")

// keyringOnError marks err as a failure of --keyring on; its text is err's.
type keyringOnError struct{ error }

func (e keyringOnError) Unwrap() error      { return e.error }
func (keyringOnError) Is(target error) bool { return target == ErrKeyringOn }

// SourceError is the error of a token source that is given but yields no
// usable token (Lookup): a token file that cannot be read or is empty, or
// a token that CheckToken refuses. Its text is the underlying error's,
// which it wraps.
type SourceError struct {
	// Source is one of the Source constants: --token, --token-file,
	// SHIM_TOKEN or SHIM_TOKEN_FILE.
	Source string
	err    error
}

func (e *SourceError) Error() string { return e.err.Error() }
func (e *SourceError) Unwrap() error { return e.err }

// File reports whether the source is a token file (--token-file or
// SHIM_TOKEN_FILE).
func (e *SourceError) File() bool {
	return e.Source == SourceFlagTokenFile || e.Source == SourceEnvTokenFile
}
