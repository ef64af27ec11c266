package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/failure"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/roots"
)

// Agent is the connection to the remote agent: the A2A client, built
// lazily from the configuration and credentials and probed once, its card
// and the agent's name. It learns nothing of the editor: what changes with
// the card is told to onCard.
type Agent struct {
	// connect builds the A2A client; nil: no agent URL.
	connect func() (*a2aclient.Client, error)
	// advice says what to do about a refused token (nil: run `shim
	// login`).
	advice func() string
	// onCard is called when the card in use may give other skills (the
	// extended card, a new sign-in); set once before serving.
	onCard func()

	// connectMu is held around building the client; it takes mu inside.
	connectMu sync.Mutex

	// mu guards the client and whether its credentials were accepted
	// (probed; authenticate probes again).
	mu     sync.Mutex
	client *a2aclient.Client
	probed bool
}

// New is the agent reached through the client connect builds (nil: no
// agent URL is configured); advice, when set, says what to do about a
// token the server refused.
func New(connect func() (*a2aclient.Client, error), advice func() string) *Agent {
	return &Agent{connect: connect, advice: advice}
}

// OnCard sets what is called when the card in use may give other skills
// (the extended card, a new sign-in); it is set once, before any call.
func (a *Agent) OnCard(f func()) { a.onCard = f }

// Name is the agent card's name when known, else "A2A agent". It never
// fetches the card.
func (a *Agent) Name() string {
	if c := a.KnownClient(); c != nil {
		// The card's name is the server's text in shim's words (the
		// agent's title, notices, errors): one line, no control
		// characters or bidirectional overrides (SPEC §15).
		if card := c.KnownCard(); card != nil {
			if name := strings.TrimSpace(termsafe.Line(card.Name)); name != "" {
				return name
			}
		}
	}
	return "A2A agent"
}

// KnownClient is the A2A client when one was built; it builds none.
func (a *Agent) KnownClient() *a2aclient.Client {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// KnownCard is the card in use, when discovery ran; it never fetches.
func (a *Agent) KnownCard() *a2a.Card {
	if c := a.KnownClient(); c != nil {
		return c.KnownCard()
	}
	return nil
}

// Client returns the A2A client, building it on first use.
// Building it may read the OS keyring (seconds when it hangs), so it holds
// connectMu, not mu: initialize never waits for it.
func (a *Agent) Client() (*a2aclient.Client, error) {
	if c := a.KnownClient(); c != nil {
		return c, nil
	}
	if a.connect == nil {
		return nil, acp.AuthRequired("no agent URL is configured: run `shim login --url https://your-agent` in a terminal, or pass --url https://your-agent")
	}
	a.connectMu.Lock()
	defer a.connectMu.Unlock()
	if c := a.KnownClient(); c != nil {
		return c, nil
	}
	c, err := a.connect()
	if errors.As(err, new(*a2a.RefusedError)) {
		// The agent's address, refused before any connection (SPEC §15).
		return nil, acp.InvalidParams(err.Error())
	}
	if err != nil {
		return nil, acp.AuthRequired(err.Error())
	}
	// The extended card (read after the probe) may bring other skills:
	// the open sessions get the new commands.
	c.OnCardChange(func(*a2a.Card) { a.cardChanged() })
	a.mu.Lock()
	a.client = c
	a.mu.Unlock()
	return c, nil
}

// cardChanged tells onCard that the card in use may be another.
func (a *Agent) cardChanged() {
	if a.onCard != nil {
		a.onCard()
	}
}

// Probed checks the credentials once per process (success is cached).
func (a *Agent) Probed(ctx context.Context) (*a2aclient.Client, error) {
	c, err := a.Client()
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	ok := a.probed
	a.mu.Unlock()
	if ok {
		return c, nil
	}
	if err := c.Probe(ctx); err != nil {
		return nil, a.probeError(c, err)
	}
	a.mu.Lock()
	a.probed = true
	a.mu.Unlock()
	return c, nil
}

// Preconnect opens n connections ahead of requests sent at once
// (a2aclient.Client.Preconnect); nothing when the client cannot be built.
func (a *Agent) Preconnect(n int) {
	if c, err := a.Client(); err == nil {
		c.Preconnect(n)
	}
}

// Discovered returns the A2A client once its card was read and checked
// (nothing else is sent before that: a card refused sends nothing more);
// once probed, it asks nothing.
func (a *Agent) Discovered(ctx context.Context) (*a2aclient.Client, error) {
	c, err := a.Client()
	if err != nil {
		return nil, err
	}
	if _, err := c.Discover(ctx); err != nil {
		return nil, a.probeError(c, err)
	}
	return c, nil
}

// probeError is the ACP error of a failed probe.
func (a *Agent) probeError(c *a2aclient.Client, err error) error {
	// A sign-in shim cannot do, or an OAuth token that could not be
	// renewed: the a2a error says what to do.
	var se *a2a.SignInError
	if errors.As(err, &se) {
		return acp.AuthRequired(se.Error())
	}
	var h *a2a.HTTPError
	if errors.As(err, &h) && h.Unauthorized() {
		where := c.Base()
		if where == "" {
			where = h.URL
		}
		return acp.AuthRequired(fmt.Sprintf("the agent at %s refused the request (HTTP %d): the token is missing, wrong or expired; %s",
			where, h.StatusCode, a.refusedAdvice()))
	}
	return a.CallError(err, "")
}

// Reprobe reads the stored sign-in again and checks it against the card;
// the card may be another now (a login to another agent, a changed one,
// more said to a signed-in client): onCard is told.
func (a *Agent) Reprobe(ctx context.Context) error {
	a.Forget()
	if _, err := a.Probed(ctx); err != nil {
		return err
	}
	a.cardChanged()
	return nil
}

// Forget drops the client: the next call builds it again and probes.
func (a *Agent) Forget() {
	a.mu.Lock()
	a.client, a.probed = nil, false
	a.mu.Unlock()
}

// refusedAdvice says what to do about a refused token.
func (a *Agent) refusedAdvice() string {
	if a.advice != nil {
		if s := a.advice(); s != "" {
			return s
		}
	}
	return "run `shim login` in a terminal to store a valid token, then sign in again"
}

// CallError maps an A2A client error to an ACP error.
func (a *Agent) CallError(err error, taskID string) *acp.Error {
	return failure.CallError(a.Name(), err, taskID, a.refusedAdvice())
}

// LoadRoots asks the operator API for the server's project roots (the
// roots.Map's loader).
func (a *Agent) LoadRoots(ctx context.Context) ([]roots.Root, error) {
	c, err := a.Client()
	if err != nil {
		return nil, nil
	}
	list, err := c.Operator().Roots(ctx)
	if errors.Is(err, a2aclient.ErrNoOperator) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]roots.Root, 0, len(list))
	for _, r := range list {
		out = append(out, roots.Root{Name: r.Name, Path: r.Path})
	}
	return out, nil
}
