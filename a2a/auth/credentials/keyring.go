package credentials

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zalando/go-keyring"
)

// Service is the keyring service under which tokens are stored; the account
// is the normalized URL.
const Service = "shim"

// DefaultKeyringTimeout is how long SystemKeyring waits for the OS keyring
// before treating it as absent.
const DefaultKeyringTimeout = 3 * time.Second

var (
	// ErrNotFound is returned by a Keyring that holds no secret for the
	// service and user. It is keyring.ErrNotFound itself, so fakes may return
	// either name.
	ErrNotFound = keyring.ErrNotFound

	// ErrKeyringTimeout is returned by a keyring wrapped with WithTimeout when
	// it does not answer in time, and by every later call while that call is
	// still pending.
	ErrKeyringTimeout = errors.New("credentials: the OS keyring did not answer in time")
)

// Keyring is the shape of github.com/zalando/go-keyring. Get returns an error
// that errors.Is ErrNotFound when there is no secret; Delete likewise.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

// goKeyring is go-keyring, refusing at once where it would need a D-Bus
// session bus and none is known (see sessionBusError).
type goKeyring struct{}

func (goKeyring) Get(service, user string) (string, error) {
	if err := sessionBusError(); err != nil {
		return "", err
	}
	return keyring.Get(service, user)
}

func (goKeyring) Set(service, user, password string) error {
	if err := sessionBusError(); err != nil {
		return err
	}
	return keyring.Set(service, user, password)
}

func (goKeyring) Delete(service, user string) error {
	if err := sessionBusError(); err != nil {
		return err
	}
	return keyring.Delete(service, user)
}

var systemKeyring = sync.OnceValue(func() Keyring {
	return WithTimeout(goKeyring{}, DefaultKeyringTimeout)
})

// SystemKeyring returns the OS keyring (Secret Service over D-Bus, macOS
// Keychain, Windows Credential Manager) through go-keyring, with calls cut
// off after DefaultKeyringTimeout. Where the Secret Service would be used
// and no D-Bus session bus is known, calls fail at once instead of
// launching a bus. Every call returns the same value, so a
// keyring that hung once fails fast for the rest of the process (until the
// hung call returns).
func SystemKeyring() Keyring { return systemKeyring() }

// WithTimeout wraps kr so that a call that has not returned after d fails
// with ErrKeyringTimeout. The call itself goes on in the background (a
// blocked D-Bus call cannot be cancelled); while it is pending, further calls
// fail at once with ErrKeyringTimeout instead of waiting again.
func WithTimeout(kr Keyring, d time.Duration) Keyring {
	return &timeoutKeyring{kr: kr, d: d}
}

type timeoutKeyring struct {
	kr   Keyring
	d    time.Duration
	hung atomic.Int64 // calls still running after their timeout
}

func (t *timeoutKeyring) Get(service, user string) (string, error) {
	var secret string
	err := t.do(func() (err error) {
		secret, err = t.kr.Get(service, user)
		return err
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

func (t *timeoutKeyring) Set(service, user, password string) error {
	return t.do(func() error { return t.kr.Set(service, user, password) })
}

func (t *timeoutKeyring) Delete(service, user string) error {
	return t.do(func() error { return t.kr.Delete(service, user) })
}

func (t *timeoutKeyring) do(call func() error) error {
	if t.hung.Load() > 0 {
		return ErrKeyringTimeout
	}
	done := make(chan error, 1)
	go func() { done <- call() }()
	timer := time.NewTimer(t.d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.hung.Add(1)
		go func() {
			<-done
			t.hung.Add(-1)
		}()
		return ErrKeyringTimeout
	}
}
