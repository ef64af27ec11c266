package credentials

import (
	"crypto/rand"
	"errors"
	"os"
	"testing"
	"time"
)

// gateKeyring blocks while gate is open, then answers like memKeyring.
type gateKeyring struct {
	*memKeyring
	gate chan struct{}
}

func (k *gateKeyring) Get(service, user string) (string, error) {
	<-k.gate
	return k.memKeyring.Get(service, user)
}

func (k *gateKeyring) Set(service, user, password string) error {
	<-k.gate
	return k.memKeyring.Set(service, user, password)
}

func (k *gateKeyring) Delete(service, user string) error {
	<-k.gate
	return k.memKeyring.Delete(service, user)
}

// A keyring that does not answer is cut off after the timeout; while that
// call hangs, further calls fail at once; once it returns, calls go through
// again. Answers within the timeout pass through unchanged.
func TestWithTimeout(t *testing.T) {
	const d = 50 * time.Millisecond
	inner := &gateKeyring{memKeyring: newMemKeyring(), gate: make(chan struct{})}
	kr := WithTimeout(inner, d)

	start := time.Now()
	if err := kr.Set(Service, urlA, "x"); !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("Set on a hung keyring: %v, want ErrKeyringTimeout", err)
	}
	if el := time.Since(start); el < d || el > d+time.Second {
		t.Fatalf("Set returned after %v, want about %v", el, d)
	}
	start = time.Now()
	for _, call := range []func() error{
		func() error { _, err := kr.Get(Service, urlA); return err },
		func() error { return kr.Delete(Service, urlA) },
	} {
		if err := call(); !errors.Is(err, ErrKeyringTimeout) {
			t.Fatalf("call while hung: %v, want ErrKeyringTimeout", err)
		}
	}
	if el := time.Since(start); el > d/2 {
		t.Fatalf("calls while hung took %v, want them at once", el)
	}

	close(inner.gate) // the hung Set completes
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := kr.Get(Service, urlA)
		if err == nil && got == "x" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("keyring did not recover: %q, %v", got, err)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := kr.Get(Service, urlB); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing secret: %v, want ErrNotFound", err)
	}
	if err := kr.Delete(Service, urlA); err != nil {
		t.Fatal(err)
	}
}

// TestSystemKeyringRoundTrip runs the real OS keyring through SystemKeyring
// and a Store with --keyring on. Without a Secret Service (or Keychain, or
// Credential Manager) answering, it skips. In CI:
//
//	dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; go test -run TestSystemKeyringRoundTrip -v ./a2a/auth/credentials/'
func TestSystemKeyringRoundTrip(t *testing.T) {
	kr := SystemKeyring()
	url := "https://shim-test.invalid/agents/" + rand.Text()
	if _, err := kr.Get(Service, url); err != nil && !errors.Is(err, ErrNotFound) {
		t.Skipf("no OS keyring answers here (%v); on Linux run under dbus-run-session with gnome-keyring-daemon --unlock --components=secrets", err)
	}
	t.Cleanup(func() { _ = kr.Delete(Service, url) })
	l, log := newLeakLog(t)
	tok := l.secret("system-keyring-token-" + rand.Text())
	tok2 := l.secret("system-keyring-token-2-" + rand.Text())

	if err := kr.Set(Service, url, tok); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if got, err := kr.Get(Service, url); err != nil || got != tok {
		t.Fatalf("Get = %q, %v; want the token", got, err)
	}
	if err := kr.Delete(Service, url); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := kr.Get(Service, url); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := kr.Delete(Service, url); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete of a missing secret: %v, want ErrNotFound", err)
	}

	s := NewStore(t.TempDir(), kr, ModeOn, log)
	for _, token := range []string{tok, tok2} { // the second replaces the first
		if where, err := s.Save(url, token); l.err(err) != nil || where != SourceKeyring {
			t.Fatalf("Save = %q, %v; want %q", where, err, SourceKeyring)
		}
		wantToken(t, l, s, url, token, SourceKeyring)
	}
	if f := readFileJSON(t, s); len(f.Tokens) != 0 || f.LastURL != url {
		t.Fatalf("file = %+v; want lastUrl only", f)
	}
	if err := s.Forget(url); l.err(err) != nil {
		t.Fatal(err)
	}
	wantToken(t, l, s, url, "", "")
	t.Log("real keyring round trip ok")
}

// Without a known session bus, SystemKeyring fails at once rather than
// letting godbus run dbus-launch (which would start a bus and a locked
// keyring daemon and leave them running).
func TestSystemKeyringNoSessionBus(t *testing.T) {
	if sessionBusError() == nil && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Skip("this platform does not use D-Bus, or /run/user/<uid>/bus exists")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if sessionBusError() == nil {
		t.Skip("/run/user/<uid>/bus exists")
	}
	start := time.Now()
	if _, err := SystemKeyring().Get(Service, urlA); err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("Get without a session bus: %v, want the no-bus error", err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Fatalf("Get without a session bus took %v", el)
	}
}
