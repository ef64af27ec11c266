package credentials

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// memKeyring is an in-memory keyring.
type memKeyring struct {
	mu      sync.Mutex
	secrets map[string]string // service + "\x00" + user
	calls   int
}

func newMemKeyring() *memKeyring { return &memKeyring{secrets: make(map[string]string)} }

func (k *memKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	s, ok := k.secrets[service+"\x00"+user]
	if !ok {
		return "", ErrNotFound
	}
	return s, nil
}

func (k *memKeyring) Set(service, user, password string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	k.secrets[service+"\x00"+user] = password
	return nil
}

func (k *memKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	key := service + "\x00" + user
	if _, ok := k.secrets[key]; !ok {
		return ErrNotFound
	}
	delete(k.secrets, key)
	return nil
}

func (k *memKeyring) get(user string) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.secrets[Service+"\x00"+user]
	return s, ok
}

// errKeyring fails every call, and its Set error repeats the secret, as a
// careless backend might: the Store must not pass that on.
type errKeyring struct{}

func (errKeyring) Get(string, string) (string, error) {
	return "", errors.New("org.freedesktop.DBus.Error.ServiceUnknown: no secret service")
}

func (errKeyring) Set(_, _, password string) error {
	return fmt.Errorf("backend refused secret %s", password)
}

func (errKeyring) Delete(string, string) error {
	return errors.New("org.freedesktop.DBus.Error.ServiceUnknown: no secret service")
}

// hangKeyring blocks every call until the test ends, like a D-Bus call
// nobody answers.
type hangKeyring struct{ release chan struct{} }

func newHangKeyring(t *testing.T) *hangKeyring {
	k := &hangKeyring{release: make(chan struct{})}
	t.Cleanup(func() { close(k.release) })
	return k
}

func (k *hangKeyring) Get(string, string) (string, error) {
	<-k.release
	return "", ErrNotFound
}

func (k *hangKeyring) Set(string, string, string) error { <-k.release; return nil }
func (k *hangKeyring) Delete(string, string) error      { <-k.release; return nil }

// forbiddenKeyring fails the test if called at all.
type forbiddenKeyring struct{ t *testing.T }

func (k forbiddenKeyring) Get(service, user string) (string, error) {
	k.t.Errorf("keyring Get(%q, %q) called", service, user)
	return "", ErrNotFound
}

func (k forbiddenKeyring) Set(service, user, _ string) error {
	k.t.Errorf("keyring Set(%q, %q) called", service, user)
	return nil
}

func (k forbiddenKeyring) Delete(service, user string) error {
	k.t.Errorf("keyring Delete(%q, %q) called", service, user)
	return nil
}

// leakLog is a debug-level logger into a buffer. At the end of the test,
// the buffer and every error passed to checkErr are searched for every
// secret registered with secret.
type leakLog struct {
	t       *testing.T
	mu      sync.Mutex
	buf     bytes.Buffer
	secrets []string
	errs    []string
}

func newLeakLog(t *testing.T) (*leakLog, *slog.Logger) {
	l := &leakLog{t: t}
	t.Cleanup(l.check)
	return l, slog.New(slog.NewTextHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedWriter struct{ l *leakLog }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.l.buf.Write(p)
}

// secret registers tokens that must never show and returns the first.
func (l *leakLog) secret(tokens ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secrets = append(l.secrets, tokens...)
	return tokens[0]
}

// err records an error's text for the final check and returns err.
func (l *leakLog) err(err error) error {
	if err != nil {
		l.mu.Lock()
		l.errs = append(l.errs, err.Error())
		l.mu.Unlock()
	}
	return err
}

func (l *leakLog) output() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *leakLog) check() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.secrets {
		if strings.Contains(l.buf.String(), s) {
			l.t.Errorf("a token shows in the log:\n%s", l.buf.String())
		}
		for _, e := range l.errs {
			if strings.Contains(e, s) {
				l.t.Errorf("a token shows in the error %q", e)
			}
		}
	}
}

func (k *memKeyring) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.secrets)
}
