package credentials

// What an OAuth sign-in stores (SPEC §12.1), under the normalized URL like
// a token: the access token is the URL's token (so everything that reads
// a token reads it), and the renewal half (refresh token, expiry, token
// URL, client id, the agent's name) sits beside it: in the OS keyring
// under the account "<url>#oauth", or in the credentials file's "oauth"
// object (the file stays version 1; an older shim keeps the field as an
// unknown one). Wherever the record went, the file's "signIns" object
// says that the URL's credential is an OAuth sign-in and names the agent
// (no secret), so that initialize learns it without the keyring (SPEC
// §14).

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/shimdev/shim/internal/privfile"
	"github.com/shimdev/shim/internal/redact"
)

// OAuthRecord is the renewal half of an OAuth sign-in.
type OAuthRecord struct {
	RefreshToken string `json:"refreshToken,omitempty"`
	// Expiry is the access token's expiry, RFC 3339 ("" unknown).
	Expiry   string `json:"expiry,omitempty"`
	TokenURL string `json:"tokenUrl"`
	ClientID string `json:"clientId,omitempty"`
	// Agent is the agent card's name at the sign-in ("" unknown).
	Agent string `json:"agent,omitempty"`
}

// ExpiryTime returns the expiry, zero when unknown.
func (r *OAuthRecord) ExpiryTime() time.Time {
	if r == nil || r.Expiry == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, r.Expiry)
	return t
}

// oauthSuffix makes the keyring account of the renewal half; a
// normalized URL never holds '#'.
const (
	oauthSuffix  = "#oauth"
	oauthField   = "oauth"
	signInsField = "signIns"
)

// SaveOAuth stores an OAuth sign-in for url (normalized): the access
// token as Save does, and the record beside it. where is where the
// access token went.
func (s *Store) SaveOAuth(url, access string, rec OAuthRecord) (where string, err error) {
	redact.Add(rec.RefreshToken)
	where, err = s.Save(url, access)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return "", errors.New("credentials: cannot encode the OAuth record")
	}
	if where == SourceKeyring {
		if kr, _, kerr := s.keyring(); kerr == nil && kr != nil {
			if err := kr.Set(Service, url+oauthSuffix, string(data)); err == nil {
				s.mu.Lock()
				defer s.mu.Unlock()
				return where, scrub(s.write(func(d *document) {
					setOAuth(d, url, nil)
					setSignIn(d, url, &rec)
				}), rec.RefreshToken)
			}
		}
		s.log().Warn("the OS keyring took the access token but not the refresh token; storing that in the credentials file",
			"url", url, "path", s.path())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.write(func(d *document) {
		setOAuth(d, url, data)
		setSignIn(d, url, &rec)
	}); err != nil {
		return "", scrub(err, rec.RefreshToken)
	}
	return where, nil
}

// signIn is what the file's "signIns" object says of a URL.
type signIn struct {
	Agent string `json:"agent,omitempty"`
}

// SignIn reports whether the credential stored for url is an OAuth
// sign-in, and the agent's name stored with it ("" unknown). It reads the
// credentials file only, never the OS keyring: initialize asks it (SPEC
// §14).
func (s *Store) SignIn(url string) (agent string, ok bool, err error) {
	if err := checkNormalized(url); err != nil {
		return "", false, err
	}
	s.mu.Lock()
	d, err := s.read()
	s.mu.Unlock()
	if err != nil {
		return "", false, err
	}
	if raw, ok := objectOf(d, signInsField)[url]; ok {
		var si signIn
		_ = json.Unmarshal(raw, &si)
		return si.Agent, true, nil
	}
	if raw, ok := oauthOf(d)[url]; ok {
		// Stored by a shim that kept no "signIns".
		var rec OAuthRecord
		_ = json.Unmarshal(raw, &rec)
		return rec.Agent, true, nil
	}
	return "", false, nil
}

// renewalName is the file whose lock (renewalName + ".lock" in the config
// dir) every process takes to renew an OAuth sign-in.
const renewalName = FileName + ".renewal"

