package main

import (
	"fmt"
	"sync"

	"github.com/shimdev/shim/a2a/auth/platform"
	"github.com/shimdev/shim/cmd/shim/internal/checkup"
)

// inUse is the agent in use and where its credential came from: read from
// the flags and the last login at start, changed by authenticate (reload)
// and `shim login` while other goroutines read it, so under its mutex.
type inUse struct {
	mu          sync.Mutex
	url         string          // the agent URL in use: --url, else the last login's ("" when only a card URL is)
	card        string          // the agent card's URL: --card-url, or a --url (or last login) that is one
	plat        *platform.Agent // the agent's managed platform (nil: none)
	key         string          // the normalized card URL, else the URL's (with the slug): index and keyring key
	source      string          // where the token in use came from ("" for none)
	refused     error           // the agent's address, refused (SPEC §15): every call that needs the agent fails with it
	warnedShort bool            // a token too short to redact well was warned about
}

// current returns the URL in use and its key.
func (a *inUse) current() (url, key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.url, a.key
}

// cardURL returns the card URL in use ("" for <url>/.well-known/…).
func (a *inUse) cardURL() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.card
}

// refusal is the refusal of the agent's address in use (nil: none).
func (a *inUse) refusal() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refused
}

// setRefused refuses the agent's address: no call is made until another
// target is set.
func (a *inUse) setRefused(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.url, a.card, a.key, a.plat, a.refused = "", "", "", nil, err
}

// setTarget changes the agent in use; the platform's agent (and with it
// the credential its library loaded) is kept while the URL is the same.
func (a *inUse) setTarget(url, card, key string, plat *platform.Agent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if plat != nil && a.plat != nil && plat.URL == a.plat.URL && plat.Platform == a.plat.Platform {
		plat = a.plat
	}
	a.url, a.card, a.key, a.plat, a.refused = url, card, key, plat, nil
}

// agent is the managed platform's agent in use (nil: none).
func (a *inUse) agent() *platform.Agent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.plat
}

// setSource records where the token in use came from ("" when there is
// no token).
func (a *inUse) setSource(tok, src string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.source = src
	if tok == "" {
		a.source = ""
	}
}

// firstShortToken reports whether a token too short to redact well is
// seen for the first time (it is warned about once).
func (a *inUse) firstShortToken() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	warned := a.warnedShort
	a.warnedShort = true
	return !warned
}

// credentialNow says where the credential in use came from (/status);
// storePath is the credentials file's.
func (a *inUse) credentialNow(storePath string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.source != "":
		return checkup.Source(a.source, storePath)
	case a.plat != nil && a.plat.Ambient() != nil:
		return a.plat.Platform.Title() + ": " + a.plat.Ambient().Loaded()
	}
	return "none (no token for this URL)"
}

// refusedNow says what to do about a refused credential.
func (a *inUse) refusedNow() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.source == "" && a.plat != nil && a.plat.Ambient() != nil {
		return fmt.Sprintf("the %s credential (%s) was refused: check that it may call this agent, or run `shim login` to store another",
			a.plat.Platform.Title(), a.plat.Ambient().Loaded())
	}
	return checkup.RefusedAdvice(a.source)
}
