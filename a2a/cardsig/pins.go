package cardsig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/shimdev/shim/internal/privfile"
)

const (
	// FileName is the pins' file in the config dir.
	FileName    = "known_agents.json"
	fileVersion = 1
	// staleTemp is the age after which a temporary file is taken for one
	// left by a writer that died before its rename.
	staleTemp = time.Minute
)

// Pin is the key trusted for a card URL.
type Pin struct {
	// Key is the public key.
	Key jose.JSONWebKey
	// Thumbprint is its RFC 7638 thumbprint (Thumbprint).
	Thumbprint string
	// Pinned is when it was pinned.
	Pinned time.Time
}

// entry is a pin as the file holds it.
type entry struct {
	Thumbprint string          `json:"thumbprint"`
	Key        json.RawMessage `json:"key"`
	Pinned     time.Time       `json:"pinned"`
}

// Pins is <config-dir>/known_agents.json: the key pinned for each card
// URL. Its methods may be called from several goroutines; writes from
// several processes are serialized by the file's lock. A file that cannot
// be read (not JSON of this shape, another version, a pin whose key or
// thumbprint is wrong, a link) is an error of every method and is never
// overwritten.
type Pins struct {
	mu   sync.Mutex
	file privfile.Versioned
	log  *slog.Logger
}

// NewPins returns the pins of configDir (--config-dir). It does no I/O:
// the file is made by the first pin.
func NewPins(configDir string, log *slog.Logger) *Pins {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pins{log: log, file: privfile.Versioned{Path: filepath.Join(configDir, FileName), Version: fileVersion,
		Name: "known agents file", Log: log, TempAge: staleTemp, KeepUnreadable: true}}
}

// Path is the file.
func (p *Pins) Path() string { return p.file.Path }

// Get returns the pin of cardURL, nil when it has none.
func (p *Pins) Get(cardURL string) (*Pin, error) {
	key, err := pinKey(cardURL)
	if err != nil {
		return nil, err
	}
	members, fi, err := p.file.Read()
	if err != nil {
		return nil, p.fail(err)
	}
	if fi != nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		p.log.Warn("the known agents file is readable or writable by others; its mode goes back to 0600 on the next write",
			"path", p.Path(), "mode", fmt.Sprintf("%#o", fi.Mode().Perm()))
	}
	pins, _, err := p.decode(members)
	if err != nil {
		return nil, p.fail(err)
	}
	return pins[key], nil
}

// add pins pin for cardURL unless it has one already: it returns the pin
// the file holds after the write (another process may have pinned first).
func (p *Pins) add(cardURL string, pin *Pin) (*Pin, error) {
	var held *Pin
	err := p.update(cardURL, func(pins map[string]*Pin, key string) {
		if held = pins[key]; held == nil {
			pins[key], held = pin, pin
		}
	})
	return held, err
}

// Replace pins pin for cardURL in place of what it had; nil forgets its
// pin. It is what `shim login --trust-new-key` does once the person has
// agreed (Verifier.Trust).
func (p *Pins) Replace(cardURL string, pin *Pin) error {
	if pin != nil {
		if err := checkPin(pin); err != nil {
			return err
		}
	}
	return p.update(cardURL, func(pins map[string]*Pin, key string) {
		if pin == nil {
			delete(pins, key)
		} else {
			pins[key] = pin
		}
	})
}

// update is one write of the file with change applied to its pins.
func (p *Pins) update(cardURL string, change func(pins map[string]*Pin, key string)) error {
	key, err := pinKey(cardURL)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	err = p.file.Update(func(members map[string]json.RawMessage) ([]byte, error) {
		pins, extra, err := p.decode(members)
		if err != nil {
			return nil, err
		}
		change(pins, key)
		return encode(pins, extra)
	})
	if err != nil {
		return p.fail(err)
	}
	return nil
}

// fail is the *Error of the file.
func (p *Pins) fail(err error) *Error {
	var corrupt *privfile.CorruptError
	if errors.As(err, &corrupt) {
		err = fmt.Errorf("cannot read it: %v", corrupt.Err)
	}
	return &Error{Code: CodeKnownAgents, Path: p.Path(), Err: err}
}

// decode takes the file's members but "version" (nil: no file): its pins
// and the members it does not know, kept as they are. A pin that is not
// one is a *privfile.CorruptError.
func (p *Pins) decode(members map[string]json.RawMessage) (map[string]*Pin, map[string]json.RawMessage, error) {
	pins := make(map[string]*Pin)
	bad := func(why string) error { return &privfile.CorruptError{Path: p.Path(), Err: errors.New(why)} }
	if raw, ok := members["agents"]; ok {
		var entries map[string]entry
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, nil, bad("agents is not an object of pins")
		}
		for u, e := range entries {
			pin := &Pin{Thumbprint: e.Thumbprint, Pinned: e.Pinned}
			if err := json.Unmarshal(e.Key, &pin.Key); err != nil {
				return nil, nil, bad(fmt.Sprintf("the key pinned for %s is not a JWK", u))
			}
			if err := checkPin(pin); err != nil {
				return nil, nil, bad(fmt.Sprintf("the pin of %s: %v", u, err))
			}
			pins[u] = pin
		}
	}
	delete(members, "agents")
	return pins, members, nil
}

// checkPin fails for a pin whose key is not one shim accepts or whose
// thumbprint is not its key's.
func checkPin(pin *Pin) error {
	if err := checkKey(&pin.Key); err != nil {
		return fmt.Errorf("its key is %v", err)
	}
	tp, err := Thumbprint(&pin.Key)
	if err != nil || tp != pin.Thumbprint {
		return errors.New("its thumbprint is not its key's")
	}
	return nil
}

// encode renders the file: version, agents (by URL), then the members it
// does not know, indented.
func encode(pins map[string]*Pin, extra map[string]json.RawMessage) ([]byte, error) {
	entries := make(map[string]entry, len(pins))
	for u, pin := range pins {
		key, err := json.Marshal(pin.Key)
		if err != nil {
			return nil, fmt.Errorf("cannot encode the key pinned for %s: %v", u, err)
		}
		entries[u] = entry{Thumbprint: pin.Thumbprint, Key: key, Pinned: pin.Pinned.UTC().Truncate(time.Second)}
	}
	agents, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":%d,"agents":`, fileVersion)
	b.Write(agents)
	return privfile.Encode(b.Bytes(), extra)
}

// pinKey is the key of cardURL's pin: scheme and host lowercased, the
// default port dropped, the path kept without its trailing slashes, query
// and fragment dropped (as SPEC §9 normalizes URLs). A URL that is not
// http or https, has no host, or carries user information is an error.
func pinKey(cardURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(cardURL))
	if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Host == "" {
		return "", errors.New("the card URL is not an http or https URL with a host")
	}
	if u.User != nil {
		return "", errors.New("the card URL carries user information")
	}
	return origin(u) + strings.TrimRight(u.EscapedPath(), "/"), nil
}