// LockRenewal takes the lock under which a process renews a stored OAuth
// sign-in (SPEC §12.1): it re-reads the stored tokens under it, renews
// only when no other process did, and stores what it got before unlock.
// The lock is a file lock in the config dir whether the tokens live in
// the OS keyring or in the file, so that every process, whatever its
// --keyring, takes the same one. busy, when not nil, is called once when
// another process (or another client of this one) holds it, before
// waiting for it.
func (s *Store) LockRenewal(busy func()) (unlock func(), err error) {
	if s.Dir == "" {
		return nil, errors.New("credentials: no config dir")
	}
	if err := privfile.EnsureDir(s.Dir); err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	unlock, aside, err := privfile.LockNotify(filepath.Join(s.Dir, renewalName), s.clock, busy)
	if err != nil {
		return nil, fmt.Errorf("credentials: renewal lock: %w", err)
	}
	if aside != "" {
		s.log().Warn("credentials: the renewal lock file was not a regular file; moved aside and made a new one",
			"path", filepath.Join(s.Dir, renewalName+".lock"), "movedTo", aside)
	}
	return unlock, nil
}

// OAuth returns the OAuth record stored for url, nil when there is none.
func (s *Store) OAuth(url string) (*OAuthRecord, error) {
	if err := checkNormalized(url); err != nil {
		return nil, err
	}
	kr, _, err := s.keyring()
	if err != nil {
		return nil, err
	}
	var raw []byte
	if kr != nil {
		if v, kerr := kr.Get(Service, url+oauthSuffix); kerr == nil && v != "" {
			raw = []byte(v)
		}
	}
	if raw == nil {
		s.mu.Lock()
		d, err := s.read()
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		raw = oauthOf(d)[url]
	}
	if raw == nil {
		return nil, nil
	}
	var rec OAuthRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("%w: the OAuth record for %s is not JSON of the expected shape", ErrCorrupt, url)
	}
	redact.Add(rec.RefreshToken)
	return &rec, nil
}

// ForgetOAuth removes the OAuth record of url (the token stays: Forget
// removes both).
func (s *Store) ForgetOAuth(url string) error {
	if err := checkNormalized(url); err != nil {
		return err
	}
	kr, _, err := s.keyring()
	if err != nil {
		return err
	}
	if kr != nil {
		if err := kr.Delete(Service, url+oauthSuffix); err != nil && !errors.Is(err, ErrNotFound) {
			s.log().Debug("could not remove the OAuth record from the OS keyring", "url", url, "err", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.read()
	if err != nil || (oauthOf(d)[url] == nil && objectOf(d, signInsField)[url] == nil) {
		return nil
	}
	return s.write(func(d *document) {
		setOAuth(d, url, nil)
		setSignIn(d, url, nil)
	})
}

// oauthOf reads the file's "oauth" object (kept among the unknown
// fields).
func oauthOf(d *document) map[string]json.RawMessage { return objectOf(d, oauthField) }

// objectOf reads one of the file's objects by URL kept among the unknown
// fields.
func objectOf(d *document, field string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if raw, ok := d.extra[field]; ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// setOAuth sets (nil: removes) the record of url in the file's "oauth"
// object.
func setOAuth(d *document, url string, rec json.RawMessage) { setObject(d, oauthField, url, rec) }

// setSignIn sets (nil: removes) what the file's "signIns" object says of
// url.
func setSignIn(d *document, url string, rec *OAuthRecord) {
	if rec == nil {
		setObject(d, signInsField, url, nil)
		return
	}
	b, _ := json.Marshal(signIn{Agent: rec.Agent})
	setObject(d, signInsField, url, b)
}

// setObject sets (nil: removes) the member url of one of the file's
// objects; an empty object is dropped.
func setObject(d *document, field, url string, v json.RawMessage) {
	m := objectOf(d, field)
	if v == nil {
		if _, ok := m[url]; !ok {
			return
		}
		delete(m, url)
	} else {
		if m == nil {
			m = map[string]json.RawMessage{}
		}
		m[url] = v
	}
	if d.extra == nil {
		d.extra = map[string]json.RawMessage{}
	}
	if len(m) == 0 {
		delete(d.extra, field)
		return
	}
	b, _ := json.Marshal(m)
	d.extra[field] = b
}
